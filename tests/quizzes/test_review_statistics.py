"""The review statistics page: questions due per day (an SVG chart with a table), reviews
done, retention over 30 days, cards by state; in the learner's zone, mirrored in Arabic."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.utils import timezone

from quizzes.models import ReviewAnswer, ReviewCard
from quizzes.review.scheduler import card_of, card_record_quiz_answer
from quizzes.statistics import review_statistics
from tests.factories import make_quiz
from tests.steps import bystander_on

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 2, 22, 30, tzinfo=UTC)


@pytest.fixture
def cards(learner):
    """Five cards: overdue, due in 1 hour (the next day in Riyadh), in 3 days, in 40 days, and
    one missed five days ago and not reviewed since (new, overdue); beside them, the bystander's
    five of the same questions, all overdue, and their review answer."""
    quiz = make_quiz(questions=5)
    bystander_on(quiz)
    questions = list(quiz.questions.order_by("position"))
    for question in questions:
        card_record_quiz_answer(
            card_of(learner.pk, question.pk),
            user_id=learner.pk,
            question_id=question.pk,
            is_correct=False,
            at=NOW - timedelta(days=5),
        )
    dues = [
        NOW - timedelta(days=1),
        NOW + timedelta(hours=1),
        NOW + timedelta(days=3),
        NOW + timedelta(days=40),
    ]
    for question, due in zip(questions, dues, strict=False):
        ReviewCard.objects.filter(user=learner, question=question).update(
            due=due, state=ReviewCard.State.REVIEW, reviews=4
        )
    ReviewCard.objects.filter(user=learner, question=questions[2]).update(
        state=ReviewCard.State.RELEARNING
    )
    card = ReviewCard.objects.get(user=learner, question=questions[0])
    for days_ago, right in ((2, True), (3, True), (4, False), (45, False)):
        ReviewAnswer.objects.create(
            user=learner,
            question=questions[0],
            card=card,
            revision=days_ago,
            is_correct=right,
            answered_at=NOW - timedelta(days=days_ago),
        )
    return questions


@time_machine.travel(NOW, tick=False)
def test_counts_per_day_reviews_retention_and_states(learner, cards):
    stats = review_statistics(user_id=learner.pk)

    # Today: the two overdue and the one due in an hour.
    assert [day.count for day in stats.days[:4]] == [3, 0, 0, 1]
    assert sum(day.count for day in stats.days) == 4 and stats.later == 1
    assert (stats.reviews, stats.reviews_recent, stats.retention) == (4, 3, 67)
    assert stats.states == {"new": 1, "learning": 0, "review": 3, "relearning": 1}


@pytest.mark.site_time_zone("UTC")
@time_machine.travel(NOW, tick=False)
def test_days_are_the_learners_own(learner, cards):
    # 08:30 UTC on the 3rd: tomorrow in UTC, already today in Riyadh (01:30 on the 3rd now).
    ReviewCard.objects.filter(user=learner, question=cards[1]).update(due=NOW + timedelta(hours=10))

    utc = review_statistics(user_id=learner.pk)
    with timezone.override(ZoneInfo("Asia/Riyadh")):
        riyadh = review_statistics(user_id=learner.pk)

    assert [day.count for day in utc.days[:2]] == [2, 1]
    assert riyadh.days[0].day.isoformat() == "2026-11-03"
    assert [day.count for day in riyadh.days[:2]] == [3, 0]


@time_machine.travel(NOW, tick=False)
def test_the_page_draws_a_labelled_chart_with_a_table_in_few_queries(
    learner_client, cards, django_assert_max_num_queries
):
    learner_client.get("/en/review/statistics/")
    # The cards, the review answers, the calibration by level (issue 56), the session, the user.
    with django_assert_max_num_queries(5):
        response = learner_client.get("/en/review/statistics/")

    page = response.content.decode()
    assert response.status_code == 200
    assert 'role="img"' in page and '<title id="due-chart-title">' in page
    said = " ".join(page.split())
    # Due now: the overdue two; later today: the one due in an hour (23:30 UTC).
    assert "2 questions are due now. 1 more comes back later today." in said
    assert "1 more comes back after these 30 days." in said
    assert "Today: due now and later today" in said  # the chart's legend
    assert "<td>3</td>" in page  # the table
    assert "67%" in page
    assert "style=" not in page


def _today_bar_x(page: str) -> float:
    return float(re.search(r'due-chart__bar due-chart__bar--today" x="([\d.]+)"', page).group(1))


@time_machine.travel(NOW, tick=False)
def test_the_chart_runs_right_to_left_in_arabic(learner_client, cards):
    english = learner_client.get("/en/review/statistics/").content.decode()
    arabic = learner_client.get("/ar/review/statistics/").content.decode()

    assert _today_bar_x(english) < 50
    assert _today_bar_x(arabic) > 550
    assert 'lang="ar"' in arabic


def test_a_learner_without_cards_sees_no_chart(learner_client):
    page = learner_client.get("/en/review/statistics/").content.decode()
    assert "<svg" not in page.split("<main", 1)[-1] or "due-chart" not in page
    assert "No reviews yet" in page


def test_the_review_page_links_to_statistics(learner_client):
    assert 'href="/en/review/statistics/"' in learner_client.get("/en/review/").content.decode()


@pytest.mark.site_time_zone("UTC")
@time_machine.travel(NOW, tick=False)
def test_the_charts_dates_are_day_first_in_arabic_as_its_table_is(learner_client, cards):
    arabic = learner_client.get("/ar/review/statistics/").content.decode()
    english = learner_client.get("/en/review/statistics/").content.decode()

    labels = re.findall(r'class="due-chart__label"[^>]*>([^<]+)</text>', arabic)
    assert labels[0] == "اليوم" and "9 نوفمبر" in labels, labels
    assert not [label for label in labels if re.fullmatch(r"\D+ \d+", label)]
    assert "Nov 9" in re.findall(r'class="due-chart__label"[^>]*>([^<]+)</text>', english)
