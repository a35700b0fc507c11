"""The Redis cache rides out a bare OSError as it does a refused connection (issue 32's test
audit). redis-py turns most socket errors into its own ConnectionError, but not every one
(running out of file descriptors, a socket option refused): those reach the cache as a plain
OSError, and the site must go on from the database all the same.

Written against Django's cache API, the project's Redis backend configured as in production;
no Redis server is needed: the connection itself raises.
"""

from __future__ import annotations

import errno
import logging

import pytest
import redis.connection
from django.core.cache import CacheHandler

# The backend production uses with REDIS_URL (config/settings.py).
REDIS_BACKEND = "config.cache.OutageTolerantRedisCache"


@pytest.fixture
def failing_redis(monkeypatch) -> list[int]:
    attempts: list[int] = []

    def connect(self, *args, **kwargs):
        attempts.append(1)
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(redis.connection.AbstractConnection, "connect", connect)
    return attempts


@pytest.fixture
def redis_cache():
    handler = CacheHandler(
        {
            "default": {
                "BACKEND": REDIS_BACKEND,
                "LOCATION": "redis://127.0.0.1:9/0",  # never reached: connect raises first
                "OPTIONS": {
                    "SOCKET_CONNECT_TIMEOUT": 0.2,
                    "SOCKET_TIMEOUT": 0.2,
                    "RETRY_SECONDS": 60,
                },
            }
        }
    )
    return handler["default"]


def test_a_bare_oserror_from_redis_is_an_outage_reads_miss_and_writes_are_skipped(
    failing_redis, redis_cache, caplog
):
    with caplog.at_level(logging.WARNING, logger="daleel.cache"):
        assert redis_cache.get("key", "default") == "default"
        redis_cache.set("key", "value")
        # `add` answers from this process's memory meanwhile (a used second-factor code is
        # still refused a second time: config/cache.py), once per key.
        assert redis_cache.add("key", "value") is True
        assert redis_cache.add("key", "value") is False
        assert redis_cache.get_many(["key"]) == {}
        redis_cache.delete("key")

    assert failing_redis  # the connection was tried, and raised OSError
    assert [r.getMessage() for r in caplog.records if r.name == "daleel.cache"][0].startswith(
        "Redis unreachable"
    )


def test_after_a_bare_oserror_redis_is_left_alone_for_a_while(failing_redis, redis_cache):
    redis_cache.get("key")
    tries = len(failing_redis)

    for _ in range(20):
        redis_cache.get("key")

    assert len(failing_redis) == tries
