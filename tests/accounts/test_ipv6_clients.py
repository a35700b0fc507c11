"""An IPv6 client is counted by its /64 (CLIENT_IPV6_PREFIX), everywhere a client is counted:
a host is given a whole /64 and may send each request from a fresh address in it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret
from django.core import signing
from django.test import Client, RequestFactory

from accounts.client_ip import client_key
from lti import login as lti_login
from tests.factories import PASSWORD, make_user
from tests.lti.conftest import login_params

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("frozen_clock")]

ONE = "2001:db8:5:6"  # a /64, as one host has it
OTHER = "2001:db8:5:7"  # the next /64: another client


def _key(address: str) -> str | None:
    return client_key(RequestFactory().get("/", REMOTE_ADDR=address))


def test_every_address_of_a_64_is_one_client_and_the_next_64_another():
    assert _key(f"{ONE}::1") == _key(f"{ONE}:ffff:ffff:ffff:ffff") == f"{ONE}::"
    assert _key(f"{OTHER}::1") == f"{OTHER}::"
    # IPv4, and IPv4 written as IPv6, are counted by the address.
    assert _key("203.0.113.9") == "203.0.113.9"
    assert _key("::ffff:203.0.113.9") == "203.0.113.9"


def test_the_prefix_is_a_setting(settings):
    settings.CLIENT_IPV6_PREFIX = 48
    assert _key(f"{ONE}::1") == _key(f"{OTHER}::1") == "2001:db8:5::"
    settings.CLIENT_IPV6_PREFIX = 128
    assert _key(f"{ONE}::1") != _key(f"{ONE}::2")


def test_behind_a_trusted_proxy_the_forwarded_address_is_counted_by_its_64(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=f"{ONE}::9")
    assert client_key(request) == f"{ONE}::"


def _sign_up(address: str, n: int, lms=None) -> int:
    fields = {"username": f"lab{n}", "password1": PASSWORD, "password2": PASSWORD}
    return Client(REMOTE_ADDR=address).post("/en/accounts/signup/", fields).status_code


def _password_reset(address: str, n: int, lms=None) -> int:
    fields = {"email": f"guess{n}@example.org"}
    return Client(REMOTE_ADDR=address).post("/en/accounts/password/reset/", fields).status_code


def _sign_in_failure(address: str, n: int, lms=None) -> int:
    fields = {"login": f"learner{n}", "password": "Summer2026!"}
    return Client(REMOTE_ADDR=address).post("/en/accounts/login/", fields).status_code


def _lti_login(address: str, n: int, lms=None) -> int:
    quiz_url = "http://testserver/en/quizzes/any/"
    params = login_params(lms, target_link_uri=quiz_url)
    return Client(REMOTE_ADDR=address).get("/lti/login/", params).status_code


def _lti_login_continue(address: str, n: int, lms=None) -> int:
    """Step 2 of a login of its own (each link works once), with its cookie."""
    params = login_params(lms, target_link_uri="http://testserver/en/quizzes/any/")
    token = signing.dumps(
        {"params": params, "check": f"check-{n}"}, salt=lti_login.SALT, compress=True
    )
    client = Client(REMOTE_ADDR=address)
    client.cookies[lti_login.CHECK_COOKIE] = f"check-{n}"
    return client.get("/lti/login/continue/", {"t": token}).status_code


LIMITS: dict[str, tuple[str, str, Callable[[str, int], int], int]] = {
    # name: (setting, its value of two, one request from an address, its answer when let through)
    "sign-up": ("SIGNUP_LIMIT_PER_HOUR", 2, _sign_up, 302),
    "password reset": ("PASSWORD_RESET_RATE_PER_CLIENT", "2/h", _password_reset, 302),
    "failed sign-ins": ("SIGN_IN_FAILURE_RATE_PER_CLIENT", "2/15m", _sign_in_failure, 200),
    "LTI login": ("LTI_LOGIN_RATE_PER_CLIENT", "2/h", _lti_login, 302),
    "LTI login, second step": ("LTI_LOGIN_RATE_PER_CLIENT", "2/h", _lti_login_continue, 302),
}


@pytest.mark.parametrize("limit", list(LIMITS))
def test_each_limit_counts_every_address_of_a_64_as_one_client(limit, settings, request):
    setting, value, send, allowed = LIMITS[limit]
    lms = request.getfixturevalue("registered") if limit.startswith("LTI") else None
    setattr(settings, setting, value)

    answers = [send(f"{ONE}::{n + 1:x}", n, lms) for n in range(3)]

    assert answers == [allowed, allowed, 429]
    assert send(f"{ONE}:abcd::1", 3, lms) == 429  # any address of the /64
    assert send(f"{OTHER}::1", 4, lms) == allowed  # the next /64 is another client


def test_four_addresses_of_a_64_trying_passwords_for_one_account_lock_it_out_from_all_of_it():
    make_user("zaid")
    answers = [
        Client(REMOTE_ADDR=f"{ONE}::{n + 1}").post(
            "/en/accounts/login/", {"login": "zaid", "password": f"guess-{n}"}
        )
        for n in range(5)
    ]
    assert [response.status_code for response in answers] == [200] * 4 + [429]

    fifth = Client(REMOTE_ADDR=f"{ONE}::99")
    response = fifth.post("/en/accounts/login/", {"login": "zaid", "password": PASSWORD})

    assert response.status_code == 429
    elsewhere = Client(REMOTE_ADDR=f"{OTHER}::1")
    response = elsewhere.post("/en/accounts/login/", {"login": "zaid", "password": PASSWORD})
    assert response.status_code == 302


def test_wrong_codes_from_every_address_of_a_64_are_one_clients(settings):
    from tests.accounts.test_second_factor_limits import SECOND_STEP, SIGN_IN, _wrong

    settings.SECOND_FACTOR_RATE_PER_CLIENT = "2/15m"
    answers = []
    for n in range(3):
        user = make_user(f"staff{n}")
        secret = generate_totp_secret()
        TOTP.activate(user, secret)
        client = Client(REMOTE_ADDR=f"{ONE}::{n + 1}")
        signed = client.post(SIGN_IN, {"login": user.username, "password": PASSWORD})
        assert signed.status_code == 302
        answers.append(client.post(SECOND_STEP, {"code": _wrong(secret)}).status_code)

    assert answers == [400, 400, 429]
