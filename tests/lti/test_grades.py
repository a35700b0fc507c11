"""A learner launched from a platform takes a quiz in its frame; the platform gets the score,
once, over real HTTP."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.management import call_command
from django.test import Client

from lti.models import QuizGrading, ScorePost
from quizzes.models import Attempt
from tests.factories import correct_choice, make_quiz, wrong_choice

from .conftest import launch
from .platform import SCORE_SCOPE

pytestmark = pytest.mark.django_db


def take(client: Client, quiz, *, right: int) -> Attempt:
    """Start the quiz through the site's own views and answer it: the first `right` right."""
    response = client.post(f"/en/quizzes/{quiz.slug}/start/")
    assert response.status_code == 302
    attempt = Attempt.objects.filter(quiz=quiz).latest("started_at")
    questions = attempt.quiz.questions.order_by("position")
    for number, question in enumerate(questions, 1):
        pick = correct_choice(question) if number <= right else wrong_choice(question)
        client.post(f"/en/attempts/{attempt.pk}/questions/{number}/", {"choice": pick.pk})
    attempt.refresh_from_db()
    return attempt


def launched_learner(registered, quiz) -> Client:
    client = Client()
    response, _token, _auth = launch(
        client, registered, target_link_uri=f"http://testserver/en/quizzes/{quiz.slug}/"
    )
    assert response.status_code == 302
    assert response["Location"] == f"/en/quizzes/{quiz.slug}/"
    registered.tool_jwks = client.get("/lti/jwks/").json()
    return client


def test_a_learner_from_a_platform_finishes_a_quiz_and_the_platform_gets_the_score_once(
    registered, django_capture_on_commit_callbacks
):
    quiz = make_quiz(questions=3)
    client = launched_learner(registered, quiz)
    page = client.get(f"/en/quizzes/{quiz.slug}/")
    assert page.status_code == 200
    assert registered.issuer in page["Content-Security-Policy"]

    with django_capture_on_commit_callbacks(execute=True):
        attempt = take(client, quiz, right=2)

    assert attempt.is_finished and attempt.score == 2
    (score,) = registered.received.scores
    assert score["lineitem"] == "/lineitems/1"
    assert score["content_type"] == "application/vnd.ims.lis.v1.score+json"
    assert score["scoreGiven"] == 2
    assert score["scoreMaximum"] == 3
    assert score["activityProgress"] == "Completed"
    assert score["gradingProgress"] == "FullyGraded"
    assert score["userId"] == "learner-sub-1"
    assert score["timestamp"].startswith(attempt.finished_at.date().isoformat())
    (token_request,) = registered.received.token_requests
    assert token_request["grant_type"] == "client_credentials"
    assert token_request["scope"] == SCORE_SCOPE
    assert token_request["claims"]["iss"] == registered.client_id
    post = ScorePost.objects.get(attempt=attempt)
    assert post.status == ScorePost.Status.SENT and post.tries == 1

    # A second run of the task (a retry that raced, a command) sends nothing again.
    from lti.grades import post_score

    assert post_score.call(post.pk) == ScorePost.Status.SENT
    assert len(registered.received.scores) == 1


def test_a_failing_platform_is_retried_with_backoff_until_it_takes_the_score(
    registered, django_capture_on_commit_callbacks, time_machine
):
    quiz = make_quiz(questions=2)
    client = launched_learner(registered, quiz)
    registered.score_statuses = [500]
    time_machine.move_to("2026-12-01 10:00:00+00:00", tick=False)

    with django_capture_on_commit_callbacks(execute=True):
        attempt = take(client, quiz, right=1)

    post = ScorePost.objects.get(attempt=attempt)
    assert post.status == ScorePost.Status.FAILED and post.tries == 1
    assert "500" in post.last_error
    assert registered.received.scores == []
    call_command("lti_retry_scores", verbosity=0)  # not due yet: 30 seconds later
    assert ScorePost.objects.get(pk=post.pk).tries == 1

    time_machine.move_to("2026-12-01 10:00:31+00:00", tick=False)
    call_command("lti_retry_scores", verbosity=0)

    post.refresh_from_db()
    assert post.status == ScorePost.Status.SENT and post.tries == 2
    (score,) = registered.received.scores
    assert score["scoreGiven"] == 1 and score["scoreMaximum"] == 2
    # The token was kept from the first try: asked once.
    assert len(registered.received.token_requests) == 1


