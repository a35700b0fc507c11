"""Django's Redis cache, made to ride out a Redis that is down, hung or unreachable.

Redis is only a cache here: sessions are read back from PostgreSQL (`cached_db`) and quiz
content from its tables whenever the cache answers nothing. So when Redis fails, reads answer
"not cached", writes are skipped, and the site goes on from the database.

Django's built-in backend raises on every connection error. django-redis's IGNORE_EXCEPTIONS
swallows them but tries Redis again on every operation (an unreachable Redis then costs its
timeout several times per request) and logs every failure or none. This backend:

- leaves Redis alone for OPTIONS["retry_seconds"] (REDIS_RETRY_SECONDS) after a failure, so
  a hung Redis costs each process one timeout per pause, not one per operation;
- logs a warning when Redis fails, at most one a minute per process while it stays away, and
  one line when it is back;
- empties the cache when it reaches Redis again after an outage: a session ended or changed
  while Redis was unreachable (the write was skipped) must not come back from a Redis that
  kept its data.
"""

from __future__ import annotations

import logging
import threading
import time

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger("daleel.cache")

# Errors that say Redis cannot be reached; any other error (a bad value, a full Redis with
# noeviction) is a bug or a misconfiguration and is raised as usual.
UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)
WARNING_SECONDS = 60


class _Unreachable:
    """This process's view of one Redis: reachable, or paused until some time."""

    def __init__(self, retry_seconds: float) -> None:
        self.retry_seconds = retry_seconds
        self.paused_until = 0.0
        self.skipped = 0  # operations skipped since the last warning
        # Writes were skipped: Redis may hold what the database no longer does.
        self.stale = False
        self.warned_at = float("-inf")
        self.lock = threading.Lock()

    def paused(self) -> bool:
        if self.paused_until == 0.0:
            return False
        if time.monotonic() < self.paused_until:
            with self.lock:
                self.skipped += 1
            return True
        return False  # time to try again

    def failed(self, error: Exception) -> None:
        now = time.monotonic()
        with self.lock:
            self.paused_until = now + self.retry_seconds
            self.stale = True
            self.skipped += 1
            if now - self.warned_at < WARNING_SECONDS:
                return
            skipped, self.skipped, self.warned_at = self.skipped, 0, now
        logger.warning(
            "Redis unreachable (%s): serving from the database without the cache "
            "(%d cache operations skipped since the last warning); trying again every %s s",
            error,
            skipped,
            self.retry_seconds,
        )

    def reached(self) -> None:
        if self.paused_until != 0.0:
            with self.lock:
                self.paused_until = 0.0
                self.skipped = 0


# Django makes a cache backend per thread; what a process knows of a Redis is shared by all.
_unreachable_by_servers: dict[tuple[str, ...], _Unreachable] = {}
_unreachable_lock = threading.Lock()


class OutageTolerantRedisCacheClient(RedisCacheClient):
    def __init__(self, servers, *, retry_seconds: float = 5, **options) -> None:
        super().__init__(servers, **options)
        with _unreachable_lock:
            self._unreachable = _unreachable_by_servers.setdefault(
                tuple(servers), _Unreachable(retry_seconds)
            )
        self._clients: dict[object, object] = {}

    def get_client(self, key=None, *, write=False):
        # Django builds a redis.Redis for every operation, and building one copies its table of
        # response callbacks: about a tenth of a signed-in request's CPU. One per connection
        # pool does (a client takes a connection from its pool for each command, and this
        # object, like Django's cache backends, belongs to one thread).
        pool = self._get_connection_pool(write)
        client = self._clients.get(pool)
        if client is None:
            client = self._clients[pool] = self._client(connection_pool=pool)
        return client

    def _call(self, operation: str, fallback, *args):
        """RedisCacheClient's `operation`, or `fallback` when Redis cannot be reached."""
        if self._unreachable.paused():
            return fallback
        try:
            if self._unreachable.stale:
                # Reached again after writes were skipped: what Redis kept may be stale.
                super().clear()
                self._unreachable.stale = False
                logger.warning("Redis reachable again: cache emptied and in use again")
            result = getattr(super(), operation)(*args)
        except UNREACHABLE as error:
            self._unreachable.failed(error)
            return fallback
        self._unreachable.reached()
        return result

    def add(self, key, value, timeout):
        return self._call("add", False, key, value, timeout)

    def get(self, key, default):
        return self._call("get", default, key, default)

    def set(self, key, value, timeout):
        self._call("set", None, key, value, timeout)

    def touch(self, key, timeout):
        return self._call("touch", False, key, timeout)

    def delete(self, key):
        return self._call("delete", False, key)

    def get_many(self, keys):
        return self._call("get_many", {}, keys)

    def has_key(self, key):
        return self._call("has_key", False, key)

    def incr(self, key, delta):
        # With Redis away the key is as good as missing, which BaseCache.incr reports so.
        result = self._call("incr", None, key, delta)
        if result is None:
            raise ValueError(f"Key '{key}' not found.")
        return result

    def set_many(self, data, timeout):
        self._call("set_many", None, data, timeout)

    def delete_many(self, keys):
        self._call("delete_many", None, keys)

    def clear(self):
        return self._call("clear", False)


class OutageTolerantRedisCache(RedisCache):
    """`RedisCache` with OPTIONS["retry_seconds"]: see the module's docstring."""

    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = OutageTolerantRedisCacheClient
