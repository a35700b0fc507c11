"""Prometheus metrics (METRICS_ENABLED): what the site serves and how fast, what learners do,
and how the task queue keeps up; served at /metrics to a token or to allowed addresses.

prometheus-client, not django-prometheus: django-prometheus times the database and the cache
by replacing their backends with its own subclasses, which our PostgreSQL pool settings and
our Redis backend (config/cache.py) would have to be rebuilt on; here a request's statements
are timed through Django's documented `connection.execute_wrapper`, Redis in the one method
config/cache.py sends every operation through, and the learners' events by signals.

Several processes: gunicorn's workers and the task worker each count in files of their own in
PROMETHEUS_MULTIPROC_DIR (prometheus-client's multiprocess mode; deploy/'s units set it), and
a scrape of any web worker adds them all up. Without it each process answers for itself.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
from datetime import timedelta
from functools import lru_cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_safe
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import REGISTRY, Collector

from accounts.client_ip import client_ip
from accounts.middleware import without_session

# Seconds: a step answers in a few milliseconds, a grades report in a second or two.
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
# A statement or a cache operation: tenths of a millisecond to a timeout.
OPERATION_BUCKETS = (0.0002, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5)
TASK_BUCKETS = (0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300)

requests_total = Counter(
    "daleel_http_requests",
    "Requests answered, by view (its URL name), method and status code.",
    ["view", "method", "status"],
)
request_seconds = Histogram(
    "daleel_http_request_duration_seconds",
    "Time from the request reaching Django to its response, by view.",
    ["view"],
    buckets=REQUEST_BUCKETS,
)
database_seconds = Histogram(
    "daleel_db_query_duration_seconds",
    "Time of each SQL statement sent while answering a request, by database alias.",
    ["alias"],
    buckets=OPERATION_BUCKETS,
)
cache_seconds = Histogram(
    "daleel_cache_operation_duration_seconds",
    "Time of each Redis cache operation (get, set, …), including those Redis failed.",
    ["operation"],
    buckets=OPERATION_BUCKETS,
)
attempts_started = Counter("daleel_attempts_started", "Attempts started by learners.")
attempts_finished = Counter(
    "daleel_attempts_finished", "Attempts finished (the last answer, Submit all, the deadline)."
)
answers_recorded = Counter("daleel_answers_recorded", "Answers recorded in attempts.")
review_answers = Counter("daleel_review_answers", "Answers given in the spaced review.")
lti_score_sends = Counter(
    "daleel_lti_score_sends",
    "Tries to send a score to an LTI platform, by outcome: sent, failed (tried again later), "
    "gave_up (after the last try), skipped (the platform's grade would not change).",
    ["outcome"],
)
tasks_finished = Counter(
    "daleel_tasks_finished", "Background tasks run, by task and outcome.", ["task", "status"]
)
task_seconds = Histogram(
    "daleel_task_duration_seconds",
    "Time a background task ran, by task.",
    ["task"],
    buckets=TASK_BUCKETS,
)


class TaskQueueCollector(Collector):
    """The queue as the database holds it now, read at each scrape (three indexed counts and
    the oldest due task): depth by state, and how long the oldest due task has waited."""

    def collect(self):
        from django_tasks_db.models import DBTaskResult, get_date_max

        now = timezone.now()
        never = get_date_max()
        queued = DBTaskResult.objects.filter(status="READY")
        due = queued.ready()
        tasks = GaugeMetricFamily(
            "daleel_tasks",
            "Background tasks by state: due (waiting for a worker), scheduled (for later), "
            "running.",
            labels=["state"],
        )
        due_count = due.count()
        tasks.add_metric(["due"], due_count)
        tasks.add_metric(["scheduled"], queued.count() - due_count)
        tasks.add_metric(["running"], DBTaskResult.objects.filter(status="RUNNING").count())
        yield tasks
        # A due task has waited since it was queued, or since its time came if it was queued
        # for later.
        oldest = [
            due.filter(run_after=never)
            .order_by("enqueued_at")
            .values_list("enqueued_at", flat=True)
            .first(),
            due.exclude(run_after=never)
            .order_by("run_after")
            .values_list("run_after", flat=True)
            .first(),
        ]
        waiting = [now - since for since in oldest if since is not None]
        yield GaugeMetricFamily(
            "daleel_task_oldest_due_age_seconds",
            "How long the oldest due task has waited for a worker (0: none waits).",
            value=max(waiting, default=timedelta(0)).total_seconds(),
        )


def exposition() -> bytes:
    """Every process's counts (or this process's alone), then the queue's."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        counted = CollectorRegistry()
        MultiProcessCollector(counted)
    else:
        counted = REGISTRY
    queue = CollectorRegistry(auto_describe=False)
    queue.register(TaskQueueCollector())
    return generate_latest(counted) + generate_latest(queue)


@lru_cache(maxsize=4)
def _networks(addresses: tuple[str, ...]):
    return tuple(ipaddress.ip_network(address, strict=False) for address in addresses)


def allowed(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    if token:
        sent = request.headers.get("Authorization", "")
        if hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
            return True
    networks = _networks(tuple(settings.METRICS_ALLOWED_ADDRESSES))
    if networks:
        try:
            address = ipaddress.ip_address(client_ip(request) or "")
        except ValueError:
            return False
        return any(address in network for network in networks)
    return False


@without_session
@require_safe
def metrics(request: HttpRequest) -> HttpResponse:
    if not settings.METRICS_ENABLED:
        return HttpResponse("not found", content_type="text/plain", status=404)
    if not allowed(request):
        response = HttpResponse("a bearer token is needed", content_type="text/plain", status=401)
        if settings.METRICS_TOKEN:
            response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        else:
            response.status_code = 403
            response.content = b"not from this address"
        return response
    return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
