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

    # Made around save(), as before the checks: no profiles yet.
    first, second = User.objects.bulk_create([User(username="amina"), User(username="amına")])
    Profile.objects.create(user=first, username_skeleton=skeleton("amina"))
    with pytest.raises(IntegrityError), transaction.atomic():
        Profile.objects.create(user=second, username_skeleton=skeleton("amına"))


def test_an_account_made_in_code_has_its_skeletons_at_once_and_blocks_look_alikes(client):
    User.objects.create_user("ustadha", password=PASSWORD)  # the shell, a script
    profile = Profile.objects.get(user__username="ustadha")
    assert profile.username_skeleton == skeleton("ustadha")
    assert _sign_up(client, "ustadhа").status_code == 400  # Cyrillic a


def test_an_older_look_alike_account_still_signs_in(client):
    # Two look-alikes from before the check: the second keeps working, without a skeleton.
    first, second = User.objects.bulk_create([User(username="amina"), User(username="amına")])
    for user in (first, second):
        user.set_password(PASSWORD)
        user.save(update_fields=["password"])
    Profile.for_user(first)
    response = client.post("/en/accounts/login/", {"login": "amına", "password": PASSWORD})
    assert response.status_code == 302
    assert Profile.objects.get(user__username="amına").username_skeleton == ""
