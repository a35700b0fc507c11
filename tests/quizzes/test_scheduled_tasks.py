"""The worker's own tasks, on the database queue: a timed attempt is closed at its deadline,
and the hourly task sends reminders and queues its next run; scheduling it twice queues one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core import mail
from django.core.management import call_command
from django_tasks_db.models import DBTaskResult

from accounts.models import Profile
from quizzes.attempts.rules import DEADLINE_GRACE
from quizzes.attempts.services import attempt_start
from quizzes.models import Attempt, ReviewCard
from quizzes.review.scheduler import card_of, card_record_quiz_answer
from tests.factories import make_quiz, make_user

START = datetime(2026, 11, 3, 5, 0, 30, tzinfo=UTC)


@pytest.fixture
def queued_in_the_database(settings):
    settings.TASKS = {"default": {"BACKEND": settings.TASKS_BACKENDS["database"]}}
    settings.SITE_ORIGIN = "https://daleel.example"


def run_worker() -> None:
    call_command("db_worker", "--batch", "--no-startup-delay", "--no-reload", verbosity=0)


@pytest.mark.django_db(transaction=True)
def test_a_timed_attempt_is_closed_by_its_task_at_its_deadline(queued_in_the_database):
    learner = make_user()
    quiz = make_quiz(questions=2, time_limit=timedelta(minutes=20))

    with time_machine.travel(START, tick=False):
        attempt = attempt_start(user=learner, quiz=quiz)
    [queued] = DBTaskResult.objects.all()
    assert queued.task_path == "quizzes.attempts.services.attempt_close"
    assert queued.run_after == attempt.deadline + DEADLINE_GRACE + timedelta(seconds=1)

    with time_machine.travel(attempt.deadline, tick=False):
        run_worker()  # not yet: the task waits for its time
    assert not Attempt.objects.get(pk=attempt.pk).is_finished

    with time_machine.travel(queued.run_after + timedelta(seconds=1), tick=False):
        run_worker()
    attempt.refresh_from_db()
    assert attempt.is_finished and attempt.score == 0
    assert DBTaskResult.objects.get().status == "SUCCESSFUL"


@pytest.mark.django_db(transaction=True)
def test_a_closing_task_queued_by_the_release_before_the_engine_package_still_runs(
    queued_in_the_database,
):
    learner = make_user()
    quiz = make_quiz(questions=2, time_limit=timedelta(minutes=20))
    with time_machine.travel(START, tick=False):
        attempt = attempt_start(user=learner, quiz=quiz)
    DBTaskResult.objects.update(task_path="quizzes.attempts.attempt_close")  # its old name

    with time_machine.travel(attempt.deadline + timedelta(minutes=1), tick=False):
        run_worker()

    attempt.refresh_from_db()
    assert attempt.is_finished
    assert DBTaskResult.objects.get().status == "SUCCESSFUL"


@pytest.mark.django_db(transaction=True)
def test_an_attempt_finished_before_its_deadline_is_left_as_it_was(queued_in_the_database):
    learner = make_user()
    quiz = make_quiz(questions=1, time_limit=timedelta(minutes=20))
    with time_machine.travel(START, tick=False):
        attempt = attempt_start(user=learner, quiz=quiz)
        Attempt.objects.filter(pk=attempt.pk).update(finished_at=START, score=1, total=1)

    with time_machine.travel(START + timedelta(hours=1), tick=False):
        run_worker()

    attempt.refresh_from_db()
    assert (attempt.finished_at, attempt.score) == (START, 1)


@pytest.mark.django_db(transaction=True)
def test_untimed_attempts_queue_nothing(queued_in_the_database):
    attempt_start(user=make_user(), quiz=make_quiz(questions=1))
    assert not DBTaskResult.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_hourly_task_is_queued_once_sends_reminders_and_queues_the_next_hour(
    queued_in_the_database,
):
    learner = make_user("amina", email="amina@example.com")
    Profile.objects.filter(user=learner).update(reminder_hour=8, time_zone="Asia/Riyadh")
    question = make_quiz(questions=1).questions.get()
    card_record_quiz_answer(
        card_of(learner.pk, question.pk),
        user_id=learner.pk,
        question_id=question.pk,
        is_correct=False,
        at=START - timedelta(days=3),
    )
    ReviewCard.objects.update(due=START - timedelta(days=1))

    with time_machine.travel(START, tick=False):
        call_command("schedule_tasks", verbosity=0)
        call_command("schedule_tasks", verbosity=0)  # a second deploy: still one
        assert DBTaskResult.objects.filter(status="READY").count() == 1
        run_worker()

    # The hourly pass queued the reminder, which the same batch delivered.
    assert [message.to for message in mail.outbox] == [["amina@example.com"]]
    hourly = DBTaskResult.objects.filter(task_path="quizzes.schedule.hourly")
    assert hourly.filter(status="SUCCESSFUL").get().return_value == {"closed": 0, "reminders": 1}
    assert hourly.get(status="READY").run_after == datetime(2026, 11, 3, 6, 0, tzinfo=UTC)

    with time_machine.travel(datetime(2026, 11, 3, 6, 0, 5, tzinfo=UTC), tick=False):
        run_worker()
    assert len(mail.outbox) == 1  # never two a day
    assert hourly.filter(status="READY").get().run_after == datetime(2026, 11, 3, 7, 0, tzinfo=UTC)


@pytest.mark.django_db
def test_with_the_in_process_backend_nothing_is_scheduled(capsys):
    call_command("schedule_tasks")
    assert "nothing to schedule" in capsys.readouterr().out
