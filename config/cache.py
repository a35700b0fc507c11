"""django-redis's cache, made to ride out a Redis that is down, hung or unreachable.

Redis is only a cache here: sessions are read back from PostgreSQL (`cached_db`) and quiz
content from its tables whenever the cache answers nothing. So when Redis fails, reads answer
"not cached", writes are skipped, and the site goes on from the database.

django-redis keeps one Redis client (and its connection pool) per server for the life of the
backend, and raises `ConnectionInterrupted` when Redis cannot be reached. Its own
IGNORE_EXCEPTIONS swallows those but tries Redis again on every operation, so an unreachable
Redis would cost its timeout several times per request. This backend wraps the cache API's
public methods instead:

- it leaves Redis alone for OPTIONS["RETRY_SECONDS"] (REDIS_RETRY_SECONDS) after a failure, so
  a hung Redis costs each process one timeout per pause, not one per operation;
- it logs a warning when Redis fails, at most one a minute per process while it stays away;
- it empties the cache when it reaches Redis again after an outage: a session ended or
  changed while Redis was unreachable (the write was skipped) must not come back from a Redis
  that kept its data;
- `add` is answered from this process's memory (the `local` cache alias) while Redis is away:
  `add` is how a once-only record is made (allauth's used authenticator-app codes, which would
  otherwise refuse every code during an outage; the LTI key refetch's pause). The records that
  must hold for every process through an outage are kept in the database as well or instead
  (accounts.second_factor: used codes and wrong-code counts; accounts.limits: every limit's
  count while Redis is away).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django_redis.cache import RedisCache
from django_redis.exceptions import ConnectionInterrupted
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger("daleel.cache")

# Errors that say Redis cannot be reached; any other error (a bad value, a full Redis with
# noeviction) is a bug or a misconfiguration and is raised as usual.
UNREACHABLE = (ConnectionInterrupted, RedisConnectionError, RedisTimeoutError, OSError)
WARNING_SECONDS = 60


class Unreachable:
    """This process's view of one Redis: reachable, or paused until some time. `clock` is
    monotonic seconds (tests pass their own)."""

    def __init__(self, retry_seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.retry_seconds = retry_seconds
        self.clock = clock
        self.paused_until = 0.0
        self.skipped = 0  # operations skipped since the last warning
        # Writes were skipped: Redis may hold what the database no longer does.
        self.stale = False
        self.warned_at = float("-inf")
        self.lock = threading.Lock()

    def paused(self) -> bool:
        if self.paused_until == 0.0:
            return False
        if self.clock() < self.paused_until:
            with self.lock:
                self.skipped += 1
            return True
        return False  # time to try again

    def failed(self, error: Exception) -> None:
        now = self.clock()
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
_unreachable_by_server: dict[str, Unreachable] = {}
_unreachable_lock = threading.Lock()


def unreachable_for(server: str, retry_seconds: float) -> Unreachable:
    """The one `Unreachable` of this process for `server`."""
    with _unreachable_lock:
        return _unreachable_by_server.setdefault(server, Unreachable(retry_seconds))


class OutageTolerantRedisCache(RedisCache):
    """django-redis's `RedisCache` with OPTIONS["RETRY_SECONDS"]: see the module's docstring."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        options = dict(params.get("OPTIONS", {}))
        retry_seconds = float(options.pop("RETRY_SECONDS", 5))
        super().__init__(server, {**params, "OPTIONS": options})
        self.unreachable = unreachable_for(server, retry_seconds)
        # Every operation's time (METRICS_ENABLED): each goes through `_call`.
        self.measured = settings.METRICS_ENABLED

    def _call(self, operation: Callable[..., Any], fallback: Any, *args, **kwargs) -> Any:
        """`operation` (a method of RedisCache), or `fallback` when Redis cannot be reached."""
        if not self.measured:
            return self._try(operation, fallback, *args, **kwargs)
        from config.metrics import cache_seconds

        started = time.perf_counter()
        try:
            return self._try(operation, fallback, *args, **kwargs)
        finally:
            cache_seconds.labels(operation.__name__).observe(time.perf_counter() - started)

    def _try(self, operation: Callable[..., Any], fallback: Any, *args, **kwargs) -> Any:
        unreachable = self.unreachable
        if unreachable.paused():
            return fallback
        try:
            if unreachable.stale:
                # Reached again after writes were skipped: what Redis kept may be stale.
                super().clear()
                unreachable.stale = False
                logger.warning("Redis reachable again: cache emptied and in use again")
            result = operation(*args, **kwargs)
        except UNREACHABLE as error:
            unreachable.failed(error)
            return fallback
        unreachable.reached()
        return result

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None, client=None):
        unreached = object()
        result = self._call(super().add, unreached, key, value, timeout, version, client)
        if result is unreached:
            return caches["local"].add(key, value, timeout=timeout, version=version)
        return result

    def get(self, key, default=None, version=None, client=None):
        return self._call(super().get, default, key, default, version, client)

    def set(self, *args, **kwargs):
        return self._call(super().set, False, *args, **kwargs)

    def touch(self, *args, **kwargs):
        return self._call(super().touch, False, *args, **kwargs)

    def delete(self, *args, **kwargs):
        return self._call(super().delete, False, *args, **kwargs)

    def get_many(self, *args, **kwargs):
        return self._call(super().get_many, {}, *args, **kwargs)

    def has_key(self, *args, **kwargs):
        return self._call(super().has_key, False, *args, **kwargs)

    def incr(self, key, delta=1, version=None, client=None):
        # With Redis away the key is as good as missing, which the cache API reports so.
        result = self._call(super().incr, None, key, delta, version, client)
        if result is None:
            raise ValueError(f"Key '{key}' not found.")
        return result

    def decr(self, key, delta=1, version=None, client=None):
        return self.incr(key, -delta, version, client)

    def set_many(self, *args, **kwargs):
        return self._call(super().set_many, [], *args, **kwargs)

    def delete_many(self, *args, **kwargs):
        return self._call(super().delete_many, 0, *args, **kwargs)

    def clear(self):
        return self._call(super().clear, False)
