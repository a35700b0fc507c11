"""Two-factor sign-in (allauth.mfa): required of staff before the admin opens when DEBUG is
off (MFA_REQUIRED_FOR_STAFF), offered to learners; the admin signs in through the site's
sign-in, second factor included."""

import json
import time

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP, format_hotp_value, generate_totp_secret, hotp_value
from django.test import Client

from tests.factories import PASSWORD, make_instructor, make_user

pytestmark = pytest.mark.django_db


def _code(secret: str) -> str:
    return format_hotp_value(hotp_value(secret, int(time.time()) // 30))


def _with_totp(user) -> str:
    secret = generate_totp_secret()
    TOTP.activate(user, secret)
    return secret


@pytest.fixture
def required(settings):
    settings.MFA_REQUIRED_FOR_STAFF = True


def test_the_admins_own_sign_in_sends_to_the_sites(client):
    response = client.get("/en/admin/login/?next=/en/admin/quizzes/")
    assert response.status_code == 302
    assert response["Location"] == "/en/accounts/login/?next=%2Fen%2Fadmin%2Fquizzes%2F"


def test_staff_without_a_second_factor_are_sent_to_set_one_up_before_the_admin(required):
    client = Client()
    client.force_login(make_instructor("Ustadha"))
    for path in ("/en/admin/", "/ar/admin/quizzes/quiz/"):
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].endswith("/accounts/2fa/")
    page = client.get("/en/accounts/2fa/").content.decode()
    assert "Staff accounts need two-factor sign-in before the admin opens" in page


def test_staff_with_a_second_factor_enter_it_before_the_admin_opens(required):
    instructor = make_instructor("Ustadha")
    secret = _with_totp(instructor)
    client = Client()
    # Signed in without the sign-in form's second step (an LTI launch does so).
    client.force_login(instructor)

    response = client.get("/en/admin/quizzes/")

    assert response.status_code == 302
    assert response["Location"] == (
        "/en/accounts/2fa/reauthenticate/?next=%2Fen%2Fadmin%2Fquizzes%2F"
    )
    entered = client.post(response["Location"], {"code": _code(secret)})
    assert entered.status_code == 302 and entered["Location"] == "/en/admin/quizzes/"
    assert client.get("/en/admin/").status_code == 200


def test_without_the_requirement_staff_open_the_admin_at_once(settings):
    settings.MFA_REQUIRED_FOR_STAFF = False
    client = Client()
    client.force_login(make_instructor("Ustadha"))
    assert client.get("/en/admin/").status_code == 200


def test_learners_pages_do_not_ask_for_a_second_factor(required):
    client = Client()
    client.force_login(make_user("Amina"))
    assert client.get("/en/").status_code == 200
    assert client.get("/en/accounts/profile/").status_code == 200


def test_signing_in_with_totp_asks_for_the_code_after_the_password(required):
    instructor = make_instructor("Ustadha")
    secret = _with_totp(instructor)
    client = Client()
    response = client.post(
        "/en/accounts/login/", {"login": "ustadha", "password": PASSWORD, "next": "/en/admin/"}
    )
    assert response.status_code == 302 and response["Location"] == "/en/accounts/2fa/authenticate/"
    assert client.get("/en/admin/").status_code == 302  # not signed in yet
    wrong = client.post("/en/accounts/2fa/authenticate/", {"code": "000000"})
    assert wrong.status_code == 400 and "Incorrect code" in wrong.content.decode()
    response = client.post("/en/accounts/2fa/authenticate/", {"code": _code(secret)})
    assert response.status_code == 302 and response["Location"] == "/en/admin/"
    assert client.get("/en/admin/").status_code == 200


def test_a_learner_may_turn_on_totp(client):
    user = make_user("Amina")
    client.post("/en/accounts/login/", {"login": "amina", "password": PASSWORD})
    client.post("/en/accounts/reauthenticate/", {"password": PASSWORD})
    page = client.get("/en/accounts/2fa/totp/activate/")
    assert page.status_code == 200
    secret = client.session["mfa.totp.secret"]
    response = client.post("/en/accounts/2fa/totp/activate/", {"code": _code(secret)})
    assert response.status_code == 302
    assert Authenticator.objects.filter(user=user, type=Authenticator.Type.TOTP).exists()


def test_the_data_download_says_which_factors_without_their_secrets(client):
    user = make_user("Amina", email="amina@example.org")
    secret = _with_totp(user)
    client.force_login(user)
    response = client.get("/en/accounts/profile/data.json")
    document = json.loads(b"".join(response.streaming_content))
    assert [factor["type"] for factor in document["two_factor"]] == ["totp"]
    assert document["email_addresses"] == [
        {"email": "amina@example.org", "verified": True, "primary": True}
    ]
    assert secret not in str(document)


def test_the_second_factor_page_has_one_main_button_and_cancel_as_a_link(required):
    instructor = make_instructor("Ustadha")
    _with_totp(instructor)
    client = Client()
    client.post("/en/accounts/login/", {"login": "ustadha", "password": PASSWORD})

    page = client.get("/en/accounts/2fa/authenticate/").content.decode()

    main = page.split('<main id="main"', 1)[1].split("</main>", 1)[0]
    assert main.count("button--primary") == 1  # "Sign in", and nothing else looks like it
    assert '<button type="submit" class="link-button">Cancel</button>' in main
    # Only what the account has: an authenticator app, no security key to offer.
    assert "Enter the code your authenticator app shows." in main
    assert "webauthn_form" not in main and "Use a security key" not in main


def test_the_second_factor_page_names_the_recovery_codes_the_account_has(required):
    """(An account with a security key is offered it: tests/e2e/test_two_factor.py, with a key
    Chromium's virtual authenticator made.)"""
    instructor = make_instructor("Ustadha")
    _with_totp(instructor)
    RecoveryCodes.activate(instructor)
    client = Client()
    client.post("/en/accounts/login/", {"login": "ustadha", "password": PASSWORD})

    page = client.get("/en/accounts/2fa/authenticate/").content.decode()

    main = page.split('<main id="main"', 1)[1].split("</main>", 1)[0]
    assert "Enter the code your authenticator app shows, or one of your recovery codes." in main
    assert "Use a security key" not in main
