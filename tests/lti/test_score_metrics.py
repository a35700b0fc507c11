"""Each try to send a score to a platform is counted by its outcome (METRICS_ENABLED), so an
operator sees a platform refusing scores before its instructors do."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from prometheus_client import REGISTRY

from tests.factories import make_quiz

from .test_grades import launched_learner, take

pytestmark = pytest.mark.django_db


def sends(outcome: str) -> float:
    return REGISTRY.get_sample_value("daleel_lti_score_sends_total", {"outcome": outcome}) or 0


def test_a_failed_send_and_its_successful_retry_are_counted_apart(
    registered, settings, django_capture_on_commit_callbacks, time_machine
):
    settings.METRICS_ENABLED = True
    quiz = make_quiz(questions=2)
    client = launched_learner(registered, quiz)
    registered.score_statuses = [500]
    time_machine.move_to("2026-12-01 10:00:00+00:00", tick=False)
    failed, sent = sends("failed"), sends("sent")

    with django_capture_on_commit_callbacks(execute=True):
        take(client, quiz, right=1)
    assert (sends("failed"), sends("sent")) == (failed + 1, sent)

    time_machine.move_to("2026-12-01 10:00:31+00:00", tick=False)
    call_command("lti_retry_scores", verbosity=0)

    assert (sends("failed"), sends("sent")) == (failed + 1, sent + 1)
