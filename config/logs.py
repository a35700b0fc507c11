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
