"""accounts.limits: a sliding count (no span of a period holds more than the limit, fixed
windows' boundaries included), taken atomically before deciding (concurrent requests never
pass a limit), given back when what it counted did not happen, every limit a 429 with
Retry-After, and one count for every process while Redis is unreachable. Every test here
freezes the clock."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st

from accounts import limits
from bench.services import free_port
from tests.factories import PASSWORD
from tests.fuzzing import examples
from tests.security.limit_cases import at_once

pytestmark = pytest.mark.django_db

# 10:00:00 UTC, a whole hour: the parts of "5/15m" are 10:00, 10:05, 10:10…
TEN = datetime(2026, 12, 1, 10, 0, tzinfo=UTC).timestamp()


@pytest.fixture(autouse=True)
def _frozen(time_machine):
    time_machine.move_to(datetime.fromtimestamp(TEN, tz=UTC), tick=False)
    return time_machine


def test_eighty_concurrent_requests_against_a_limit_of_twenty_let_exactly_twenty_through():
    waits = at_once(80, lambda n: limits.hit(group="signup", key="lab", rate="20/h"))
    assert waits.count(None) == 20


def test_a_refused_request_is_not_counted_and_waits_until_its_oldest_part_leaves():
    minute = TEN + 60
    waits = [limits.hit(group="g", key="k", rate="2/h", now=minute) for _ in range(4)]
    # "2/h" in parts of 20 minutes: the hour before a request overlaps the part of 10:00 until
    # 11:20, when that part leaves the window.
    assert waits == [None, None, 4740, 4740]
    assert limits.hit(group="g", key="k", rate="2/h", now=TEN + 4799)
    # Asking again and again while refused did not lengthen the wait.
    assert limits.hit(group="g", key="k", rate="2/h", now=TEN + 4800) is None


def test_five_at_a_quarter_to_and_five_more_a_second_later_is_not_ten():
    before = TEN + 14 * 60 + 59  # 10:14:59
    assert [limits.hit(group="codes", key="k", rate="5/15m", now=before) for _ in range(5)] == [
        None
    ] * 5

    # Fixed windows of 15 minutes would start afresh at 10:15:00.
    assert limits.hit(group="codes", key="k", rate="5/15m", now=TEN + 15 * 60) == 15 * 60
    assert limits.hit(group="codes", key="k", rate="5/15m", now=TEN + 29 * 60 + 59) == 1
    assert limits.hit(group="codes", key="k", rate="5/15m", now=TEN + 30 * 60) is None


@given(st.lists(st.integers(min_value=0, max_value=4 * 3600), min_size=1, max_size=60))
@settings(max_examples=examples(200))
def test_no_span_of_a_period_holds_more_than_the_limit_and_none_is_refused_for_long(offsets):
    caches["default"].clear()
    period, part, amount = 900, 300, 3
    allowed: list[float] = []
    for offset in sorted(offsets):
        now = TEN + offset
        wait = limits.hit(group="g", key="k", rate="3/15m", now=now)
        recent = [t for t in allowed if t > now - period]
        if wait is None:
            assert len(recent) < amount  # the limit holds over any span of a period
            allowed.append(now)
        else:
            # Refused only while a period and a part hold the limit; it says until when.
            assert len([t for t in allowed if t > now - period - part]) >= amount
            assert 0 < wait <= period + part


def test_a_place_given_back_is_taken_by_the_next_request():
    first, place = limits.take(group="g", key="k", rate="1/h")
    assert first is None and place is not None
    assert limits.hit(group="g", key="k", rate="1/h") is not None

    limits.give_back(place)

    assert limits.hit(group="g", key="k", rate="1/h") is None


@pytest.mark.parametrize(("rate", "seconds"), [("10/h", 3600), ("5/15m", 900), ("3/d", 86400)])
def test_rates_read_as_amount_per_period(rate, seconds):
    assert limits.Rate.parse(rate).seconds == seconds


DATABASE_CACHE = {
    "BACKEND": "django.core.cache.backends.db.DatabaseCache",
    "LOCATION": "daleel_cache",
}


@pytest.fixture
def unreachable_cache(settings):
    """The shared cache as it is while Redis is down: nothing listens on its port."""
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "config.cache.OutageTolerantRedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2, "RETRY_SECONDS": 30},
        },
    }
    caches["local"].clear()
    return caches["default"]


def test_with_the_cache_unreachable_limits_count_in_the_database_for_every_process(
    unreachable_cache,
):
    waits = [limits.hit(group="signup", key="lab", rate="3/h") for _ in range(4)]
    assert waits[:3] == [None] * 3 and waits[3]
    # Another process: its own memory, the same database.
    caches["local"].clear()
    assert limits.hit(group="signup", key="lab", rate="3/h")
    assert limits.hit(group="signup", key="elsewhere", rate="3/h") is None


@pytest.mark.django_db(transaction=True)
def test_with_the_cache_unreachable_concurrent_requests_still_pass_exactly_the_limit(
    unreachable_cache,
):
    waits = at_once(30, lambda n: limits.hit(group="signup", key="lab", rate="10/h"))
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


def test_a_durable_limit_counts_in_the_database_whatever_the_cache():
    assert [limits.hit(group="codes", key="k", rate="2/h", durable=True) for _ in range(2)] == [
        None,
        None,
    ]
    caches["default"].clear()  # Redis emptied, or another process's memory

    assert limits.hit(group="codes", key="k", rate="2/h", durable=True)
    assert isinstance(caches["database"], DatabaseCache)


@pytest.mark.parametrize("language", ["en", "ar"])
def test_a_data_download_past_its_limit_is_a_bilingual_429_with_retry_after(
    learner_client, settings, language
):
    settings.DATA_EXPORT_RATE = "1/h"
    assert learner_client.get(f"/{language}/accounts/profile/data.json").status_code == 200
    response = learner_client.get(f"/{language}/accounts/profile/data.json")
    assert response.status_code == 429
    # The hour after it, and the rest of its part of 20 minutes (accounts.limits).
    assert int(response["Retry-After"]) == 4800
    page = response.content.decode()
    assert {"en": "Too many requests", "ar": 'dir="rtl"'}[language] in page


@pytest.mark.django_db(transaction=True)
def test_on_the_database_cache_concurrent_requests_pass_exactly_the_limit(settings):
    settings.CACHES = {**settings.CACHES, "default": DATABASE_CACHE}
    waits = at_once(12, lambda n: limits.hit(group="signup", key="lab", rate="5/h"))
    assert waits.count(None) == 5
    assert limits.hit(group="signup", key="elsewhere", rate="5/h") is None


@pytest.mark.django_db(transaction=True)
def test_on_the_database_cache_a_place_given_back_is_taken_again(settings):
    settings.CACHES = {**settings.CACHES, "default": DATABASE_CACHE}
    waits_and_places = at_once(6, lambda n: limits.take(group="g", key="k", rate="3/h"))
    places = [place for wait, place in waits_and_places if wait is None]
    assert len(places) == 3
    limits.give_back(places[0])

    assert limits.hit(group="g", key="k", rate="3/h") is None
    assert limits.hit(group="g", key="k", rate="3/h") is not None
