"""How many accounts one client address may create in an hour (SIGNUP_LIMIT_PER_HOUR).

A class in one lab signs up together from one address, so the limit is generous; a script
creating accounts by the hundred is not. Kept in the shared cache (Redis, or the database
cache), as the times of the address's recent sign-ups: a sliding hour, the same on every
app server, which needs nothing beyond Django's cache API.
"""

from __future__ import annotations

import time
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache

WINDOW = timedelta(hours=1)


def _key(address: str | None) -> str:
    return f"signups:{address or 'unknown'}"


def _recent(address: str | None, now: float) -> list[float]:
    since = now - WINDOW.total_seconds()
    return [moment for moment in cache.get(_key(address), []) if moment > since]


def signup_wait(*, address: str | None, now: float | None = None) -> timedelta | None:
    """How long `address` must wait before it may create another account; None: it may now."""
    limit = settings.SIGNUP_LIMIT_PER_HOUR
    now = time.time() if now is None else now
    recent = _recent(address, now)
    if not limit or len(recent) < limit:
        return None
    # The oldest sign-up that still counts leaves the hour, and frees a place, first.
    return timedelta(seconds=recent[-limit] + WINDOW.total_seconds() - now)


def signup_record(*, address: str | None, now: float | None = None) -> None:
    """Count an account created from `address`."""
    now = time.time() if now is None else now
    recent = _recent(address, now)[-max(settings.SIGNUP_LIMIT_PER_HOUR, 1) :]
    cache.set(_key(address), [*recent, now], timeout=int(WINDOW.total_seconds()) + 1)
