"""Time as a learner far from UTC lives it: "later today" ends at their midnight, and a timed
attempt's deadline is the same instant whatever zone is active (a zone slip would refuse an
east learner's first answer as "time up", or take a west learner's after the deadline)."""

from __future__ import annotations

import zoneinfo
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Profile
from quizzes.attempts.rules import DEADLINE_GRACE
from quizzes.models import Answer, Attempt, ReviewCard
from quizzes.review.badge import review_due_counts
from quizzes.templatetags.daleel import comes_back
from tests.factories import correct_choice, make_quiz

pytestmark = pytest.mark.django_db

# 22:00 in Auckland (NZDT, UTC+13): 09:00 UTC the same day.
AUCKLAND_TEN_PM = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def test_later_today_ends_at_the_learners_midnight_in_auckland(learner, time_machine):
    time_machine.move_to(AUCKLAND_TEN_PM, tick=False)
    before_midnight = AUCKLAND_TEN_PM + timedelta(hours=1, minutes=30)  # 23:30 there
    after_midnight = AUCKLAND_TEN_PM + timedelta(hours=3)  # 01:00 there; 12:00 UTC, same day
    quiz = make_quiz(questions=2)
    for question, due in zip(quiz.questions.all(), (before_midnight, after_midnight), strict=True):
        ReviewCard.objects.create(user=learner, question=question, due=due, state=1, reviews=1)

    with timezone.override(zoneinfo.ZoneInfo("Pacific/Auckland")):
        assert comes_back(before_midnight) == "later today at 11:30 p.m."
        assert comes_back(after_midnight) == "tomorrow at 1 a.m."
        due = review_due_counts(user_id=learner.pk, fresh=True)

    assert (due.now, due.later_today) == (0, 1)
    assert due.next_due == before_midnight


@pytest.mark.parametrize("zone", ["Asia/Riyadh", "Pacific/Kiritimati", "America/Los_Angeles"])
def test_a_timed_attempts_deadline_is_the_same_instant_in_every_zone(learner, zone, time_machine):
    start = datetime(2026, 12, 1, 21, 0, tzinfo=UTC)  # another day already in Kiritimati
    time_machine.move_to(start, tick=False)
    quiz = make_quiz(questions=2, time_limit=timedelta(minutes=20))
    Profile.objects.filter(user=learner).update(time_zone=zone)
    client = Client()
    client.force_login(learner)  # the session keeps the zone: every request runs in it
    client.post(f"/en/quizzes/{quiz.slug}/start/")
    attempt = Attempt.objects.get()
    first, second = quiz.questions.order_by("position")
    assert attempt.deadline == start + timedelta(minutes=20)

    time_machine.move_to(start + timedelta(minutes=1), tick=False)
    answered = client.post(
        f"/en/attempts/{attempt.pk}/questions/1/",
        {"question": first.pk, "choice": correct_choice(first).pk},
    )
    time_machine.move_to(
        start + timedelta(minutes=20) + DEADLINE_GRACE + timedelta(seconds=1), tick=False
    )
    late = client.post(
        f"/en/attempts/{attempt.pk}/questions/2/",
        {"question": second.pk, "choice": correct_choice(second).pk},
    )

    result = f"/en/attempts/{attempt.pk}/result/"
    assert answered.status_code == 302 and answered["Location"] != result
    assert late["Location"] == result
    assert "Time is up" in client.get(result).content.decode()
    assert list(Answer.objects.values_list("question_id", flat=True)) == [first.pk]


def test_the_learners_morning_in_auckland_is_still_the_day_before_in_utc(time_machine):
    eight_am = datetime(2026, 12, 1, 19, 0, tzinfo=UTC)  # 08:00 on 2 December there
    time_machine.move_to(eight_am, tick=False)

    with timezone.override(zoneinfo.ZoneInfo("Pacific/Auckland")):
        assert comes_back(eight_am + timedelta(hours=2)) == "later today at 10 a.m."
        assert comes_back(eight_am + timedelta(hours=17)) == "tomorrow at 1 a.m."
