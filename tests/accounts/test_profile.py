import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import Profile
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

User = get_user_model()


@pytest.fixture
def huda(db):
    return make_user("huda", email="huda@example.org")


@pytest.fixture
def huda_client(huda):
    client = Client()
    client.force_login(huda)
    return client


def test_the_learners_name_in_the_header_leads_to_the_profile(huda_client):
    page = huda_client.get("/en/").content.decode()
    assert 'href="/en/accounts/profile/"' in page
    profile = huda_client.get("/en/accounts/profile/").content.decode()
    for words in ("huda", "Your email addresses", "Change password", "Two-factor sign-in"):
        assert words in profile
    assert "Download my data" in profile
    assert 'href="/en/accounts/delete/"' in profile


def test_the_profile_needs_a_signed_in_learner(client):
    response = client.get("/en/accounts/profile/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_a_learner_chooses_a_preferred_language_without_a_password(huda_client, huda):
    response = huda_client.post("/en/accounts/profile/", {"language": "ar"})
    assert response.status_code == 302
    assert Profile.objects.get(user=huda).language == "ar"


def test_the_preferred_language_is_applied_at_sign_in(huda):
    Profile.for_user(huda)
    Profile.objects.filter(user=huda).update(language="ar")
    client = Client()
    response = client.post(
        "/en/accounts/login/",
        {"login": "huda", "password": PASSWORD, "next": "/en/attempts/"},
    )
    assert response.status_code == 302 and response["Location"] == "/ar/attempts/"
    assert client.cookies["django_language"].value == "ar"
    # Without a preference the page's language stays.
    make_user("omar")
    other = Client()
    response = other.post(
        "/en/accounts/login/", {"login": "omar", "password": PASSWORD, "next": "/en/"}
    )
    assert response["Location"] == "/en/"


def test_several_accounts_may_leave_the_email_empty(client):
    for name in ("salma", "samir"):
        Client().post(
            "/en/accounts/signup/",
            {"username": name, "email": "", "password1": PASSWORD, "password2": PASSWORD},
        )
    assert User.objects.filter(email="").count() == 2


def test_the_database_refuses_two_accounts_with_one_email_in_different_cases():
    from django.db import IntegrityError, transaction

    make_user("omar", email="omar@example.org")
    with pytest.raises(IntegrityError), transaction.atomic():
        make_user("salma", email="OMAR@example.org")


@pytest.mark.parametrize("language", ["fr", "x" * 500])
def test_junk_on_the_profile_gets_a_clear_error_and_changes_nothing(huda_client, huda, language):
    response = huda_client.post("/en/accounts/profile/", {"language": language})
    assert response.status_code == 400
    assert "There is a problem" in response.content.decode()
    assert Profile.for_user(huda).language == ""


def test_the_profile_form_needs_a_csrf_token(huda):
    client = Client(enforce_csrf_checks=True)
    client.force_login(huda)
    response = client.post("/en/accounts/profile/", {"language": "ar"})
    assert response.status_code == 403


def test_the_admin_refuses_an_email_another_account_uses(admin_client):
    omar = make_user("omar", email="omar@example.org")
    huda = make_user("huda2", email="")
    page = admin_client.get(f"/en/admin/auth/user/{huda.pk}/change/")
    data = {
        key: value
        for key, value in page.context["adminform"].form.initial.items()
        if value is not None and key not in {"groups", "user_permissions", "password"}
    }
    data.update(
        {"email": "OMAR@example.org", "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00"}
    )
    response = admin_client.post(f"/en/admin/auth/user/{huda.pk}/change/", data)
    assert response.status_code == 200
    assert "Another account uses this email address" in response.content.decode()
    huda.refresh_from_db()
    assert huda.email == "" and omar.email == "omar@example.org"


def test_the_profile_shows_the_email_address_and_whether_it_is_verified(client):
    verified = make_user("huda", email="huda@example.org")
    pending = make_user("omar", email="omar@example.org", verified=False)
    without = make_user("salma")

    pages = {}
    for user in (verified, pending, without):
        client.force_login(user)
        pages[user.username] = client.get("/en/accounts/profile/").content.decode()
    arabic = client.get("/ar/accounts/profile/").content.decode()

    assert "<dt><bdi>huda@example.org</bdi></dt>" in pages["huda"]
    assert "<dd>Verified</dd>" in pages["huda"]
    assert "<dt><bdi>omar@example.org</bdi></dt>" in pages["omar"]
    assert "Not verified yet: open the link we sent to it." in pages["omar"]
    assert "No email address yet" in pages["salma"]
    assert "لا بريد إلكتروني بعد" in arabic
