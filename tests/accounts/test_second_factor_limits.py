"""Second-factor codes cannot be guessed: wrong codes count per account and per client, lock
the second step for a while (429 with Retry-After), and a wrong code answers 400 with the
form's error. Codes work while Redis is down, still once each."""

from __future__ import annotations

import time

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP, format_hotp_value, generate_totp_secret, hotp_value
from django.test import Client

from tests.factories import PASSWORD, make_instructor

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("frozen_clock")]

SIGN_IN = "/en/accounts/login/"
SECOND_STEP = "/en/accounts/2fa/authenticate/"


def _code(secret: str) -> str:
    return format_hotp_value(hotp_value(secret, int(time.time()) // 30))


def _wrong(secret: str) -> str:
    right = _code(secret)
    return next(c for c in ("000000", "111111", "222222") if c != right)


@pytest.fixture
def staff_with_totp(settings):
    settings.MFA_REQUIRED_FOR_STAFF = True
    user = make_instructor("Ustadha")
    secret = generate_totp_secret()
    TOTP.activate(user, secret)
    return user, secret


def _past_the_password(client: Client, username: str = "ustadha") -> None:
    """Signed in by password, the username typed in lower case (the account is "Ustadha")."""
    response = client.post(SIGN_IN, {"login": username, "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == SECOND_STEP


def test_a_wrong_code_answers_400_with_the_forms_error(staff_with_totp):
    _user, secret = staff_with_totp
    client = Client()
    _past_the_password(client)

    response = client.post(SECOND_STEP, {"code": _wrong(secret)})

    assert response.status_code == 400
    assert "Incorrect code" in response.content.decode()


def test_after_five_wrong_codes_even_the_right_one_is_refused_with_retry_after(staff_with_totp):
    user, secret = staff_with_totp
    client = Client()
    _past_the_password(client)
    answers = [client.post(SECOND_STEP, {"code": _wrong(secret)}).status_code for _ in range(5)]

    response = client.post(SECOND_STEP, {"code": _code(secret)})

    assert answers == [400] * 5
    assert response.status_code == 429
    # 15 minutes, and the rest of its part of 5 (accounts.limits).
    assert int(response["Retry-After"]) == 20 * 60
    assert "Too many wrong codes" in response.content.decode()
    assert "_auth_user_id" not in client.session  # not signed in


def test_the_lock_holds_for_the_account_from_another_browser_and_address(staff_with_totp):
    _user, secret = staff_with_totp
    first = Client(REMOTE_ADDR="203.0.113.9")
    _past_the_password(first)
    for _ in range(5):
        first.post(SECOND_STEP, {"code": _wrong(secret)})
    other = Client(REMOTE_ADDR="198.51.100.7")
    _past_the_password(other, "USTADHA")  # another spelling, the same account

    response = other.post(SECOND_STEP, {"code": _code(secret)})

    assert response.status_code == 429


def test_the_lock_ends_with_its_window(staff_with_totp, time_machine):
    _user, secret = staff_with_totp
    time_machine.move_to("2026-12-01 10:00:00+00:00", tick=False)
    client = Client()
    _past_the_password(client)
    for _ in range(5):
        client.post(SECOND_STEP, {"code": _wrong(secret)})
    assert client.post(SECOND_STEP, {"code": _code(secret)}).status_code == 429

    time_machine.move_to("2026-12-01 10:19:59+00:00", tick=False)
    client = Client()
    _past_the_password(client)
    assert client.post(SECOND_STEP, {"code": _code(secret)}).status_code == 429

    # 15 minutes after the part of 5 minutes the wrong codes were counted in.
    time_machine.move_to("2026-12-01 10:20:00+00:00", tick=False)
    client = Client()
    _past_the_password(client)
    response = client.post(SECOND_STEP, {"code": _code(secret)})

    assert response.status_code == 302


def test_wrong_recovery_codes_count_too(staff_with_totp):
    user, _secret = staff_with_totp
    codes = RecoveryCodes.activate(user).get_unused_codes()
    client = Client()
    _past_the_password(client)
    for n in range(5):
        assert client.post(SECOND_STEP, {"code": f"bad{n:05d}"}).status_code == 400

    assert client.post(SECOND_STEP, {"code": codes[0]}).status_code == 429


def test_one_client_guessing_codes_of_many_accounts_is_stopped(settings):
    settings.MFA_REQUIRED_FOR_STAFF = True
    settings.SECOND_FACTOR_RATE_PER_CLIENT = "6/15m"
    secrets = {}
    for n in range(4):
        user = make_instructor(f"staff{n}")
        secrets[user.username] = generate_totp_secret()
        TOTP.activate(user, secrets[user.username])
    answers = []
    for username, secret in secrets.items():
        client = Client(REMOTE_ADDR="203.0.113.9")
        _past_the_password(client, username)
        for _ in range(2):
            answers.append(client.post(SECOND_STEP, {"code": _wrong(secret)}).status_code)

    assert answers == [400] * 6 + [429] * 2


@pytest.mark.parametrize("language", ["en", "ar"])
def test_the_lockout_page_speaks_the_pages_language(staff_with_totp, language):
    _user, secret = staff_with_totp
    client = Client()
    _past_the_password(client)
    for _ in range(5):
        client.post(SECOND_STEP, {"code": _wrong(secret)})

    response = client.post(f"/{language}/accounts/2fa/authenticate/", {"code": _code(secret)})

    assert response.status_code == 429
    html = response.content.decode()
    assert {"en": "Too many wrong codes", "ar": "رموز خاطئة كثيرة"}[language] in html


def test_asking_for_the_code_again_is_limited_the_same_way(staff_with_totp):
    user, secret = staff_with_totp
    client = Client()
    client.force_login(user)
    again = "/en/accounts/2fa/reauthenticate/"
    answers = [client.post(again, {"code": _wrong(secret)}).status_code for _ in range(5)]

    assert answers == [400] * 5
    assert client.post(again, {"code": _code(secret)}).status_code == 429


def test_with_redis_down_a_code_still_signs_in_and_only_once(staff_with_totp, settings):
    from bench.services import free_port

    _user, secret = staff_with_totp
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "config.cache.OutageTolerantRedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",  # nothing listens: Redis is down
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2},
        },
    }
    code = _code(secret)
    client = Client()
    _past_the_password(client)

    response = client.post(SECOND_STEP, {"code": code})

    assert response.status_code == 302 and response["Location"] == "/en/"
    replay = Client()
    _past_the_password(replay)
    assert replay.post(SECOND_STEP, {"code": code}).status_code == 400
    assert Authenticator.objects.get(type=Authenticator.Type.TOTP).last_used_at is not None
