"""Rate limits: how often one client, email address, account or learner may do a thing.

- **Sliding.** "5/15m" holds over every span of 15 minutes, not only within fixed windows
  (which let 5 through at hh:14:59 and 5 more at hh:15:00). A period is counted in PARTS
  parts; a request may go on while the parts that overlap the period before it (this part and
  the PARTS before it) hold fewer than the limit. So no span of one period holds more than
  the limit, and whoever used it up waits at most a period and a part (Retry-After says how
  long exactly).
- **Increment, then decide.** A request first takes its place, atomically, then sees whether
  the place is within the limit, and gives it back if not: eighty concurrent requests against
  a limit of twenty let exactly twenty through, whatever the workers and threads.
- **Only what goes on counts.** A refused request gives its place back, so asking again while
  refused does not lengthen the wait.
- **Given back.** `take` returns the place it took; `give_back` returns it when what it counted
  did not happen (a right code is not a wrong one, a sign-in that signed in not a failure).
- **Where.** In the shared cache (Redis): a counter per part, `add` then `incr`, both atomic.
  In the database (Django's database cache, the `database` alias: production without Redis,
  a durable limit, or Redis unreachable): its `incr` reads then writes, so each request adds
  the first free numbered place of the part, an INSERT that the table's key settles.
  A `durable` limit (wrong second-factor codes) always counts in the database, so that a Redis
  outage neither forgets it nor splits it per process. The others count in the database while
  Redis is unreachable (config/cache.py): one count for every process, from the outage on.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import time
from dataclasses import dataclass

from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.db import DatabaseCache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
# Parts of a period: a part's counter is one key. More parts wait less past the period (a
# part at most) but read more keys per request.
PARTS = 3


@dataclass(frozen=True)
class Rate:
    amount: int
    seconds: int

    @classmethod
    def parse(cls, rate: str) -> Rate:
        """'10/h', '5/15m', '3/d': at most `amount` in any span of the period."""
        amount, period = rate.strip().split("/")
        number = period[:-1] or "1"
        return cls(amount=int(amount), seconds=int(number) * UNITS[period[-1]])


@dataclass(frozen=True)
class Place:
    """A place taken under a limit: a counter to lower, or a database row to delete. `count`:
    the places taken in the window when it was, its own included."""

    store: BaseCache
    key: str
    row: bool
    count: int


@dataclass(frozen=True)
class _Window:
    amount: int
    part_seconds: float
    part: int  # the number of the part `now` is in
    now: float
    keys: tuple[str, ...]  # the PARTS parts before it, then its own

    @property
    def timeout(self) -> int:
        """How long a part's count is kept: while it can still count, and a minute more."""
        return math.ceil(self.part_seconds * (PARTS + 1)) + 60

    def wait(self, counts: list[int]) -> int:
        """Seconds until one more may go on, from each part's count (oldest first): until
        enough of the oldest parts have left the window."""
        for step in range(PARTS + 2):
            if sum(counts[step:]) + 1 <= self.amount:
                return max(1, math.ceil((self.part + step) * self.part_seconds - self.now))
        raise AssertionError("the window always empties")  # pragma: no cover


def _window(group: str, key: str, rate: str, now: float | None) -> _Window:
    parsed = Rate.parse(rate)
    now = time.time() if now is None else now
    part_seconds = parsed.seconds / PARTS
    part = int(now // part_seconds)
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    keys = tuple(f"limit:{group}:{digest}:{number}" for number in range(part - PARTS, part + 1))
    return _Window(parsed.amount, part_seconds, part, now, keys)


def _store(durable: bool) -> BaseCache:
    # The default alias's backend itself: `django.core.cache.cache` is a proxy, which is no
    # instance of DatabaseCache even when its backend is.
    return caches["database"] if durable else caches[DEFAULT_CACHE_ALIAS]


def _take_counter(store: BaseCache, window: _Window) -> tuple[list[int], Place | None] | None:
    """A place from the part's counter, or None when the store cannot be reached."""
    current = window.keys[-1]
    store.add(current, 0, timeout=window.timeout)
    try:
        count = store.incr(current)
    except ValueError:
        # Missing right after add: Redis is unreachable (config/cache.py says so). Or the key
        # expired in between, which its timeout makes impossible in practice.
        return None
    earlier = store.get_many(list(window.keys[:-1]))
    counts = [int(earlier.get(key) or 0) for key in window.keys[:-1]] + [count]
    if sum(counts) <= window.amount:
        return counts, Place(store, current, row=False, count=sum(counts))
    _lower(store, current)
    counts[-1] -= 1
    return counts, None


def _rows(window: _Window) -> list[list[str]]:
    return [[f"{key}:{place}" for place in range(window.amount)] for key in window.keys]


def _take_row(store: BaseCache, window: _Window) -> tuple[list[int], Place | None]:
    """The first free numbered place of the part, added (one INSERT); another request that
    added it first leaves one place less."""
    rows = _rows(window)
    present = store.get_many([name for part in rows for name in part])
    counts = [sum(name in present for name in part) for part in rows]
    room = window.amount - sum(counts)
    for name in rows[-1]:
        if room <= 0:
            break
        if name in present:
            continue
        counts[-1] += 1
        if store.add(name, 1, timeout=window.timeout):
            return counts, Place(store, name, row=True, count=sum(counts))
        room -= 1
    return counts, None


def _lower(store: BaseCache, key: str) -> None:
    with contextlib.suppress(ValueError):  # unreachable since: its count expires with its part
        store.decr(key)


def take(
    *, group: str, key: str, rate: str, durable: bool = False, now: float | None = None
) -> tuple[int | None, Place | None]:
    """Take a place of `group` for `key` under `rate`: (None, the place) if the request may go
    on, (seconds to wait, None) if not. `durable`: counted in the database whatever the
    cache."""
    window = _window(group, key, rate, now)
    if window.amount <= 0:
        return None, None
    store = _store(durable)
    taken = None if isinstance(store, DatabaseCache) else _take_counter(store, window)
    if taken is None:
        taken = _take_row(store if isinstance(store, DatabaseCache) else caches["database"], window)
    counts, place = taken
    return (None, place) if place is not None else (window.wait(counts), None)


def hit(
    *, group: str, key: str, rate: str, durable: bool = False, now: float | None = None
) -> int | None:
    """Count one request of `group` from `key`: the seconds to wait if it is past `rate`, None
    if it may go on (and is counted)."""
    wait, _place = take(group=group, key=key, rate=rate, durable=durable, now=now)
    return wait


def give_back(place: Place | None) -> None:
    """Return a place `take` took: what it counted did not happen."""
    if place is None:
        return
    if place.row:
        place.store.delete(place.key)
    else:
        _lower(place.store, place.key)


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