@pytest.mark.parametrize(
    ("counts", "sent"),
    [("first", [Decimal(3)]), ("best", [Decimal(3)]), ("last", [Decimal(3), 1])],
)
def test_the_quizs_setting_says_which_attempt_the_platform_gets(
    registered, django_capture_on_commit_callbacks, counts, sent
):
    quiz = make_quiz(questions=3)
    QuizGrading.objects.create(quiz=quiz, counts=counts)
    client = launched_learner(registered, quiz)

    with django_capture_on_commit_callbacks(execute=True):
        take(client, quiz, right=3)
    with django_capture_on_commit_callbacks(execute=True):
        second = take(client, quiz, right=1)

    assert [s["scoreGiven"] for s in registered.received.scores] == sent
    # Sent only when the grade the platform should hold changes: a worse attempt changes the
    # best one's grade no more than a second attempt changes the first's.
    expected = ScorePost.Status.SENT if counts == "last" else ScorePost.Status.SKIPPED
    assert ScorePost.objects.get(attempt=second).status == expected


def test_an_attempt_not_launched_from_a_platform_sends_nothing(
    learner_client, quiz, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        take(learner_client, quiz, right=3)

    assert not ScorePost.objects.exists()


def test_submit_all_in_exam_mode_sends_the_score(registered, django_capture_on_commit_callbacks):
    quiz = make_quiz(questions=2, feedback="deferred")
    client = launched_learner(registered, quiz)
    attempt = take(client, quiz, right=2)  # saved, not finished: exam mode
    assert not attempt.is_finished
    assert registered.received.scores == []

    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/en/attempts/{attempt.pk}/finish/")

    (score,) = registered.received.scores
    assert score["scoreGiven"] == 2 and score["scoreMaximum"] == 2


def test_an_attempt_closed_by_its_deadline_sends_the_score(
    registered, django_capture_on_commit_callbacks, time_machine
):
    from datetime import timedelta

    time_machine.move_to("2026-12-01 10:00:00+00:00", tick=False)
    quiz = make_quiz(questions=3, time_limit=timedelta(minutes=5))
    client = launched_learner(registered, quiz)
    client.post(f"/en/quizzes/{quiz.slug}/start/")
    attempt = Attempt.objects.get(quiz=quiz)
    question = quiz.questions.order_by("position").first()
    client.post(f"/en/attempts/{attempt.pk}/questions/1/", {"choice": correct_choice(question).pk})

    time_machine.move_to("2026-12-01 10:06:00+00:00", tick=False)
    with django_capture_on_commit_callbacks(execute=True):
        call_command("close_overdue_attempts", verbosity=0)

    (score,) = registered.received.scores
    assert score["scoreGiven"] == 1 and score["scoreMaximum"] == 3
    assert ScorePost.objects.get(attempt=attempt).status == ScorePost.Status.SENT


def test_a_platform_that_keeps_failing_is_given_up_after_six_tries(
    registered, django_capture_on_commit_callbacks, time_machine
):
    from datetime import timedelta

    from django.utils import timezone

    time_machine.move_to("2026-12-01 10:00:00+00:00", tick=False)
    quiz = make_quiz(questions=1)
    client = launched_learner(registered, quiz)
    registered.score_statuses = [503] * 6
    with django_capture_on_commit_callbacks(execute=True):
        attempt = take(client, quiz, right=1)
    post = ScorePost.objects.get(attempt=attempt)
    waits = []
    while post.status == ScorePost.Status.FAILED:
        waits.append(post.next_try_at - timezone.now())
        time_machine.move_to(post.next_try_at + timedelta(seconds=1), tick=False)
        call_command("lti_retry_scores", verbosity=0)
        post.refresh_from_db()

    assert post.status == ScorePost.Status.GAVE_UP and post.tries == 6
    assert [int(wait.total_seconds()) for wait in waits] == [30, 120, 480, 1920, 7680]
    assert registered.received.scores == []
    call_command("lti_retry_scores", verbosity=0)
    assert ScorePost.objects.get(pk=post.pk).tries == 6


def test_a_backend_that_defers_gets_the_retry_as_a_deferred_task(
    registered, django_capture_on_commit_callbacks, settings
):
    from django.tasks import default_task_backend

    from lti.grades import post_score

    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    quiz = make_quiz(questions=1)
    client = launched_learner(registered, quiz)
    with django_capture_on_commit_callbacks(execute=True):
        attempt = take(client, quiz, right=1)
    post = ScorePost.objects.get(attempt=attempt)
    assert post.status == ScorePost.Status.PENDING  # enqueued, not run: nothing sent yet
    assert [r.args for r in default_task_backend.results] == [[post.pk]]
    registered.score_statuses = [500]

    with django_capture_on_commit_callbacks(execute=True):
        post_score.call(post.pk)  # what a worker does

    post.refresh_from_db()
    assert post.status == ScorePost.Status.FAILED
    deferred = default_task_backend.results[-1]
    assert deferred.args == [post.pk]
    assert deferred.task.run_after == post.next_try_at


def test_instructors_see_each_attempts_last_status_in_the_admin(
    registered, django_capture_on_commit_callbacks
):
    from tests.factories import make_instructor

    quiz = make_quiz(questions=1)
    client = launched_learner(registered, quiz)
    registered.score_statuses = [500]
    with django_capture_on_commit_callbacks(execute=True):
        take(client, quiz, right=1)
    staff = Client()
    staff.force_login(make_instructor())

    page = staff.get("/en/admin/lti/scorepost/", {"attempt__quiz__id__exact": quiz.pk})

    assert page.status_code == 200
    html = page.content.decode()
    assert "failed, will retry" in html and "amina" in html
    assert staff.get("/en/admin/lti/registration/").status_code == 403


def test_a_score_being_sent_by_another_run_is_left_to_it_until_that_run_is_stale(
    registered, django_capture_on_commit_callbacks, time_machine, settings
):
    from datetime import timedelta

    from django.utils import timezone

    from lti.grades import post_score

    time_machine.move_to("2026-12-01 10:00:00+00:00", tick=False)
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    quiz = make_quiz(questions=1)
    client = launched_learner(registered, quiz)
    with django_capture_on_commit_callbacks(execute=True):
        attempt = take(client, quiz, right=1)
    post = ScorePost.objects.get(attempt=attempt)
    # Another worker claimed it and is waiting for the platform.
    ScorePost.objects.filter(pk=post.pk).update(
        status=ScorePost.Status.SENDING, tries=1, updated_at=timezone.now()
    )

    assert post_score.call(post.pk) == ScorePost.Status.SENDING
    assert registered.received.scores == []

    # That worker died: ten minutes on, the retry command sends it.
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    time_machine.move_to(timezone.now() + timedelta(minutes=10, seconds=1), tick=False)
    call_command("lti_retry_scores", verbosity=0)

    post.refresh_from_db()
    assert post.status == ScorePost.Status.SENT and post.tries == 2
    assert len(registered.received.scores) == 1


def test_each_post_carries_its_own_attempts_finish_time_newer_than_the_last(
    registered, django_capture_on_commit_callbacks, time_machine
):
    quiz = make_quiz(questions=3)
    QuizGrading.objects.create(quiz=quiz, counts="best")
    client = launched_learner(registered, quiz)
    finished = []
    for hour, right in ((9, 1), (10, 3), (11, 2), (12, 3)):
        time_machine.move_to(f"2026-12-01 {hour}:00:00+00:00", tick=False)
        with django_capture_on_commit_callbacks(execute=True):
            finished.append(take(client, quiz, right=right).finished_at)

    scores = registered.received.scores
    # The 1, then the 3; a 2 and an equal 3 change nothing and are not sent.
    assert [score["scoreGiven"] for score in scores] == [1, 3]
    assert [score["timestamp"] for score in scores] == [
        finished[0].isoformat(timespec="milliseconds"),
        finished[1].isoformat(timespec="milliseconds"),
    ]


def test_the_last_attempt_counts_and_an_unchanged_score_is_not_sent_again(
    registered, django_capture_on_commit_callbacks
):
    quiz = make_quiz(questions=3)
    QuizGrading.objects.create(quiz=quiz, counts="last")
    client = launched_learner(registered, quiz)
    for right in (2, 2, 1):
        with django_capture_on_commit_callbacks(execute=True):
            take(client, quiz, right=right)

    assert [score["scoreGiven"] for score in registered.received.scores] == [2, 1]


def _launched_instructor(registered, quiz) -> Client:
    from .platform import INSTRUCTOR

    client = Client()
    response, _token, _auth = launch(
        client,
        registered,
        target_link_uri=f"http://testserver/en/quizzes/{quiz.slug}/",
        roles=[INSTRUCTOR],
        sub="instructor-sub-1",
    )
    assert response.status_code == 302
    registered.tool_jwks = client.get("/lti/jwks/").json()
    return client


def test_an_instructors_attempt_posts_nothing(registered, django_capture_on_commit_callbacks):
    quiz = make_quiz(questions=2)
    client = _launched_instructor(registered, quiz)

    with django_capture_on_commit_callbacks(execute=True):
        attempt = take(client, quiz, right=2)

    assert attempt.is_finished
    assert registered.received.scores == []
    assert not ScorePost.objects.exists()


def test_an_instructors_attempt_posts_where_the_registration_asks(
    registered, django_capture_on_commit_callbacks
):
    from lti.models import Registration

    Registration.objects.filter(client_id=registered.client_id).update(instructor_grades=True)
    quiz = make_quiz(questions=2)
    client = _launched_instructor(registered, quiz)

    with django_capture_on_commit_callbacks(execute=True):
        take(client, quiz, right=2)

    (score,) = registered.received.scores
    assert score["userId"] == "instructor-sub-1" and score["scoreGiven"] == 2
