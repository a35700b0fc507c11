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
    for words in ("huda", "huda@example.org", "Change password", "Download my data"):
        assert words in profile
    assert 'href="/en/accounts/delete/"' in profile


def test_the_profile_needs_a_signed_in_learner(client):
    response = client.get("/en/accounts/profile/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_a_learner_chooses_a_preferred_language_without_a_password(huda_client, huda):
    response = huda_client.post(
        "/en/accounts/profile/", {"email": "huda@example.org", "language": "ar"}
    )
    assert response.status_code == 302
    assert Profile.objects.get(user=huda).language == "ar"


def test_the_preferred_language_is_applied_at_sign_in(huda):
    Profile.for_user(huda)
    Profile.objects.filter(user=huda).update(language="ar")
    client = Client()
    response = client.post(
        "/en/accounts/login/",
        {"username": "huda", "password": PASSWORD, "next": "/en/attempts/"},
    )
    assert response.status_code == 302 and response["Location"] == "/ar/attempts/"
    assert client.cookies["django_language"].value == "ar"
    # Without a preference the page's language stays.
    make_user("omar")
    other = Client()
    response = other.post(
        "/en/accounts/login/", {"username": "omar", "password": PASSWORD, "next": "/en/"}
    )
    assert response["Location"] == "/en/"


def test_changing_the_email_needs_the_current_password(huda_client, huda):
    response = huda_client.post("/en/accounts/profile/", {"email": "new@example.org"})
    assert response.status_code == 400
    assert "current password was entered incorrectly" in response.content.decode()
    huda.refresh_from_db()
    assert huda.email == "huda@example.org"

    response = huda_client.post(
        "/en/accounts/profile/", {"email": "new@example.org", "password": PASSWORD}
    )
    assert response.status_code == 302
    huda.refresh_from_db()
    assert huda.email == "new@example.org"


def test_an_email_another_account_uses_is_refused_whatever_its_case(huda_client, huda):
    make_user("omar", email="Omar@Example.org")
    response = huda_client.post(
        "/en/accounts/profile/", {"email": "OMAR@example.ORG", "password": PASSWORD}
    )
    assert response.status_code == 400
    assert "Another account uses this email address" in response.content.decode()
    huda.refresh_from_db()
    assert huda.email == "huda@example.org"


def test_sign_up_refuses_an_email_another_account_uses(client):
    make_user("omar", email="omar@example.org")
    response = client.post(
        "/en/accounts/signup/",
        {
            "username": "salma",
            "email": "OMAR@example.org",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code == 400
    assert "Another account uses this email address" in response.content.decode()
    assert not User.objects.filter(username="salma").exists()


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


def test_wrong_passwords_on_the_profile_lock_out_like_sign_in(settings, huda):
    client = Client(REMOTE_ADDR="203.0.113.9")
    client.force_login(huda)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post("/en/accounts/profile/", {"email": "thief@example.org", "password": "guess"})
    response = client.post(
        "/en/accounts/profile/", {"email": "thief@example.org", "password": PASSWORD}
    )
    assert response.status_code == 429
    huda.refresh_from_db()
    assert huda.email == "huda@example.org"


@pytest.mark.parametrize(
    "data",
    [
        {"email": "not an address"},
        {"email": "huda@example.org", "language": "fr"},
        {"email": "huda@example.org", "language": "x" * 500},
        {"email": "a\x00@example.org", "password": PASSWORD},
    ],
)
def test_junk_on_the_profile_gets_a_clear_error_and_changes_nothing(huda_client, huda, data):
    response = huda_client.post("/en/accounts/profile/", data)
    assert response.status_code == 400
    assert "There is a problem" in response.content.decode()
    huda.refresh_from_db()
    assert huda.email == "huda@example.org"
    assert Profile.for_user(huda).language == ""


def test_the_profile_form_needs_a_csrf_token(huda):
    client = Client(enforce_csrf_checks=True)
    client.force_login(huda)
    response = client.post("/en/accounts/profile/", {"email": "", "language": "ar"})
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


def test_the_old_address_is_told_when_the_email_changes(huda_client, huda, mailoutbox):
    response = huda_client.post(
        "/en/accounts/profile/", {"email": "new@example.org", "password": PASSWORD}
    )

    assert response.status_code == 302
    [notice] = mailoutbox
    assert notice.to == ["huda@example.org"]
    assert notice.subject == "The email address of your Daleel account changed"
    assert "Hello huda," in notice.body and "choose a new password" in notice.body
    # Whoever changed it is not told where the old address's mail would have gone.
    assert "new@example.org" not in notice.body


def test_the_notice_is_in_the_learners_preferred_language(huda_client, huda, mailoutbox):
    huda_client.post(
        "/en/accounts/profile/",
        {"email": "other@example.org", "language": "ar", "password": PASSWORD},
    )

    [notice] = mailoutbox
    assert notice.subject == "تغيّر البريد الإلكتروني لحسابك في «دليل»"


@pytest.mark.parametrize(
    "change",
    [{"email": "HUDA@example.org"}, {"email": "huda@example.org", "language": "ar"}],
    ids=["only its case", "the language"],
)
def test_no_notice_when_the_address_stays(huda_client, mailoutbox, change):
    response = huda_client.post("/en/accounts/profile/", {**change, "password": PASSWORD})

    assert response.status_code == 302
    assert mailoutbox == []


def test_no_notice_for_an_account_that_had_no_address(mailoutbox):
    learner = make_user("sami", email="")
    client = Client()
    client.force_login(learner)

    client.post("/en/accounts/profile/", {"email": "sami@example.org", "password": PASSWORD})

    learner.refresh_from_db()
    assert learner.email == "sami@example.org" and mailoutbox == []


def test_a_failing_mail_server_neither_undoes_the_change_nor_fails_the_page(
    huda_client, huda, settings, caplog
):
    settings.MAILERS = {"default": {"BACKEND": "tests.accounts.test_profile.FailingBackend"}}

    response = huda_client.post(
        "/en/accounts/profile/", {"email": "new@example.org", "password": PASSWORD}
    )

    assert response.status_code == 302
    huda.refresh_from_db()
    assert huda.email == "new@example.org"
    assert "path=accounts.mail.deliver state=FAILED" in caplog.text
    assert "no mail server" in caplog.text


class FailingBackend:
    def __init__(self, *args, **kwargs):
        pass

    def send_messages(self, messages):
        raise ConnectionRefusedError("no mail server")
