"""Rate limits: how often one client address, email address or learner may do a thing.

Each limit counts in fixed windows (an hour for "10/h") under a key that names the window, with
atomic cache operations only: `add` makes the counter if it is new, `incr` counts, and Redis
(or the local memory cache) does both atomically, so eighty concurrent requests against a
limit of twenty let exactly twenty through. Nothing is read and then written back. Django's
database cache (production without Redis) has no atomic `incr`: there each request `add`s the
first free numbered place under the key, which its table's unique key settles.

While the shared cache is unreachable (config/cache.py answers as if every key were missing),
the counters live in this process's memory (the `local` cache alias): each process limits on
its own, a little more generous than one limit for all, but never refusing everyone.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass

from django.core.cache import cache, caches
from django.core.cache.backends.db import DatabaseCache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class Rate:
    amount: int
    seconds: int

    @classmethod
    def parse(cls, rate: str) -> Rate:
        """'10/h', '5/15m', '3/d': at most `amount` in each period."""
        amount, period = rate.strip().split("/")
        number = period[:-1] or "1"
        return cls(amount=int(amount), seconds=int(number) * UNITS[period[-1]])


def _count(key: str, window_seconds: int, amount: int) -> int:
    """Add one to `key` and return its new count (at most amount + 1): in the shared cache, or
    in this process's memory when the shared cache cannot be reached."""
    timeout = window_seconds + 60
    for store in (cache, caches["local"]):
        if isinstance(store, DatabaseCache):
            # Its incr reads, then writes; its add is one INSERT that the table's key settles
            # between concurrent requests. So each request takes the first free numbered place.
            for place in range(amount + 1):
                if store.add(f"{key}:{place}", 1, timeout=timeout):
                    return place + 1
            return amount + 1
        store.add(key, 0, timeout=timeout)
        try:
            return store.incr(key)
        except ValueError:
            # Missing right after add: the shared cache is unreachable (or the key expired in
            # between, which only makes this count one too generous).
            continue
    return 1


def hit(*, group: str, key: str, rate: str, now: float | None = None) -> int | None:
    """Count one request of `group` from `key`; the seconds to wait if it is past `rate`,
    None if it may go on. Every call counts, allowed or not."""
    parsed, now, window, counter = _window_key(group, key, rate, now)
    if parsed.amount <= 0:
        return None
    count = _count(counter, parsed.seconds, parsed.amount)
    if count <= parsed.amount:
        return None
    return max(1, math.ceil((window + 1) * parsed.seconds - now))


def _counted(key: str, amount: int) -> int:
    """How many `_count` counted under `key` so far (the larger of the shared cache's count and
    this process's, which holds the counts made while the shared cache was unreachable)."""
    counts = []
    for store in (cache, caches["local"]):
        if isinstance(store, DatabaseCache):
            places = store.get_many([f"{key}:{place}" for place in range(amount + 1)])
            counts.append(len(places))
        else:
            counts.append(int(store.get(key) or 0))
    return max(counts)


def _window_key(group: str, key: str, rate: str, now: float | None) -> tuple[Rate, float, int, str]:
    parsed = Rate.parse(rate)
    now = time.time() if now is None else now
    window = int(now // parsed.seconds)
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    return parsed, now, window, f"limit:{group}:{window}:{digest}"


def reached(*, group: str, key: str, rate: str, now: float | None = None) -> int | None:
    """Without counting: the seconds to wait if `rate` of `group` from `key` is used up in this
    window (failures counted by `hit`, say), None if another may go on."""
    parsed, now, window, counter = _window_key(group, key, rate, now)
    if parsed.amount <= 0 or _counted(counter, parsed.amount) < parsed.amount:
        return None
    return max(1, math.ceil((window + 1) * parsed.seconds - now))


def limited(
    request: HttpRequest,
    *,
    wait: int,
    reason: str,
    back_url: str,
    back_label: str | None = None,
) -> HttpResponse:
    """The page of a limit reached: 429 with Retry-After, in the page's language."""
    minutes = max(1, math.ceil(wait / 60))
    context = {
        "reason": reason,
        "wait_minutes": minutes,
        "back_url": back_url,
        "back_label": back_label or _("Back"),
    }
    response = render(request, "accounts/limited.html", context, status=429)
    response["Retry-After"] = str(wait)
    return response
