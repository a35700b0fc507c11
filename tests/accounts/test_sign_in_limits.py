"""Sign-in limits that hold: one count per username however it is spelled, a limit per client
address across usernames (password spraying), and one password hash per failed sign-in."""

from __future__ import annotations

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher
from django.test import Client

from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

SIGN_IN = "/en/accounts/login/"


def _sign_in(client: Client, login: str, password: str) -> int:
    return client.post(SIGN_IN, {"login": login, "password": password}).status_code


def test_another_spelling_of_a_locked_out_username_is_locked_out_too():
    make_user("alice")
    client = Client(REMOTE_ADDR="203.0.113.9")
    assert [_sign_in(client, "alice", f"wrong-{n}") for n in range(5)] == [200] * 4 + [429]

    for spelling in ("Alice", "ALICE", "aLiCe"):
        assert _sign_in(client, spelling, PASSWORD) == 429


def test_failures_under_every_spelling_add_up_to_one_count():
    make_user("alice")
    client = Client(REMOTE_ADDR="203.0.113.9")
    spellings = ["alice", "Alice", "ALICE", "alicE", "aLICE"]

    answers = [_sign_in(client, spelling, "wrong") for spelling in spellings]

    assert answers == [200] * 4 + [429]
    assert _sign_in(client, "alice", PASSWORD) == 429


def test_one_address_trying_many_usernames_is_stopped_before_any_more_passwords_are_checked(
    frozen_clock,
    settings,
):
    assert settings.SIGN_IN_FAILURE_RATE_PER_CLIENT == "30/15m"
    make_user("zaid")
    sprayer = Client(REMOTE_ADDR="203.0.113.9")
    answers = [_sign_in(sprayer, f"learner{n}", "Summer2026!") for n in range(30)]

    refused = sprayer.post(SIGN_IN, {"login": "zaid", "password": PASSWORD})

    assert answers == [200] * 30
    assert refused.status_code == 429
    # 15 minutes, and the rest of its part of 5 (accounts.limits).
    assert int(refused["Retry-After"]) == 20 * 60
    assert "Many sign-ins failed from here" in refused.content.decode()
    # Someone at another address signs in.
    assert _sign_in(Client(REMOTE_ADDR="198.51.100.7"), "zaid", PASSWORD) == 302


class CountingHasher(MD5PasswordHasher):
    """Django's MD5 hasher (the suite's), counting every hash it makes."""

    hashes = 0

    def encode(self, password, salt):
        type(self).hashes += 1
        return super().encode(password, salt)


@pytest.fixture
def counting_hasher(settings):
    settings.PASSWORD_HASHERS = [f"{__name__}.CountingHasher"]
    CountingHasher.hashes = 0
    return CountingHasher


@pytest.mark.parametrize("login", ["zaid", "Zaid", "nobody-here"])
def test_a_failed_sign_in_hashes_the_password_once(counting_hasher, login):
    make_user("zaid")
    counting_hasher.hashes = 0

    assert _sign_in(Client(), login, "not-the-password") == 200

    assert counting_hasher.hashes == 1


def test_a_right_password_in_another_case_of_the_username_signs_in_with_one_hash(
    counting_hasher,
):
    make_user("zaid")
    counting_hasher.hashes = 0

    assert _sign_in(Client(), "ZAID", PASSWORD) == 302

    assert counting_hasher.hashes == 1


# N6: one address's limit without locking out those who share it (accounts.devices).
NAT = "203.0.113.9"  # a school's address: the whole class signs in from it


def _spray(count: int = 30, address: str = NAT) -> list[int]:
    """Wrong passwords for as many usernames, each from a browser of its own."""
    return [
        _sign_in(Client(REMOTE_ADDR=address), f"learner{n}", "Summer2026!") for n in range(count)
    ]


def _known_browser(username: str, address: str = NAT) -> Client:
    """A browser that signed in to `username` (then signed out)."""
    browser = Client(REMOTE_ADDR=address)
    assert _sign_in(browser, username, PASSWORD) == 302
    browser.post("/en/accounts/logout/")
    return browser


@pytest.mark.usefixtures("frozen_clock")
def test_behind_one_address_a_sprayer_does_not_lock_out_a_classmate_who_signed_in_here_before():
    make_user("huda")
    browser = _known_browser("huda")

    assert _spray() == [200] * 30

    assert _sign_in(browser, "Huda", PASSWORD) == 302
    # A browser that has never signed in to the account is stopped with the sprayer.
    assert _sign_in(Client(REMOTE_ADDR=NAT), "huda", PASSWORD) == 429


@pytest.mark.usefixtures("frozen_clock")
def test_a_browser_known_to_one_account_is_stopped_for_another():
    make_user("huda")
    make_user("omar")
    browser = _known_browser("huda")
    _spray()

    assert _sign_in(browser, "omar", PASSWORD) == 429


@pytest.mark.usefixtures("frozen_clock")
def test_a_known_browsers_wrong_passwords_spend_none_of_the_addresss(settings):
    settings.SIGN_IN_FAILURE_RATE_PER_CLIENT = "3/15m"
    make_user("huda")
    browser = _known_browser("huda")

    assert [_sign_in(browser, "huda", f"typo-{n}") for n in range(3)] == [200] * 3

    assert _spray(3) == [200] * 3
    assert _spray(1) == [429]


@pytest.mark.usefixtures("frozen_clock")
def test_a_copied_browser_cookie_is_worth_its_accounts_few_tries_then_the_address_counts(settings):
    settings.SIGN_IN_FAILURE_RATE_PER_CLIENT = "1/15m"
    make_user("huda")
    cookie = _known_browser("huda", address="192.0.2.1").cookies["daleel_devices"].value
    answers = []
    for n in range(7):
        address = f"198.51.100.{n}"
        _spray(1, address)  # each address's own limit used up
        thief = Client(REMOTE_ADDR=address)
        thief.cookies["daleel_devices"] = cookie
        answers.append(_sign_in(thief, "huda", f"guess-{n}"))

    # AXES_FAILURE_LIMIT (5) for the browser, wherever it is; then each address's limit.
    assert answers == [200] * 5 + [429] * 2


@pytest.mark.usefixtures("frozen_clock")
def test_a_forged_browser_cookie_counts_for_nothing():
    make_user("huda")
    _spray()
    forger = Client(REMOTE_ADDR=NAT)
    forger.cookies["daleel_devices"] = "not-signed"

    assert _sign_in(forger, "huda", PASSWORD) == 429


@pytest.mark.usefixtures("frozen_clock")
def test_with_two_factors_a_browser_is_known_once_the_code_is_in_not_after_the_password():
    from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret

    from tests.accounts.test_second_factor_limits import SECOND_STEP, _code

    user = make_user("huda")
    secret = generate_totp_secret()
    TOTP.activate(user, secret)
    browser = Client(REMOTE_ADDR=NAT)

    assert _sign_in(browser, "huda", PASSWORD) == 302
    assert "daleel_devices" not in browser.cookies
    assert browser.post(SECOND_STEP, {"code": _code(secret)}).status_code == 302
    assert "daleel_devices" in browser.cookies
