import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client

from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

User = get_user_model()
NEW_PASSWORD = "another-long-passphrase-77"


def test_a_new_learner_signs_up_and_is_signed_in_at_once(csrf_client):
    page = csrf_client.get("/en/accounts/signup/?next=/en/quizzes/some-quiz/")
    token = page.cookies["csrftoken"].value
    response = csrf_client.post(
        "/en/accounts/signup/",
        {
            "username": "salma",
            "email": "",
            "password1": NEW_PASSWORD,
            "password2": NEW_PASSWORD,
            "next": "/en/quizzes/some-quiz/",
            "csrfmiddlewaretoken": token,
        },
    )
    assert response.status_code == 302
    assert response["Location"] == "/en/quizzes/some-quiz/"
    assert User.objects.filter(username="salma").exists()
    assert "salma" in csrf_client.get("/en/").content.decode()


def test_sign_up_never_redirects_off_site(client):
    response = client.post(
        "/en/accounts/signup/",
        {
            "username": "salma",
            "password1": NEW_PASSWORD,
            "password2": NEW_PASSWORD,
            "next": "https://evil.example/",
        },
    )
    assert response["Location"] == "/en/"


@pytest.mark.parametrize(
    ("password", "message"),
    [
        ("short", "too short"),
        ("password123", "too common"),
        ("12345678901", "entirely numeric"),
        (" " * 12, "cannot be only spaces"),
    ],
)
def test_weak_passwords_are_refused_with_an_error_summary(client, password, message):
    response = client.post(
        "/en/accounts/signup/",
        {"username": "salma", "password1": password, "password2": password},
    )
    page = response.content.decode()
    assert response.status_code == 400
    assert "There is a problem" in page and message in page
    assert not User.objects.filter(username="salma").exists()


def test_signing_in_starts_a_new_session_and_signing_out_ends_it(client):
    make_user("omar")
    client.get("/en/accounts/login/")
    before = client.cookies["sessionid"].value if "sessionid" in client.cookies else None
    response = client.post(
        "/en/accounts/login/", {"login": "omar", "password": PASSWORD, "next": "/en/attempts/"}
    )
    assert response.status_code == 302 and response["Location"] == "/en/attempts/"
    session_key = client.cookies["sessionid"].value
    assert session_key != before
    assert Session.objects.filter(session_key=session_key).exists()

    # Visiting the sign-out address asks to confirm with a button: sign-out is a POST.
    page = client.get("/en/accounts/logout/")
    assert page.status_code == 200 and 'action="/en/accounts/logout/"' in page.content.decode()
    assert client.head("/en/accounts/logout/").status_code == 200
    assert Session.objects.filter(session_key=session_key).exists()
    client.post("/en/accounts/logout/")
    assert not Session.objects.filter(session_key=session_key).exists()
    assert client.get("/en/attempts/").status_code == 302


def test_a_learner_changes_their_password(client):
    user = make_user("huda")
    client.force_login(user)
    response = client.post(
        "/en/accounts/password/change/",
        {"oldpassword": PASSWORD, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)


def test_repeated_failed_sign_ins_lock_out_that_username_from_that_address(settings):
    make_user("zaid")
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        attacker.post("/en/accounts/login/", {"login": "zaid", "password": "wrong"})
    response = attacker.post("/en/accounts/login/", {"login": "zaid", "password": PASSWORD})
    assert response.status_code == 429
    assert "Too many failed sign-ins" in response.content.decode()

    # The same campus address can still sign other learners in, and zaid can from elsewhere.
    make_user("lina")
    response = attacker.post("/en/accounts/login/", {"login": "lina", "password": PASSWORD})
    assert response.status_code == 302
    elsewhere = Client(REMOTE_ADDR="198.51.100.7")
    response = elsewhere.post("/en/accounts/login/", {"login": "zaid", "password": PASSWORD})
    assert response.status_code == 302


def test_behind_a_load_balancer_a_lockout_is_for_the_learners_address_not_the_balancers(
    settings,
):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    make_user("zaid")
    balancer = "10.0.0.1"  # every request reaches the app from here
    # The attacker also forges an X-Forwarded-For of its own: the balancer appends the real one.
    attacker = Client(REMOTE_ADDR=balancer, HTTP_X_FORWARDED_FOR="198.51.100.7, 203.0.113.9")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        attacker.post("/en/accounts/login/", {"login": "zaid", "password": "wrong"})
    assert (
        attacker.post("/en/accounts/login/", {"login": "zaid", "password": PASSWORD}).status_code
        == 429
    )

    learner = Client(REMOTE_ADDR=balancer, HTTP_X_FORWARDED_FOR="198.51.100.7")
    response = learner.post("/en/accounts/login/", {"login": "zaid", "password": PASSWORD})
    assert response.status_code == 302


def test_guessing_the_current_password_on_the_change_form_locks_out_like_sign_in(settings):
    user = make_user("huda")
    client = Client(REMOTE_ADDR="203.0.113.9")
    client.force_login(user)
    for attempt in range(1, settings.AXES_FAILURE_LIMIT + 1):
        response = client.post(
            "/en/accounts/password/change/",
            {
                "oldpassword": f"guess-{attempt}",
                "password1": NEW_PASSWORD,
                "password2": NEW_PASSWORD,
            },
        )
        # Told the password is wrong, until the guess that reaches the limit locks out.
        assert response.status_code == (429 if attempt == settings.AXES_FAILURE_LIMIT else 400)

    # Now even the right password is refused here, and at the sign-in form from this address.
    response = client.post(
        "/en/accounts/password/change/",
        {"oldpassword": PASSWORD, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert response.status_code == 429
    user.refresh_from_db()
    assert user.check_password(PASSWORD)
    other = Client(REMOTE_ADDR="203.0.113.9")
    response = other.post("/en/accounts/login/", {"login": "huda", "password": PASSWORD})
    assert response.status_code == 429


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("/en/accounts/password/", "/en/accounts/password/change/"),
        ("/ar/accounts/password/done/", "/ar/accounts/password/change/"),
        ("/en/accounts/password/reset/sent/", "/en/accounts/password/reset/done/"),
        ("/ar/accounts/password/reset/complete/", "/ar/accounts/password/reset/key/done/"),
    ],
)
def test_addresses_from_before_allauth_lead_to_their_pages(client, old, new):
    response = client.get(old)
    assert response.status_code == 302 and response["Location"] == new
