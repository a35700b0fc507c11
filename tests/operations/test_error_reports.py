"""Error reports (SENTRY_DSN, config/sentry.py) sent to a local endpoint that keeps them, as
Sentry would receive them: what a report holds, and what it never holds (a learner's answer,
a password, a code, a token, a cookie)."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from urllib.parse import urlencode
from wsgiref.util import setup_testing_defaults

import pytest
import sentry_sdk
from django.core import mail
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client
from django.urls import reverse

from bench.services import free_port
from config import sentry
from deploy.fakes import ErrorReports
from quizzes.models import Attempt
from tests.factories import PASSWORD, make_user

ANSWER_TEXT = "my-secret-answer-7f3a"
CSRF = "csrf" + "x" * 28  # a CSRF secret as the cookie carries it (32 characters)


@pytest.fixture
def reports():
    """sentry-sdk started as settings.py starts it, sending to a local endpoint."""
    endpoint = ErrorReports(free_port())
    endpoint.start()
    sentry.start(dsn=endpoint.dsn, release="1.2.3-test", environment="test", traces_sample_rate=0.0)
    yield endpoint
    sentry_sdk.get_client().close()
    sentry_sdk.init()  # no DSN: reports off again for the rest of this process
    endpoint.stop()


@pytest.fixture
def reporting(settings, reports):
    settings.SENTRY_DSN = reports.dsn
    return reports


@dataclass
class Answered:
    status: int
    headers: dict[str, str]


def through_wsgi(method: str, path: str, *, data: dict, cookies: dict[str, str]) -> Answered:
    """A request through Django's WSGI handler, as gunicorn makes it (Django's test client
    calls the handler beneath it, where sentry-sdk's WSGI part would not see the request)."""
    body = urlencode(data).encode()
    url_path, _sep, query = path.partition("?")
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": url_path,
        "QUERY_STRING": query,
        "CONTENT_TYPE": "application/x-www-form-urlencoded",
        "CONTENT_LENGTH": str(len(body)),
        "HTTP_COOKIE": "; ".join(f"{name}={value}" for name, value in cookies.items()),
        "HTTP_X_CSRFTOKEN": cookies.get("csrftoken", ""),
        "wsgi.input": io.BytesIO(body),
    }
    setup_testing_defaults(environ)
    answered: dict = {}

    def start_response(status, headers, exc_info=None):
        answered["status"] = int(status.split()[0])
        answered["headers"] = dict(headers)

    # As Django's test client does: the test's transaction must outlive the request.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        b"".join(WSGIHandler()(environ, start_response))
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    return Answered(answered["status"], answered["headers"])


def _flush() -> None:
    sentry_sdk.flush(timeout=5)


def _one(reports: ErrorReports, kind: str) -> tuple[dict, bytes]:
    _flush()
    return reports.wait_for(
        lambda event: any(
            value.get("type") == kind for value in event.get("exception", {}).get("values", [])
        ),
        seconds=5,
    )


def test_a_learners_failed_answer_is_reported_with_its_request_id_and_nothing_they_sent(
    reporting, learner_client, learner, quiz, monkeypatch
):
    started = learner_client.post(reverse("quizzes:start", args=[quiz.slug]))
    assert started.status_code == 302
    question = quiz.questions.order_by("position").first()
    choice = question.choices.first()

    def fails(**kwargs):
        raise RuntimeError("the engine broke")

    monkeypatch.setattr("quizzes.views.steps.attempt_answer", fails)
    session = learner_client.cookies["sessionid"].value
    url = reverse("quizzes:question", args=[Attempt.objects.get().pk, 1])
    answered = through_wsgi(
        "POST",
        f"{url}?token=query-secret-91b2",
        data={"choice": str(choice.pk), "question": str(question.pk), "text": ANSWER_TEXT},
        cookies={"sessionid": session, "csrftoken": CSRF},
    )

    assert answered.status == 500
    event, raw = _one(reporting, "RuntimeError")
    assert event["tags"]["request_id"] == answered.headers["X-Request-ID"]
    assert event["release"] == "1.2.3-test"
    assert event["environment"] == "test"
    assert event["user"] == {"id": str(learner.pk)}
    assert event["request"]["url"].endswith(url)
    assert event["request"]["method"] == "POST"
    assert event["request"]["query_string"] == "token=%5BFiltered%5D"
    assert "data" not in event["request"]
    assert "cookies" not in event["request"]
    assert event["request"]["headers"]["Cookie"] == "[Filtered]"
    for secret in [ANSWER_TEXT, "query-secret-91b2", session, CSRF, learner.username]:
        assert secret.encode() not in raw, secret
    # No frame's local variables: an answer can be in any of them.
    frames = [
        frame
        for value in event["exception"]["values"]
        for frame in value.get("stacktrace", {}).get("frames", [])
    ]
    assert frames and all("vars" not in frame for frame in frames)


def test_a_password_and_a_second_factor_code_never_leave_in_a_report(reporting, monkeypatch, db):
    make_user("ustadh")

    def fails(*args, **kwargs):
        raise RuntimeError("sign-in broke")

    monkeypatch.setattr("allauth.account.views.login", fails)
    answered = through_wsgi(
        "POST",
        reverse("accounts:login"),
        data={"login": "ustadh", "password": PASSWORD, "code": "493817"},
        cookies={"csrftoken": CSRF},
    )

    assert answered.status == 500
    _event, raw = _one(reporting, "RuntimeError")
    assert PASSWORD.encode() not in raw
    assert b"493817" not in raw


def test_a_token_in_a_links_path_is_filtered_from_the_report():
    event = {"request": {"url": "https://quiz.example.org/en/review/reminders/stop/eyJhIjoxfQ:1t/"}}

    scrubbed = sentry.scrub(event, {})

    assert scrubbed["request"]["url"] == (
        "https://quiz.example.org/en/review/reminders/stop/[Filtered]/"
    )


def test_a_failed_task_is_reported_once_with_its_task_and_id(reporting, settings, learner):
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": free_port(), "use_tls": False, "timeout": 2},
        }
    }
    from accounts.mail import deliver

    result = deliver.enqueue(subject="Hello", body="Secret body", to=["amina@example.org"])

    assert result.status == "FAILED"

    _flush()
    events = [event for event, _raw in reporting.events()]
    tasks = [event for event in events if event.get("tags", {}).get("task")]
    assert len(tasks) == 1, [json.dumps(event)[:200] for event in events]
    assert tasks[0]["tags"]["task"] == "accounts.mail.deliver"
    assert tasks[0]["tags"]["task_id"]
    assert tasks[0]["exception"]["values"][-1]["type"] == "ConnectionRefusedError"
    assert len(mail.outbox) == 0


def test_an_administrator_can_send_a_test_error_and_others_cannot(reporting, admin_client):
    admin_client.raise_request_exception = False
    page = admin_client.get(reverse("admin:error_report_test"))
    failed = admin_client.post(reverse("admin:error_report_test"))
    instructor = Client()
    instructor.force_login(make_user("ustadha", is_staff=True))

    assert page.status_code == 200
    assert "Error reports are on (SENTRY_DSN)" in page.text
    arabic = admin_client.get("/ar/admin/error-report-test/").text
    assert "تجربة تقارير الأخطاء" in arabic and 'value="إرسال خطأ تجريبي"' in arabic
    assert failed.status_code == 500
    event, _raw = _one(reporting, "ErrorReportTest")
    assert event["tags"]["request_id"] == failed["X-Request-ID"]
    assert instructor.get(reverse("admin:error_report_test")).status_code == 403
