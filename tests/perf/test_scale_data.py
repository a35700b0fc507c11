"""The data-scale benchmark's data (bench/scale.py) are rows the site reads: built at a tiny
size with the bench's own COPY, the pages it measures show them. Its COPY lists columns by
hand, so a new NOT NULL column (confidence on attempts, sure_miss on cards) broke
`make bench-scale` silently before this test; it now fails here instead."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from bench import scale
from quizzes.instructors.grades import PER_PAGE
from quizzes.models import Answer, Attempt, ReviewAnswer, ReviewCard
from tests.factories import make_user

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="COPY: PostgreSQL (.ci/run runs it)"
    ),
]


@pytest.fixture
def tiny(monkeypatch):
    """The bench's sizes, shrunk: the large is three times the small."""
    for name, value in {
        "HUNDRED": 3,
        "HISTORY_QUIZZES": 2,
        "QUESTIONS_PER_ATTEMPT": 3,
        "CARD_QUIZZES": 2,
        "CARD_QUESTIONS": 5,
        "SMALL_CARDS": 3,
        "GRADES_QUESTIONS": 2,
        "SMALL_GRADES_ATTEMPTS": 5,
    }.items():
        monkeypatch.setattr(scale, name, value)
    # Without its VACUUM ANALYZE: statistics of these few rows would outlive the test and
    # steer the plans of the next tests in this database.
    return scale.build(analyse=False)


def test_the_scale_benchmarks_learners_see_their_made_history_review_and_export(tiny, client):
    large = int(tiny.large_learner["pk"])
    assert Attempt.objects.filter(user_id=large).count() == 2 * 3
    assert Answer.objects.filter(attempt__user_id=large).count() == 2 * 3 * 3
    assert ReviewCard.objects.filter(user_id=large).count() == 3 * 3
    assert ReviewAnswer.objects.filter(user_id=large).count() == 3 * 3

    client.cookies["sessionid"] = tiny.large_learner["session"]
    history = client.get("/en/attempts/")
    assert history.status_code == 200
    assert len(history.context["page"].object_list) == 6
    assert [summary.attempts for summary in history.context["summaries"]] == [3, 3]

    review = client.get("/en/review/")
    assert review.status_code == 200
    statistics = client.get("/en/review/statistics/")
    assert statistics.context["stats"].cards == 9

    export = json.loads(b"".join(client.get("/en/accounts/profile/data.json").streaming_content))
    assert len(export["attempts"]) == 6
    assert sum(len(attempt["answers"]) for attempt in export["attempts"]) == 18


def test_the_scale_benchmarks_grades_quizzes_are_reported_to_their_instructor(tiny, client):
    assert tiny.answers == {"small": 5 * 2, "large": 15 * 2}
    client.force_login(make_user("Ustadha", is_staff=True, is_superuser=True))

    report = client.get(f"/en/admin/quizzes/quiz/{tiny.large_quiz}/results/")
    assert report.status_code == 200
    assert report.context["report"].page.paginator.count == 15
    assert report.context["report"].histogram.attempts_total == 15
    csv_lines = b"".join(
        client.get(f"/en/admin/quizzes/quiz/{tiny.large_quiz}/results.csv").streaming_content
    ).splitlines()
    assert len(csv_lines) == 1 + 15
    analysis = client.get(f"/en/admin/quizzes/quiz/{tiny.large_quiz}/item-analysis/")
    assert analysis.status_code == 200
    record = client.get(f"/en/admin/quizzes/quiz/learners/{tiny.large_learner['pk']}/")
    assert record.status_code == 200
    assert record.context["page"].paginator.count == 6
    # The record measured small: a whole page of rows, as the large learner's first page.
    full = client.get(f"/en/admin/quizzes/quiz/learners/{tiny.record_learner['pk']}/")
    assert len(full.context["page"].object_list) == PER_PAGE
    assert not full.context["page"].has_next()
