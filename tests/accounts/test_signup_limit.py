"""Sign-up is limited per client address: a lab signs up together, a script cannot go on.
Every request let through counts, its form accepted or not (accounts.limits). The clock is
frozen in each test (tests/conftest.py: frozen_clock)."""

import pytest
from django.conf import settings as site_settings
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.limits import hit

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("frozen_clock")]

User = get_user_model()
PASSWORD = "a-long-passphrase-for-tests-51"


def _sign_up(client: Client, username: str, **headers):
    return client.post(
        "/en/accounts/signup/",
        {"username": username, "password1": PASSWORD, "password2": PASSWORD},
        **headers,
    )


def test_by_default_twenty_accounts_an_hour_from_one_address():
    assert site_settings.SIGNUP_LIMIT_PER_HOUR == 20


@pytest.mark.parametrize(
    ("language", "heading", "wait"),
    [
        ("en", "Too many new accounts from here", "creating another is paused. Try again in"),
        ("ar", "حسابات جديدة كثيرة جدًا من هنا", "أُوقف إنشاء حساب آخر مؤقتًا. حاول مجددًا بعد"),
    ],
)
def test_past_the_limit_an_address_gets_a_clear_429_and_no_account(
    settings, language, heading, wait
):
    settings.SIGNUP_LIMIT_PER_HOUR = 3
    for n in range(3):
        response = _sign_up(Client(REMOTE_ADDR="203.0.113.9"), f"lab{n}")
        assert response.status_code == 302

    response = Client(REMOTE_ADDR="203.0.113.9").post(
        f"/{language}/accounts/signup/",
        {"username": "script", "password1": PASSWORD, "password2": PASSWORD},
    )

    assert response.status_code == 429
    # An hour, and the rest of its part of 20 minutes (accounts.limits).
    assert int(response["Retry-After"]) == 80 * 60
    html = response.content.decode()
    assert heading in html and wait in html
    assert not User.objects.filter(username="script").exists()
    # Another address is not held back.
    assert _sign_up(Client(REMOTE_ADDR="198.51.100.7"), "elsewhere").status_code == 302


def test_forms_sent_back_with_errors_count_too(settings):
    settings.SIGNUP_LIMIT_PER_HOUR = 2
    client = Client(REMOTE_ADDR="203.0.113.9")
    for _ in range(2):
        response = client.post(
            "/en/accounts/signup/",
            {"username": "lina", "password1": PASSWORD, "password2": "not the same"},
        )
        assert response.status_code == 400
    assert _sign_up(client, "lina").status_code == 429
    assert not User.objects.filter(username="lina").exists()


def test_behind_a_trusted_proxy_the_limit_is_per_client_not_per_proxy(settings):
    settings.SIGNUP_LIMIT_PER_HOUR = 1
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    balancer = {"REMOTE_ADDR": "10.0.0.1"}
    assert (
        _sign_up(Client(**balancer, HTTP_X_FORWARDED_FOR="203.0.113.9"), "one").status_code == 302
    )
    assert (
        _sign_up(Client(**balancer, HTTP_X_FORWARDED_FOR="203.0.113.9"), "two").status_code == 429
    )
    assert (
        _sign_up(Client(**balancer, HTTP_X_FORWARDED_FOR="198.51.100.7"), "three").status_code
        == 302
    )
    # A forger writing its own addresses: the balancer's entry is the one that counts.
    forged = Client(**balancer, HTTP_X_FORWARDED_FOR="192.0.2.1, 203.0.113.9")
    assert _sign_up(forged, "four").status_code == 429


def test_the_count_goes_on_for_an_hour_after_each_sign_up(settings):
    hour = 1_800_000_000 // 3600 * 3600
    for n in range(2):
        assert hit(group="signup", key="203.0.113.9", rate="2/h", now=hour + n) is None
    # Until the part of 20 minutes they were counted in leaves the hour before a request.
    assert hit(group="signup", key="203.0.113.9", rate="2/h", now=hour + 1200) == 3600
    assert hit(group="signup", key="203.0.113.9", rate="2/h", now=hour + 4799) == 1
    assert hit(group="signup", key="203.0.113.9", rate="2/h", now=hour + 4800) is None
    assert hit(group="signup", key="198.51.100.7", rate="2/h", now=hour + 1200) is None


def test_a_limit_of_zero_means_no_limit(settings):
    settings.SIGNUP_LIMIT_PER_HOUR = 0
    client = Client(REMOTE_ADDR="203.0.113.9")
    for n in range(4):
        assert _sign_up(client, f"free{n}").status_code == 302
        client.logout()
