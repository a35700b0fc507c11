"""LOG_FORMAT=json: every log record one JSON object on one line, for a log collector to read
(journald, Loki, Elasticsearch…) without parsing prose; each record made while a request or a
task runs carries its id.

A formatter of our own, 30 lines on the standard library's `json` and `logging`: a library
(python-json-logger) would add a dependency for the same few lines.
"""

from __future__ import annotations

import json
import logging
from contextvars import ContextVar
from datetime import UTC, datetime

# The request (or task) being handled on this thread, for the records made meanwhile.
REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)

# A LogRecord's own attributes: anything else on a record came from `extra=` and is a field.
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "taskName"}


class RequestIdFilter(logging.Filter):
    """Adds the current request's (or task's) id to every record made while it runs."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            request_id = REQUEST_ID.get()
            if request_id is not None:
                record.request_id = request_id
        return True


class OneLinePerTask(logging.Filter):
    """Leaves out Django's own lines about tasks (started, finished: "Task id=… state=…"):
    config/observe.py writes one line per task that says all of it, its traceback included."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.name != "django.tasks"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry |= {key: value for key, value in record.__dict__.items() if key not in _STANDARD}
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def logging_settings(*, json_logs: bool, level: str) -> dict:
    """The LOGGING setting (config/settings.py): everything to standard error, one JSON object a
    line with `json_logs` (LOG_FORMAT=json), the root logger at `level` (LOG_LEVEL)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "database_outage": {"()": "config.outages.DatabaseOutageLogFilter"},
            "request_id": {"()": "config.logs.RequestIdFilter"},
            "one_line_per_task": {"()": "config.logs.OneLinePerTask"},
        },
        "formatters": {"json": {"()": "config.logs.JsonFormatter"}},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                **(
                    {"formatter": "json", "filters": ["request_id", "one_line_per_task"]}
                    if json_logs
                    else {}
                ),
            }
        },
        "loggers": {
            # While PostgreSQL is down every request fails alike: one traceback a minute, not one
            # per request (config/outages.py).
            "django.request": {"filters": ["database_outage"]},
            # The line per request and per task: written with LOG_FORMAT=json only.
            "daleel.requests": {"level": "INFO" if json_logs else "WARNING"},
            "daleel.tasks": {"level": "INFO" if json_logs else "WARNING"},
            # The worker's "Task id=… state=…" lines, once: with DEBUG on, Django's own logging
            # gives the "django" logger a console of its own, which would print them again.
            "django.tasks": {"handlers": ["console"], "propagate": False},
        },
        "root": {"handlers": ["console"], "level": level},
    }
