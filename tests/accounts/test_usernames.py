import pytest
from django.contrib.auth import get_user_model

from accounts.models import Profile
from accounts.usernames import skeleton
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db

User = get_user_model()


def _sign_up(client, username, email=""):
    return client.post(
        "/en/accounts/signup/",
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
    )


@pytest.mark.parametrize(
    ("taken", "look_alike"),
    [
        ("amina", "amına"),  # dotless i
        ("amina", "аmina"),  # Cyrillic a
        ("amina", "AMINA"),
        ("amina", "arnina"),  # rn for m
        ("أمينة", "امينة"),  # hamza on alef
        ("أمينة", "إمينه"),  # hamza below, hā' for tā' marbūṭa
        ("مصطفى", "مصطفي"),  # alif maqṣūra and yā'
        ("أمينة", "أَمِينَة"),  # diacritics
        ("أمينة", "أمـــينة"),  # tatweel
    ],
)
def test_a_username_that_looks_like_a_taken_one_is_refused_as_taken(client, taken, look_alike):
    assert _sign_up(client, taken).status_code == 302
    client.post("/en/accounts/logout/")
    response = _sign_up(client, look_alike)
    assert response.status_code == 400
    assert "A user with that username already exists." in response.content.decode()
    assert User.objects.count() == 1


@pytest.mark.parametrize(
    ("first", "second"), [("omar", "omer"), ("salma", "salwa"), ("علي", "عالي")]
)
def test_different_names_are_both_accepted(client, first, second):
    assert _sign_up(client, first).status_code == 302
    client.post("/en/accounts/logout/")
    assert _sign_up(client, second).status_code == 302
    assert User.objects.count() == 2


def test_the_database_refuses_two_profiles_with_one_skeleton():
    from django.db import IntegrityError, transaction

    first = User.objects.create_user("amina")
    second = User.objects.create_user("amına")
    Profile.objects.create(user=first, username_skeleton=skeleton("amina"))
    with pytest.raises(IntegrityError), transaction.atomic():
        Profile.objects.create(user=second, username_skeleton=skeleton("amına"))


def test_an_account_made_in_the_admin_gets_its_profile_at_sign_in_and_blocks_look_alikes(client):
    User.objects.create_user("ustadha", password=PASSWORD)  # createsuperuser, the admin
    client.post("/en/accounts/login/", {"username": "ustadha", "password": PASSWORD})
    assert Profile.objects.get(user__username="ustadha").username_skeleton == skeleton("ustadha")
    client.post("/en/accounts/logout/")
    assert _sign_up(client, "ustadhа").status_code == 400  # Cyrillic a


def test_an_older_look_alike_account_still_signs_in(client):
    # Two look-alikes from before the check: the second keeps working, without a skeleton.
    User.objects.create_user("amina", password=PASSWORD)
    Profile.for_user(User.objects.get(username="amina"))
    User.objects.create_user("amına", password=PASSWORD)
    response = client.post("/en/accounts/login/", {"username": "amına", "password": PASSWORD})
    assert response.status_code == 302
    assert Profile.objects.get(user__username="amına").username_skeleton == ""
