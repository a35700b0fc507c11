"""What the worker does on its own, on Django's tasks framework (`TASKS`, the database
backend of django-tasks-db; `manage.py db_worker` runs them):

- `attempt_close` (quizzes.attempts): queued when a timed attempt starts, to run just past its
  deadline and grace: the attempt is finished then, even if the learner never comes back.
- `hourly`: every hour, on the hour, one pass of the review reminders (quizzes.reminders) and
  of `close_overdue_attempts` (a net for attempts whose own task was lost); then it queues
  itself for the next hour.

`manage.py schedule_tasks` (run before the worker: `make run` does, and so must a
deployment's worker, see docs/operations.md) queues `hourly` unless a run of it waits in the
queue already; running it again, or on every deploy, queues no second one.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.tasks import task
from django.utils import timezone

from .attempts.services import attempts_close_overdue
from .reminders import reminders_send

logger = logging.getLogger(__name__)


def next_hour(now: datetime) -> datetime:
    return now.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)


def waiting(recurring) -> bool:
    """Whether a run of the task `recurring` waits in the database queue (not yet started)."""
    from django.tasks.base import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    return DBTaskResult.objects.filter(
        task_path=recurring.module_path, status=TaskResultStatus.READY
    ).exists()


def schedule(recurring, *, at: datetime | None = None) -> bool:
    """Queue `recurring` to run at `at` (at once: None) unless a run of it waits already;
    True if queued. Only a backend that runs tasks later (the database one) keeps a
    schedule: with another, nothing is queued."""
    if not recurring.get_backend().supports_defer:
        return False
    if waiting(recurring):
        return False
    queued = recurring.using(run_after=at) if at is not None else recurring
    queued.enqueue()
    return True


@task
def hourly() -> dict[str, int]:
    """One pass of the reminders and of closing overdue attempts; then the next hour's run."""
    now = timezone.now()
    done = {"closed": 0, "reminders": 0}
    try:
        done["closed"] = attempts_close_overdue(now=now)
        done["reminders"] = reminders_send(now=now)
    finally:
        # Whatever failed this hour, the next hour runs.
        schedule(hourly, at=next_hour(now))
    return done
