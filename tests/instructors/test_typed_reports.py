"""Short-answer, matching and ordering answers in the instructors' reports: the attempts CSV
says what was typed and arranged, the grades report and its CSV give their partial marks."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone, translation
from django.utils.formats import date_format

from quizzes.attempts.services import attempt_start
from quizzes.grading import Response
from quizzes.models import Attempt
from tests import factories
from tests.steps import post_answer

pytestmark = pytest.mark.django_db

CHANGELIST_URL = "/en/admin/quizzes/quiz/"


def _csv(response) -> list[dict[str, str]]:
    body = b"".join(response.streaming_content).decode("utf-8")
    return list(csv.DictReader(io.StringIO(body.removeprefix("\ufeff"))))


@pytest.fixture
def typed_attempt(learner):
    """A finished attempt: a half-right short answer typed with a leading "=" and Arabic,
    ZeRO-1 and ZeRO-2's matches swapped (one of three right), the steps as 1 3 2 4 (three
    of four in the longest run in order)."""
    quiz = factories.make_typed_quiz()
    short, matching, ordering = quiz.questions.order_by("position")
    attempt = attempt_start(user=learner, quiz=quiz)
    post_answer(attempt, short, response=Response(text="=states"))
    pairs = {pair.position: pair.pk for pair in matching.pairs.all()}
    swapped = ((pairs[1], pairs[2]), (pairs[2], pairs[1]), (pairs[3], pairs[3]))
    post_answer(attempt, matching, response=Response(arrangement=swapped))
    items = {item.position: item.pk for item in ordering.order_items.all()}
    order = tuple(items[p] for p in (1, 3, 2, 4))
    post_answer(attempt, ordering, response=Response(arrangement=order))
    assert attempt.finished_at is not None
    return attempt


def test_the_attempts_csv_says_what_was_typed_and_how_it_was_arranged(
    instructor_client, typed_attempt
):
    quiz = typed_attempt.quiz
    # "states" is accepted at half the mark; "=states" is not it, and earns nothing.
    answer = typed_attempt.answers.get(question__position=1)
    assert answer.text == "=states" and answer.fraction == 0

    response = instructor_client.post(
        CHANGELIST_URL, {"action": "export_attempts_csv", "_selected_action": [quiz.pk]}
    )

    short, matching, ordering = _csv(response)
    assert (short["question_kind"], short["text_typed"], short["mark"]) == (
        "short",
        "'=states",
        "0",
    )
    assert short["arrangement"] == ""
    assert matching["arrangement"] == (
        "ZeRO-1 → gradients; ZeRO-2 → optimizer states; ZeRO-3 → parameters"
    )
    assert matching["mark"] == "0.3333"
    assert ordering["arrangement"] == "forward; all-reduce; backward; optimizer step"
    assert ordering["mark"] == "0.75"
    # The matches and the items in the order this attempt showed them, by their positions.
    shown = typed_attempt.choice_order
    pair_positions = {p.pk: p.position for p in quiz.questions.get(position=2).pairs.all()}
    expected = " ".join(str(pair_positions[pk]) for pk in shown[str(matching["question_id"])])
    assert matching["choice_order_shown"] == expected
    assert "?" not in ordering["choice_order_shown"]
    assert sorted(ordering["choice_order_shown"].split()) == ["1", "2", "3", "4"]


def test_the_grades_report_and_its_csv_give_the_partial_marks(instructor_client, typed_attempt):
    quiz = typed_attempt.quiz
    url = f"/en/admin/quizzes/quiz/{quiz.pk}/results"

    page = instructor_client.get(f"{url}/").content.decode()
    body = b"".join(instructor_client.get(f"{url}.csv").streaming_content).decode()

    assert "Amina" in page and "1.08" in page
    header, row = list(csv.reader(io.StringIO(body.removeprefix("\ufeff"))))
    assert header[-3:] == ["Q1", "Q2", "Q3"]
    assert row[-3:] == ["0", "0.3333", "0.75"]
    assert row[6:8] == ["1.0833", "3"]


def test_the_review_of_the_attempt_shows_the_typed_text_and_the_arrangement(
    instructor_client, typed_attempt
):
    quiz = typed_attempt.quiz

    response = instructor_client.get(
        f"/en/admin/quizzes/quiz/{quiz.pk}/results/{typed_attempt.pk}/"
    )

    page = response.content.decode()
    assert response.status_code == 200
    assert "=states" in page
    assert "gradients" in page and "all-reduce" in page


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_grades_report_and_a_learners_record_give_dates_in_the_sites_own_format(
    instructor_client, typed_attempt, lang
):
    started = datetime(2026, 12, 5, 10, 6, tzinfo=UTC)
    Attempt.objects.filter(pk=typed_attempt.pk).update(
        started_at=started, finished_at=started + timedelta(minutes=4)
    )
    quiz = typed_attempt.quiz
    with translation.override(lang):
        said = date_format(timezone.localtime(started), "DATETIME_FORMAT")
        short = date_format(timezone.localtime(started), "SHORT_DATETIME_FORMAT")
    assert said != short

    grades = instructor_client.get(f"/{lang}/admin/quizzes/quiz/{quiz.pk}/results/")
    record = instructor_client.get(f"/{lang}/admin/quizzes/quiz/learners/{typed_attempt.user_id}/")

    for page in (grades.content.decode(), record.content.decode()):
        assert said in page
        assert short not in page
