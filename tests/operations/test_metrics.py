"""Prometheus metrics (METRICS_ENABLED, config/metrics.py): who may read them, and that each
counts what it says, once."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from bench.services import free_port
from config.cache import OutageTolerantRedisCache
from tests.factories import make_quiz

TOKEN = "a-token-of-at-least-twenty-four-characters"


@pytest.fixture
def metrics_on(settings):
    settings.METRICS_ENABLED = True
    settings.METRICS_TOKEN = TOKEN
    settings.METRICS_ALLOWED_ADDRESSES = []


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def scrape(client: Client | None = None, **headers) -> dict[tuple[str, tuple], float]:
    response = (client or Client()).get(
        "/metrics", headers={"Authorization": f"Bearer {TOKEN}", **headers}
    )
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"].startswith("text/plain; version=")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def test_metrics_are_not_found_unless_enabled(client, settings):
    settings.METRICS_ENABLED = False

    assert client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 404


def test_without_the_token_the_metrics_are_refused(client, metrics_on, db):
    missing = client.get("/metrics")
    wrong = client.get("/metrics", headers={"Authorization": "Bearer not-the-token"})
    right = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})

    assert missing.status_code == 401
    assert missing["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert wrong.status_code == 401
    assert right.status_code == 200
    assert b"daleel_http_requests_total" in right.content


def test_allowed_addresses_read_the_metrics_without_a_token_and_others_do_not(settings, db):
    settings.METRICS_ENABLED = True
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_ADDRESSES = ["10.0.0.9", "192.168.7.0/24"]

    prometheus = Client(REMOTE_ADDR="10.0.0.9").get("/metrics")
    network = Client(REMOTE_ADDR="192.168.7.20").get("/metrics")
    # Through the proxy on this machine: the address it forwards counts, as for lockouts.
    proxied = Client(REMOTE_ADDR="127.0.0.1").get(
        "/metrics", headers={"X-Forwarded-For": "10.0.0.9"}
    )
    stranger = Client(REMOTE_ADDR="203.0.113.5").get("/metrics")
    # A client's own X-Forwarded-For counts for nothing.
    forged = Client(REMOTE_ADDR="203.0.113.5").get(
        "/metrics", headers={"X-Forwarded-For": "10.0.0.9"}
    )

    assert [r.status_code for r in (prometheus, network, proxied)] == [200, 200, 200]
    assert stranger.status_code == 403
    assert forged.status_code == 403


def test_requests_are_counted_by_view_and_status_and_their_statements_timed(metrics_on, db):
    client = Client()
    before = value("daleel_http_requests_total", view="quizzes:catalog", method="GET", status="200")
    timed = value("daleel_db_query_duration_seconds_count", alias="default")
    latency = value("daleel_http_request_duration_seconds_count", view="quizzes:catalog")

    client.get("/en/")
    client.get("/en/no-such-page/")

    assert (
        value("daleel_http_requests_total", view="quizzes:catalog", method="GET", status="200")
        == before + 1
    )
    assert value("daleel_http_requests_total", view="unresolved", method="GET", status="404") >= 1
    assert value("daleel_http_request_duration_seconds_count", view="quizzes:catalog") == (
        latency + 1
    )
    assert value("daleel_db_query_duration_seconds_count", alias="default") > timed


def test_the_health_check_still_reads_nothing_with_metrics_on(
    metrics_on, client, django_assert_num_queries, db
):
    with django_assert_num_queries(0):
        response = client.get("/healthz")

    assert response.status_code == 200
    assert "Cookie" not in response.get("Vary", "")


def test_an_attempt_is_counted_once_started_each_answer_once_and_once_finished(
    metrics_on, learner_client, django_capture_on_commit_callbacks
):
    quiz = make_quiz(questions=2)
    started = value("daleel_attempts_started_total")
    answers = value("daleel_answers_recorded_total")
    finished = value("daleel_attempts_finished_total")

    with django_capture_on_commit_callbacks(execute=True):
        learner_client.post(reverse("quizzes:start", args=[quiz.slug]))
        attempt = quiz.attempts.get()
        for number, question in enumerate(quiz.questions.order_by("position"), start=1):
            url = reverse("quizzes:question", args=[attempt.pk, number])
            form = {"choice": str(question.choices.first().pk), "question": str(question.pk)}
            learner_client.post(url, form)
            learner_client.post(url, form)  # sent twice: a double click

    assert value("daleel_attempts_started_total") == started + 1
    assert value("daleel_answers_recorded_total") == answers + 2
    assert value("daleel_attempts_finished_total") == finished + 1


def test_nothing_is_counted_with_metrics_off(settings, learner_client):
    settings.METRICS_ENABLED = False
    quiz = make_quiz(questions=1)
    started = value("daleel_attempts_started_total")

    learner_client.post(reverse("quizzes:start", args=[quiz.slug]))

    assert value("daleel_attempts_started_total") == started


def test_the_task_queue_is_read_at_each_scrape_depth_and_age(metrics_on, settings, db):
    settings.TASKS = {"default": {"BACKEND": settings.TASKS_BACKENDS["database"]}}
    from accounts.mail import deliver

    now = timezone.now()
    with time_machine.travel(now - timedelta(minutes=3), tick=False):
        deliver.enqueue(subject="s", body="b", to=["a@example.org"])
    deliver.using(run_after=now - timedelta(minutes=1)).enqueue(
        subject="s", body="b", to=["a@example.org"]
    )
    deliver.using(run_after=now + timedelta(hours=1)).enqueue(
        subject="s", body="b", to=["a@example.org"]
    )

    with time_machine.travel(now, tick=False):
        samples = scrape()

    assert samples[("daleel_tasks", (("state", "due"),))] == 2
    assert samples[("daleel_tasks", (("state", "scheduled"),))] == 1
    assert samples[("daleel_tasks", (("state", "running"),))] == 0
    assert samples[("daleel_task_oldest_due_age_seconds", ())] == pytest.approx(180, abs=1)


def test_an_empty_queue_has_waited_for_nothing(metrics_on, db):
    samples = scrape()

    assert samples[("daleel_tasks", (("state", "due"),))] == 0
    assert samples[("daleel_task_oldest_due_age_seconds", ())] == 0


def test_tasks_run_are_counted_by_task_and_outcome(metrics_on, mailoutbox):
    from accounts.mail import deliver

    sent = value("daleel_tasks_finished_total", task="accounts.mail.deliver", status="SUCCESSFUL")
    timed = value("daleel_task_duration_seconds_count", task="accounts.mail.deliver")

    deliver.enqueue(subject="s", body="b", to=["a@example.org"])

    assert (
        value("daleel_tasks_finished_total", task="accounts.mail.deliver", status="SUCCESSFUL")
        == sent + 1
    )
    assert value("daleel_task_duration_seconds_count", task="accounts.mail.deliver") == timed + 1


def test_redis_operations_are_timed_even_when_redis_cannot_be_reached(metrics_on):
    cache = OutageTolerantRedisCache(
        f"redis://127.0.0.1:{free_port()}/0",
        {"OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2, "RETRY_SECONDS": 0}},
    )
    before = value("daleel_cache_operation_duration_seconds_count", operation="get")

    assert cache.get("a-key", "missing") == "missing"

    assert value("daleel_cache_operation_duration_seconds_count", operation="get") == before + 1


def test_a_review_answer_is_counted_once(metrics_on, learner, django_capture_on_commit_callbacks):
    from quizzes.grading import Posted
    from quizzes.models import ReviewCard
    from quizzes.review.services import review_answer_post
    from tests.factories import wrong_choice

    question = make_quiz(questions=1).questions.get()
    card = ReviewCard.objects.create(user=learner, question=question, due=timezone.now(), state=1)
    before = value("daleel_review_answers_total")

    with django_capture_on_commit_callbacks(execute=True):
        for _twice in range(2):  # the same revision sent again: a double click
            review_answer_post(
                user_id=learner.pk,
                card_id=card.pk,
                revision=card.reviews,
                posted=Posted(choices=(wrong_choice(question).pk,)),
            )

    assert value("daleel_review_answers_total") == before + 1
