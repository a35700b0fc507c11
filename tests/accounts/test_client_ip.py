"""Whose address counts: X-Forwarded-For only from trusted proxies, read from the right."""

import pytest
from django.test import Client, RequestFactory

from accounts.client_ip import client_ip
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

BALANCER = "10.0.0.1"


def _ip(remote_addr: str, forwarded_for: str | None = None) -> str | None:
    headers = {} if forwarded_for is None else {"HTTP_X_FORWARDED_FOR": forwarded_for}
    return client_ip(RequestFactory().get("/", REMOTE_ADDR=remote_addr, **headers))


@pytest.fixture
def behind_a_balancer(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8", "fd00::/8"]
    settings.TRUSTED_PROXY_COUNT = 0


def test_without_trusted_proxies_the_header_is_ignored(settings):
    settings.TRUSTED_PROXIES = []
    assert _ip("203.0.113.9", "198.51.100.7") == "203.0.113.9"
    assert _ip(BALANCER, "198.51.100.7") == BALANCER


def test_a_client_that_is_no_trusted_proxy_cannot_name_another_address(behind_a_balancer):
    assert _ip("203.0.113.9", "198.51.100.7") == "203.0.113.9"
    assert _ip("203.0.113.9", "10.0.0.2") == "203.0.113.9"


def test_behind_proxies_the_first_untrusted_address_from_the_right_is_the_clients(
    behind_a_balancer,
):
    assert _ip(BALANCER, "198.51.100.7") == "198.51.100.7"
    # Two proxies in a row, and a client that wrote addresses of its own to the left.
    assert _ip(BALANCER, "192.0.2.1, 10.9.9.9, 198.51.100.7, 10.0.0.2") == "198.51.100.7"
    assert _ip("fd00::1", "2001:db8::5, fd00::2") == "2001:db8::5"
    assert _ip(BALANCER, "::ffff:198.51.100.7") == "198.51.100.7"


def test_junk_in_the_header_is_never_taken_for_an_address(behind_a_balancer):
    assert _ip(BALANCER, "not-an-address, 10.0.0.2") == "10.0.0.2"
    assert _ip(BALANCER, "") == BALANCER
    assert _ip(BALANCER, "' OR 1=1 --") == BALANCER
    assert _ip(BALANCER) == BALANCER


def test_the_older_proxy_count_stops_after_that_many_hops(behind_a_balancer, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    assert _ip(BALANCER, "198.51.100.7, 10.0.0.2") == "10.0.0.2"
    # Still only from a trusted proxy.
    assert _ip("203.0.113.9", "198.51.100.7") == "203.0.113.9"


@pytest.mark.parametrize("proxies", [[], ["10.0.0.0/8"]])
def test_a_forger_who_connects_directly_is_locked_out_whatever_address_it_writes(settings, proxies):
    settings.TRUSTED_PROXIES = proxies
    assert settings.AXES_FAILURE_LIMIT == 5
    make_user("zaid")
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    for attempt in range(5):
        response = attacker.post(
            "/en/accounts/login/",
            {"login": "zaid", "password": "wrong"},
            HTTP_X_FORWARDED_FOR=f"198.51.100.{attempt}",
        )
        assert response.status_code == (429 if attempt == 4 else 200)
    response = attacker.post(
        "/en/accounts/login/",
        {"login": "zaid", "password": PASSWORD},
        HTTP_X_FORWARDED_FOR="192.0.2.55",
    )
    assert response.status_code == 429


def test_behind_a_balancer_a_forger_writing_a_new_address_each_try_is_still_locked_out(
    behind_a_balancer,
):
    make_user("zaid")
    # The balancer appends the address it saw (203.0.113.9) to whatever the forger wrote.
    attacker = Client(REMOTE_ADDR=BALANCER)
    for attempt in range(5):
        attacker.post(
            "/en/accounts/login/",
            {"login": "zaid", "password": "wrong"},
            HTTP_X_FORWARDED_FOR=f"198.51.100.{attempt}, 203.0.113.9",
        )
    response = attacker.post(
        "/en/accounts/login/",
        {"login": "zaid", "password": PASSWORD},
        HTTP_X_FORWARDED_FOR="192.0.2.55, 203.0.113.9",
    )
    assert response.status_code == 429
    # The learner, at an address of their own behind the same balancer, signs in.
    learner = Client(REMOTE_ADDR=BALANCER, HTTP_X_FORWARDED_FOR="198.51.100.7")
    response = learner.post("/en/accounts/login/", {"login": "zaid", "password": PASSWORD})
    assert response.status_code == 302


def test_by_default_only_a_proxy_on_this_machine_is_trusted():
    from django.conf import settings

    assert settings.TRUSTED_PROXIES == ["127.0.0.0/8", "::1/128"]
    # A client on the campus LAN cannot choose the address its limits count.
    assert _ip("10.1.2.3", "198.51.100.7") == "10.1.2.3"
    assert _ip("192.168.4.20", "198.51.100.7") == "192.168.4.20"
    assert _ip("127.0.0.1", "198.51.100.7") == "198.51.100.7"
