"""Limits against a real Redis: every limit's concurrent requests pass exactly the limit on it
(tests/security/limit_cases.py); while Redis hangs (SIGSTOP) the limits go on counting, in the
database, one count for every process; and on two app servers with production settings, a
Redis outage neither lets an authenticator-app code in twice nor lifts a wrong-code lock (N5:
both are kept in the database, accounts.second_factor)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from allauth.mfa.totp.internal.auth import format_hotp_value, hotp_value
from django.core.cache import caches

from accounts import limits
from bench import services
from bench.browser import Browser
from tests.security.limit_cases import AMOUNT, CASES, LTI_CASES, at_once, run_case

pytestmark = [pytest.mark.outage, pytest.mark.usefixtures("real_servers")]


def redis_cache(url: str) -> dict:
    return {
        "BACKEND": "config.cache.OutageTolerantRedisCache",
        "LOCATION": url,
        "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2, "RETRY_SECONDS": 30},
    }


@pytest.fixture(scope="module")
def redis_url():
    with services.redis() as url:
        yield url


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("frozen_clock")
@pytest.mark.parametrize("case", list(CASES))
def test_on_redis_concurrent_requests_against_a_limit_pass_exactly_the_limit(
    case, redis_url, settings, request
):
    settings.CACHES = {**settings.CACHES, "default": redis_cache(redis_url)}
    lms = request.getfixturevalue("registered") if case in LTI_CASES else None

    assert run_case(case, settings, lms) == AMOUNT


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("frozen_clock")
def test_with_redis_hung_the_limits_count_in_the_database_for_every_process(settings):
    with services.redis_server() as server:
        settings.CACHES = {**settings.CACHES, "default": redis_cache(server.url)}
        assert limits.hit(group="password-reset-client", key="a", rate="3/h") is None
        os.kill(server.process.pid, signal.SIGSTOP)  # hung: connected, answering nothing
        try:
            waits = [limits.hit(group="signup", key="lab", rate="3/h") for _ in range(4)]
            caches["local"].clear()  # another process has a memory of its own
            again = limits.hit(group="signup", key="lab", rate="3/h")
            concurrent = at_once(12, lambda n: limits.hit(group="reset", key="lab", rate="5/h"))
            other = limits.hit(group="signup", key="elsewhere", rate="3/h")
        finally:
            os.kill(server.process.pid, signal.SIGCONT)
    assert waits[:3] == [None] * 3 and waits[3]
    assert again
    assert concurrent.count(None) == 5
    assert other is None


PASSWORD = "two-workers-passphrase-5"  # noqa: S105 — a throwaway learner on a throwaway site


def _code(secret: str, step: int) -> str:
    return format_hotp_value(hotp_value(secret, step))


def _past_the_password(site: str, username: str) -> Browser:
    browser = Browser(site)
    assert browser.get("/en/accounts/login/").status == 200
    response = browser.post("/en/accounts/login/", {"login": username, "password": PASSWORD})
    assert response.status == 302, response.status
    assert response.header("Location") == "/en/accounts/2fa/authenticate/"
    return browser


def _enter(site: str, username: str, code: str) -> int:
    return (
        _past_the_password(site, username)
        .post("/en/accounts/2fa/authenticate/", {"code": code})
        .status
    )


def _at_the_start_of_a_period() -> int:
    """Wait for a new 30-second step of the authenticator app to begin; its number."""
    time.sleep(30 - time.time() % 30 + 0.2)
    return int(time.time()) // 30


def test_on_two_servers_a_redis_outage_neither_lets_a_code_in_twice_nor_lifts_a_lock(
    tmp_path: Path,
):
    with services.postgres_server() as database, services.redis_server() as redis:
        env = services.site_env(
            database.url,
            redis.url,
            tmp_path / "static",
            REDIS_CONNECT_TIMEOUT="0.2",
            REDIS_SOCKET_TIMEOUT="0.2",
            REDIS_RETRY_SECONDS="1",
        )
        services.prepare_site(env)
        used = services.site_task(env, "two-factor", "used", PASSWORD)["secret"]
        locked = services.site_task(env, "two-factor", "locked", PASSWORD)["secret"]
        with services.gunicorn(env, count=2, workers=1, threads=2, log_dir=tmp_path) as [a, b]:
            step = _at_the_start_of_a_period()
            # Redis up: a code used on A, and five wrong codes lock the other account.
            assert _enter(a, "used", _code(used, step)) == 302
            wrong = [_enter(a, "locked", f"{n:06d}") for n in range(5)]
            assert wrong == [400] * 5
            assert _enter(a, "locked", _code(locked, step)) == 429

            redis.stop()
            # The code used just before the outage, on the other server and on the same one.
            assert _enter(b, "used", _code(used, step)) == 400
            assert _enter(a, "used", _code(used, step)) == 400
            # The lock holds on either server.
            assert _enter(b, "locked", _code(locked, step)) == 429
            assert _enter(a, "locked", _code(locked, step)) == 429

            # A new code during the outage: once, whichever server it is sent to.
            step = _at_the_start_of_a_period()
            assert _enter(a, "used", _code(used, step)) == 302
            assert _enter(b, "used", _code(used, step)) == 400
            assert _enter(a, "used", _code(used, step)) == 400
