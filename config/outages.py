"""What the site does while PostgreSQL cannot be reached: a 503, and a quiet log.

Every view needs the database (the learner, the attempt), so while it is down each request
fails where it first touches it, in a view or in a middleware. Django then calls the 500
handler; `quizzes.views.errors.server_error` asks `is_database_outage` and answers 503 with
Retry-After instead, from a template that needs neither the database nor the session.
"""

from __future__ import annotations

import logging
import threading
import time

from django.db import InterfaceError, OperationalError

# psycopg's and the pool's errors for a database that cannot be reached or has dropped the
# connection, as Django raises them.
DATABASE_UNREACHABLE = (OperationalError, InterfaceError)
RETRY_AFTER_SECONDS = 30
LOG_SECONDS = 60


def is_database_outage(error: BaseException | None) -> bool:
    return isinstance(error, DATABASE_UNREACHABLE)


class DatabaseOutageLogFilter(logging.Filter):
    """Lets through one record of a database outage a minute, per process, saying how many it
    held back; every other record passes."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._logged_at = float("-inf")
        self._held = 0

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if not is_database_outage(error):
            return True
        now = time.monotonic()
        with self._lock:
            if now - self._logged_at < LOG_SECONDS:
                self._held += 1
                return False
            held, self._held, self._logged_at = self._held, 0, now
        record.msg = (
            f"Database unreachable, answered 503 ({held} more not logged since the last such "
            f"line): {record.msg}"
        )
        return True
