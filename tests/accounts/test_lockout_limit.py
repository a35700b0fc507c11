"""The sign-in lockout's limit, in numbers: five wrong passwords, not whatever the setting says."""

import pytest
from django.conf import settings
from django.test import Client

from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db


def _sign_in(client: Client, password: str) -> int:
    return client.post("/en/accounts/login/", {"login": "zaid", "password": password}).status_code


def test_the_default_limit_is_five_failed_sign_ins_for_fifteen_minutes():
    assert settings.AXES_FAILURE_LIMIT == 5
    assert settings.AXES_COOLOFF_TIME * 60 == 15


def test_four_wrong_passwords_still_let_the_learner_in():
    make_user("zaid")
    client = Client(REMOTE_ADDR="203.0.113.9")
    assert [_sign_in(client, f"wrong-{n}") for n in range(4)] == [200] * 4
    assert _sign_in(client, PASSWORD) == 302


def test_the_fifth_wrong_password_locks_out_and_the_sixth_try_is_refused_even_if_right():
    make_user("zaid")
    client = Client(REMOTE_ADDR="203.0.113.9")
    assert [_sign_in(client, f"wrong-{n}") for n in range(5)] == [200] * 4 + [429]
    assert _sign_in(client, "wrong-6") == 429
    assert _sign_in(client, PASSWORD) == 429


@pytest.mark.parametrize("language", ["en", "ar"])
def test_a_lockout_is_a_429_with_retry_after_in_the_pages_language(language):
    make_user("zaid")
    client = Client(REMOTE_ADDR="203.0.113.9")
    for n in range(5):
        _sign_in(client, f"wrong-{n}")
    response = client.post(f"/{language}/accounts/login/", {"login": "zaid", "password": PASSWORD})
    assert response.status_code == 429
    assert response["Retry-After"] == str(15 * 60)
    assert {"en": "Too many failed sign-ins", "ar": 'dir="rtl"'}[
        language
    ] in response.content.decode()
