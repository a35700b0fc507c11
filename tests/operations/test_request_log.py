"""Every response names its request (X-Request-ID); with LOG_FORMAT=json each request and each
task is one JSON line with its id, user, view, status and duration (config/observe.py,
config/logs.py)."""

from __future__ import annotations

import json
import logging
import re

import pytest
from django.test import Client
from django.urls import reverse

from config.logs import REQUEST_ID, JsonFormatter, RequestIdFilter
from tests.test_settings import _run_manage

pytestmark = pytest.mark.django_db


@pytest.fixture
def json_lines(settings, caplog):
    settings.LOG_FORMAT = "json"
    caplog.set_level(logging.INFO, logger="daleel.requests")
    caplog.set_level(logging.INFO, logger="daleel.tasks")
    return caplog


def _lines(caplog, logger: str) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == logger]


def test_every_response_carries_a_request_id_of_its_own(client):
    first = client.get("/en/")
    second = client.get("/healthz")

    assert re.fullmatch(r"[0-9a-f]{32}", first["X-Request-ID"])
    assert re.fullmatch(r"[0-9a-f]{32}", second["X-Request-ID"])
    assert first["X-Request-ID"] != second["X-Request-ID"]


def test_the_proxys_request_id_is_kept_and_a_clients_is_not():
    nginx = "0af7651916cd43dd8448eb211c80319c"

    proxied = Client(REMOTE_ADDR="127.0.0.1").get("/healthz", headers={"X-Request-ID": nginx})
    direct = Client(REMOTE_ADDR="203.0.113.5").get("/healthz", headers={"X-Request-ID": nginx})
    junk = Client(REMOTE_ADDR="127.0.0.1").get(
        "/healthz", headers={"X-Request-ID": "<script>" + "a" * 80}
    )

    assert proxied["X-Request-ID"] == nginx
    assert direct["X-Request-ID"] != nginx
    assert re.fullmatch(r"[0-9a-f]{32}", junk["X-Request-ID"])


def test_with_json_logs_each_request_is_one_line_with_its_user_view_status_and_time(
    json_lines, learner_client, learner
):
    response = learner_client.get(reverse("quizzes:catalog"))

    (line,) = _lines(json_lines, "daleel.requests")
    assert line.request_id == response["X-Request-ID"]
    assert line.user_id == learner.pk
    assert line.view == "quizzes:catalog"
    assert line.method == "GET"
    assert line.status == 200
    assert line.duration_ms > 0


def test_a_request_that_reads_no_session_is_logged_without_reading_one(
    json_lines, learner_client, django_assert_num_queries
):
    with django_assert_num_queries(0):
        response = learner_client.get("/healthz")

    (line,) = _lines(json_lines, "daleel.requests")
    assert line.user_id is None
    assert line.view == "healthz"
    assert "Cookie" not in response.get("Vary", "")


def test_with_text_logs_no_line_is_written_per_request(settings, caplog, client):
    settings.LOG_FORMAT = "text"
    caplog.set_level(logging.INFO, logger="daleel.requests")

    client.get("/healthz")

    assert _lines(caplog, "daleel.requests") == []


def test_a_task_is_one_line_with_its_id_outcome_and_time(json_lines, mailoutbox):
    from accounts.mail import deliver

    result = deliver.enqueue(subject="Hello", body="Hi", to=["amina@example.org"])

    (line,) = _lines(json_lines, "daleel.tasks")
    assert line.task == "accounts.mail.deliver"
    assert line.task_id == str(result.id)
    assert line.status == "SUCCESSFUL"
    assert line.duration_ms >= 0
    assert line.levelname == "INFO"


def test_a_failed_task_is_an_error_line_with_its_traceback(json_lines, settings):
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": 9, "use_tls": False, "timeout": 1},
        }
    }
    from accounts.mail import deliver

    deliver.enqueue(subject="Hello", body="Hi", to=["amina@example.org"])

    (line,) = _lines(json_lines, "daleel.tasks")
    assert line.status == "FAILED"
    assert line.levelname == "ERROR"
    assert line.exc_info is not None


def test_a_json_record_is_one_line_with_its_fields_the_request_id_and_the_traceback():
    record = logging.makeLogRecord(
        {
            "name": "quizzes",
            "levelname": "ERROR",
            "levelno": 40,
            "msg": "broke: %s",
            "args": ("x",),
            "view": "quizzes:catalog",
        }
    )
    try:
        raise ValueError("the cause")
    except ValueError:
        import sys

        record.exc_info = sys.exc_info()
    bound = REQUEST_ID.set("abc123")
    try:
        RequestIdFilter().filter(record)
    finally:
        REQUEST_ID.reset(bound)

    text = JsonFormatter().format(record)

    assert "\n" not in text
    entry = json.loads(text)
    assert entry["message"] == "broke: x"
    assert entry["level"] == "ERROR"
    assert entry["view"] == "quizzes:catalog"
    assert entry["request_id"] == "abc123"
    assert "ValueError: the cause" in entry["exception"]


def test_log_format_json_writes_every_record_as_json_and_other_formats_are_refused():
    code = "import logging; logging.getLogger('quizzes').warning('careful: %s', 'this')"

    written = _run_manage("shell", "--no-imports", "-c", code, LOG_FORMAT="json")
    refused = _run_manage("check", LOG_FORMAT="xml")

    entry = json.loads(written.stderr.strip().splitlines()[-1])
    assert entry["message"] == "careful: this"
    assert entry["logger"] == "quizzes"
    assert refused.returncode != 0
    assert "LOG_FORMAT is 'text' (the default) or 'json'." in refused.stderr
