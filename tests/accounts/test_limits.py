"""accounts.limits: counted atomically (concurrent requests never pass a limit), every limit
a 429 with Retry-After, and per process while the shared cache is unreachable."""

import threading

import pytest
from django.core.cache import caches
from django.db import connections
from django.test import Client

from accounts import limits
from bench.services import free_port
from config.cache import OutageTolerantRedisCache
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def _concurrently(count: int, work) -> list:
    """`work(n)` for n in 0..count-1 in as many threads released at once; their results.
    A thread's error fails the test (it is not counted as a request let through), and each
    thread gives its database connection back (on PostgreSQL, to the pool)."""
    barrier = threading.Barrier(count)
    results: list = [None] * count
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            barrier.wait()
            results[n] = work(n)
        except BaseException as error:  # noqa: BLE001 — raised again below, in the test
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


def test_eighty_concurrent_requests_against_a_limit_of_twenty_let_exactly_twenty_through():
    waits = _concurrently(80, lambda n: limits.hit(group="signup", key="lab", rate="20/h"))
    assert waits.count(None) == 20


def test_every_request_counts_and_the_wait_is_until_the_window_ends():
    hour = 1_800_000_000 // 3600 * 3600
    assert [limits.hit(group="g", key="k", rate="2/h", now=hour + 600) for _ in range(4)] == [
        None,
        None,
        3000,
        3000,
    ]


@pytest.mark.parametrize(("rate", "seconds"), [("10/h", 3600), ("5/15m", 900), ("3/d", 86400)])
def test_rates_read_as_amount_per_period(rate, seconds):
    assert limits.Rate.parse(rate).seconds == seconds


@pytest.fixture
def unreachable_cache(monkeypatch):
    """The shared cache as it is while Redis is down: nothing listens on its port."""
    cache = OutageTolerantRedisCache(
        f"redis://127.0.0.1:{free_port()}/0",
        {"OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2, "RETRY_SECONDS": 30}},
    )
    monkeypatch.setattr(limits, "cache", cache)
    caches["local"].clear()
    return cache


def test_with_the_cache_unreachable_limits_count_in_the_process_and_refuse_no_one_else(
    unreachable_cache,
):
    waits = [limits.hit(group="signup", key="lab", rate="3/h") for _ in range(5)]
    assert waits[:3] == [None] * 3 and all(waits[3:])
    assert limits.hit(group="signup", key="elsewhere", rate="3/h") is None


def test_with_the_cache_unreachable_concurrent_requests_still_pass_exactly_the_limit(
    unreachable_cache,
):
    waits = _concurrently(40, lambda n: limits.hit(group="signup", key="lab", rate="10/h"))
    assert waits.count(None) == 10


def test_with_the_cache_unreachable_sign_up_is_limited_not_refused(unreachable_cache, settings):
    settings.SIGNUP_LIMIT_PER_HOUR = 2
    answers = []
    for n in range(3):
        client = Client(REMOTE_ADDR="203.0.113.9")
        response = client.post(
            "/en/accounts/signup/",
            {"username": f"lab{n}", "password1": PASSWORD, "password2": PASSWORD},
        )
        answers.append(response.status_code)
    assert answers == [302, 302, 429]


@pytest.mark.parametrize("language", ["en", "ar"])
def test_a_data_download_past_its_limit_is_a_bilingual_429_with_retry_after(
    learner_client, settings, language
):
    settings.DATA_EXPORT_RATE = "1/h"
    assert learner_client.get(f"/{language}/accounts/profile/data.json").status_code == 200
    response = learner_client.get(f"/{language}/accounts/profile/data.json")
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 3600
    page = response.content.decode()
    assert {"en": "Too many requests", "ar": 'dir="rtl"'}[language] in page


@pytest.mark.django_db(transaction=True)
def test_on_the_database_cache_concurrent_requests_pass_exactly_the_limit(monkeypatch):
    from django.core.cache.backends.db import DatabaseCache

    monkeypatch.setattr(limits, "cache", DatabaseCache("daleel_cache", {}))
    waits = _concurrently(12, lambda n: limits.hit(group="signup", key="lab", rate="5/h"))
    assert waits.count(None) == 5
    assert limits.hit(group="signup", key="elsewhere", rate="5/h") is None
