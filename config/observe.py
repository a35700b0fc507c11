"""What an operator sees of each request and each task: its id (X-Request-ID), one JSON log
line (LOG_FORMAT=json), its metrics (METRICS_ENABLED) and, in an error report, its request id
(SENTRY_DSN). And the learners' events the metrics count, heard from signals: nothing in the
attempt engine calls in here.
"""

from __future__ import annotations

import contextlib
import logging
import re
import sys
import time
import uuid
from collections.abc import Callable

from django.conf import settings
from django.db import connection, transaction
from django.db.models.signals import post_save
from django.http import HttpRequest, HttpResponse
from django.tasks.signals import task_finished, task_started

from accounts.client_ip import from_trusted_proxy
from config.logs import REQUEST_ID
from config.outages import DATABASE_UNREACHABLE

request_logger = logging.getLogger("daleel.requests")
task_logger = logging.getLogger("daleel.tasks")

# nginx's $request_id is 32 hexadecimal digits; other proxies send UUIDs. Anything else a
# client wrote is replaced.
REQUEST_ID_FORMAT = re.compile(r"[A-Za-z0-9._-]{8,64}")


def _request_id(request: HttpRequest) -> str:
    """The proxy's id for this request (nginx's X-Request-ID, so that its access log and ours
    name the same request), or a new one. Only a trusted proxy may choose it."""
    sent = request.headers.get("X-Request-ID", "")
    if sent and REQUEST_ID_FORMAT.fullmatch(sent) and from_trusted_proxy(request):
        return sent
    return uuid.uuid4().hex


def _view_name(request: HttpRequest) -> str:
    """The URL's name ("quizzes:question"): a label of a few dozen values, whatever the
    path. Static files (whitenoise answers them before any URL is resolved) are "static"."""
    match = getattr(request, "resolver_match", None)
    if match is not None:
        return match.view_name or "unnamed"
    if request.path.startswith(settings.STATIC_URL):
        return "static"
    return "unresolved"


def user_id_of(request: HttpRequest) -> int | None:
    """The signed-in user's id when the request read its session anyway (as
    accounts.middleware.private_when_signed_in asks): a request that did not (the health
    checks, static files) is not made to read it for a log line."""
    session = getattr(request, "session", None)
    if session is None or not session.accessed:
        return None
    with contextlib.suppress(*DATABASE_UNREACHABLE):
        user = request.user
        if user.is_authenticated:
            return user.pk
    return None


def request_observed(get_response: Callable[[HttpRequest], HttpResponse]):
    """First in MIDDLEWARE, so that its time covers every other middleware."""
    from config import metrics

    log_lines = settings.LOG_FORMAT == "json"
    measure = settings.METRICS_ENABLED
    report = bool(settings.SENTRY_DSN)

    def time_statement(execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            metrics.database_seconds.labels(context["connection"].alias).observe(
                time.perf_counter() - started
            )

    def middleware(request: HttpRequest) -> HttpResponse:
        request_id = _request_id(request)
        bound = REQUEST_ID.set(request_id)
        if report:
            from config.sentry import tag_request

            tag_request(request, request_id)
        started = time.perf_counter()
        timed = connection.execute_wrapper(time_statement) if measure else contextlib.nullcontext()
        try:
            with timed:
                response = get_response(request)
        finally:
            REQUEST_ID.reset(bound)
        seconds = time.perf_counter() - started
        response["X-Request-ID"] = request_id
        if measure or log_lines:
            view = _view_name(request)
            if measure:
                metrics.requests_total.labels(view, request.method, response.status_code).inc()
                metrics.request_seconds.labels(view).observe(seconds)
            if log_lines:
                request_logger.info(
                    "%s %s %s",
                    request.method,
                    view,
                    response.status_code,
                    extra={
                        "request_id": request_id,
                        "user_id": user_id_of(request),
                        "view": view,
                        "method": request.method,
                        "status": response.status_code,
                        "duration_ms": round(seconds * 1000, 2),
                    },
                )
        return response

    return middleware


# Tasks: one line each (LOG_FORMAT=json), their metrics, and their failures in error reports.
# A task run by the worker is named by its id in the records made while it runs; one run in a
# request (TASKS_BACKEND=immediate) keeps the request's.
_task_started_at: dict[str, tuple[float, object | None]] = {}


def _task_started(sender, task_result, **kwargs) -> None:
    bound = REQUEST_ID.set(f"task-{task_result.id}") if REQUEST_ID.get() is None else None
    _task_started_at[task_result.id] = (time.perf_counter(), bound)


def _task_finished(sender, task_result, **kwargs) -> None:

    started, bound = _task_started_at.pop(task_result.id, (None, None))
    seconds = time.perf_counter() - started if started is not None else None
    name = task_result.task.module_path
    status = str(task_result.status)
    # A failure's signal is sent inside the worker's `except`: the exception is the task's.
    error = sys.exception() if status == "FAILED" else None
    if settings.METRICS_ENABLED:
        from config import metrics

        metrics.tasks_finished.labels(name, status).inc()
        if seconds is not None:
            metrics.task_seconds.labels(name).observe(seconds)
    if settings.SENTRY_DSN and error is not None:
        from config.sentry import report_task_failure

        report_task_failure(error, task=name, task_id=str(task_result.id))
    if settings.LOG_FORMAT == "json":
        task_logger.log(
            logging.ERROR if error is not None else logging.INFO,
            "task %s %s",
            name,
            status,
            exc_info=error,
            extra={
                "task_id": str(task_result.id),
                "task": name,
                "status": status,
                "user_id": None,
                "duration_ms": round(seconds * 1000, 2) if seconds is not None else None,
            },
        )
    if bound is not None:
        REQUEST_ID.reset(bound)  # type: ignore[arg-type]


# Learners' events, counted once their transaction commits (an answer a concurrent request
# recorded first rolls back, and is not counted).
def _count_after_commit(counter) -> Callable[..., None]:
    def receiver(sender, created: bool = True, raw: bool = False, **kwargs) -> None:
        if created and not raw and settings.METRICS_ENABLED:
            transaction.on_commit(counter.inc, robust=True)

    return receiver


def lti_score_tried(outcome: str) -> None:
    """lti.grades.post_score, once per try to send a score: its outcome (the ScorePost's
    status: sent, failed, gave_up, skipped)."""
    if settings.METRICS_ENABLED:
        from config import metrics

        metrics.lti_score_sends.labels(outcome).inc()


def connect() -> None:
    from config import metrics
    from quizzes.models import Answer, Attempt, ReviewAnswer
    from quizzes.signals import attempt_finished

    task_started.connect(_task_started, dispatch_uid="daleel-task-started")
    task_finished.connect(_task_finished, dispatch_uid="daleel-task-finished")
    for model, counter in [
        (Attempt, metrics.attempts_started),
        (Answer, metrics.answers_recorded),
        (ReviewAnswer, metrics.review_answers),
    ]:
        post_save.connect(
            _count_after_commit(counter),
            sender=model,
            weak=False,
            dispatch_uid=f"daleel-metrics-{model._meta.label}",
        )
    attempt_finished.connect(
        _count_after_commit(metrics.attempts_finished),
        weak=False,
        dispatch_uid="daleel-metrics-attempt-finished",
    )
