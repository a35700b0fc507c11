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
    settings,
):
    assert settings.SIGN_IN_FAILURE_RATE_PER_CLIENT == "30/15m"
    make_user("zaid")
    sprayer = Client(REMOTE_ADDR="203.0.113.9")
    answers = [_sign_in(sprayer, f"learner{n}", "Summer2026!") for n in range(30)]

    refused = sprayer.post(SIGN_IN, {"login": "zaid", "password": PASSWORD})

    assert answers == [200] * 30
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 15 * 60
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
