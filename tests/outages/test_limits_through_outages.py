"""Rate limits against a real Redis that hangs (SIGSTOP): they go on limiting, per process,
and never refuse everyone; and eighty concurrent sign-ups against twenty pass twenty."""

import os
import signal

import pytest
from django.core.cache import caches

from accounts import limits
from bench.services import redis_server
from config.cache import OutageTolerantRedisCache
from tests.accounts.test_limits import _concurrently

pytestmark = [pytest.mark.outage, pytest.mark.usefixtures("real_servers")]


def cache_on(url: str) -> OutageTolerantRedisCache:
    return OutageTolerantRedisCache(
        url,
        {"OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2, "RETRY_SECONDS": 30}},
    )


def test_eighty_concurrent_sign_ups_against_twenty_on_redis_pass_exactly_twenty(monkeypatch):
    with redis_server() as server:
        monkeypatch.setattr(limits, "cache", cache_on(server.url))
        waits = _concurrently(80, lambda n: limits.hit(group="signup", key="lab", rate="20/h"))
    assert waits.count(None) == 20


def test_with_redis_hung_the_limits_still_limit_per_process_and_refuse_no_one_else(monkeypatch):
    with redis_server() as server:
        cache = cache_on(server.url)
        monkeypatch.setattr(limits, "cache", cache)
        caches["local"].clear()
        assert limits.hit(group="password-reset-client", key="a", rate="3/h") is None
        os.kill(server.process.pid, signal.SIGSTOP)  # hung: connected, answering nothing
        try:
            waits = [limits.hit(group="signup", key="lab", rate="3/h") for _ in range(5)]
            other = limits.hit(group="signup", key="elsewhere", rate="3/h")
        finally:
            os.kill(server.process.pid, signal.SIGCONT)
    assert waits[:3] == [None] * 3 and all(waits[3:])
    assert other is None
