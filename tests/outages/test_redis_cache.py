"""The Redis cache backend against a real Redis that stops, hangs and comes back."""

import logging
import time

import pytest
import redis as redis_py

from bench.services import free_port, redis_server
from config.cache import OutageTolerantRedisCache

pytestmark = [pytest.mark.outage, pytest.mark.usefixtures("real_servers")]

RETRY_SECONDS = 0.3


class Clock:
    """Monotonic seconds that move only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def cache_on(url: str, clock: Clock | None = None) -> OutageTolerantRedisCache:
    cache = OutageTolerantRedisCache(
        url,
        {
            "OPTIONS": {
                "SOCKET_CONNECT_TIMEOUT": 0.2,
                "SOCKET_TIMEOUT": 0.2,
                "RETRY_SECONDS": RETRY_SECONDS,
            }
        },
    )
    if clock is not None:
        cache.unreachable.clock = clock
    return cache


def warnings_of(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "daleel.cache"]


def test_with_nothing_listening_reads_miss_writes_are_skipped_and_one_warning_is_logged(caplog):
    cache = cache_on(f"redis://127.0.0.1:{free_port()}/0")

    added = []
    with caplog.at_level(logging.WARNING, logger="daleel.cache"):
        for _ in range(50):
            cache.set("key", "value")
            assert cache.get("key", "default") == "default"
            assert cache.get_many(["key"]) == {}
            # A once-only record is made in this process's memory (config/cache.py): once.
            added.append(cache.add("key", "value"))
            assert "key" not in cache
            cache.delete("key")

    assert added == [True] + [False] * 49
    warnings = warnings_of(caplog)
    assert len(warnings) == 1
    assert "Redis unreachable" in warnings[0]


def test_the_threads_of_a_process_share_one_warning_a_minute(caplog):
    url = f"redis://127.0.0.1:{free_port()}/0"
    threads = [cache_on(url), cache_on(url)]  # Django makes one backend per thread

    with caplog.at_level(logging.WARNING, logger="daleel.cache"):
        for cache in threads * 10:
            assert cache.get("key") is None

    assert len(warnings_of(caplog)) == 1


def test_a_stopped_redis_is_used_again_when_it_returns_without_a_new_cache(caplog):
    clock = Clock()
    with redis_server() as server:
        cache = cache_on(server.url, clock)
        cache.set("before", 1)
        server.stop()
        assert cache.get("before") is None
        cache.set("during", 2)  # skipped

        server.start()
        assert cache.get("before") is None  # still paused: not asked
        clock.now += RETRY_SECONDS
        cache.set("after", 3)

        assert cache.get("after") == 3
        assert redis_py.Redis.from_url(server.url).exists(cache.make_key("after"))
        assert cache.get("during") is None


def test_a_hung_redis_is_waited_for_once_then_left_alone_until_the_next_try():
    with redis_server() as server:
        cache = cache_on(server.url)
        cache.set("key", "value")
        watcher = redis_py.Redis.from_url(server.url)
        connections_before = watcher.info("stats")["total_connections_received"]
        # Redis answers no command for a second: every client waits, as on a hung server.
        watcher.client_pause(1000, all=True)

        for _ in range(20):
            assert cache.get("key") is None

        # Each try after a timeout opens a new connection: one wait, no new connection.
        connections_after = watcher.info("stats")["total_connections_received"]
        assert connections_after == connections_before


def test_what_was_deleted_while_redis_was_unreachable_does_not_come_back_with_it():
    """A session ended (signed out) while Redis hung must stay ended when Redis answers again
    with the data it kept."""
    clock = Clock()
    with redis_server() as server:
        cache = cache_on(server.url, clock)
        cache.set("session", {"user": 1})
        redis_py.Redis.from_url(server.url).client_pause(600, all=True)

        cache.delete("session")  # times out: skipped

        time.sleep(0.6)  # Redis's own pause: answering again
        clock.now += RETRY_SECONDS
        assert cache.get("session") is None
        assert not redis_py.Redis.from_url(server.url).exists(cache.make_key("session"))


def test_a_cache_backend_keeps_one_connection_for_every_operation():
    with redis_server() as server:
        watcher = redis_py.Redis.from_url(server.url)
        before = watcher.info("stats")["total_connections_received"]
        cache = cache_on(server.url)
        for n in range(50):
            cache.set("key", n)
            assert cache.get("key") == n
            assert cache.add("other", n) is (n == 0)
            cache.incr("key")

        assert watcher.info("stats")["total_connections_received"] == before + 1
