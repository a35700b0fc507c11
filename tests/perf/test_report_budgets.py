"""Query budgets of the instructors' reports and the learner's export (issue 58): as many
statements for a quiz of 400 attempts as for one of 40; the CSV's rows the same whatever the
size of the chunks it reads."""

import csv
import io
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from quizzes.instructors import exports, grades
from quizzes.models import Answer, Attempt
from tests.factories import make_instructor, make_quiz, make_user

pytestmark = pytest.mark.django_db


def _add_attempts(quiz, learner, count: int) -> None:
    """`count` more finished attempts of `learner`, each answering every question (the first
    right, the others wrong), written in bulk."""
    questions = list(quiz.questions.order_by("position").prefetch_related("choices"))
    start = timezone.now() - timedelta(days=30)
    done = Attempt.objects.filter(quiz=quiz).count()
    attempts = Attempt.objects.bulk_create(
        Attempt(
            user=learner,
            quiz=quiz,
            started_at=start + timedelta(minutes=n),
            finished_at=start + timedelta(minutes=n, seconds=90),
            score=1,
            total=len(questions),
        )
        for n in range(done, done + count)
    )
    answers = []
    for attempt in attempts:
        for index, question in enumerate(questions):
            choices = list(question.choices.all())
            right = next(choice for choice in choices if choice.is_correct)
            chosen = right if index == 0 else next(c for c in choices if not c.is_correct)
            answers.append(
                Answer(
                    attempt=attempt,
                    question=question,
                    choice=chosen,
                    correct_choice=right,
                    is_correct=chosen == right,
                    fraction=int(chosen == right),
                    answered_at=attempt.started_at + timedelta(seconds=30),
                )
            )
    Answer.objects.bulk_create(answers)


def _statements(client: Client, path: str) -> tuple[int, bytes]:
    client.get(path)  # warm: the content's cache, the session
    with CaptureQueriesContext(connection) as statements:
        response = client.get(path)
        body = b"".join(response.streaming_content) if response.streaming else response.content
    assert response.status_code == 200
    return len(statements.captured_queries), body


@pytest.fixture
def world():
    quiz = make_quiz(questions=4)
    learner = make_user("layla")
    client = Client()
    client.force_login(make_instructor("ustadh"))
    return quiz, learner, client


@pytest.mark.parametrize(
    "path",
    [
        "/en/admin/quizzes/quiz/{quiz}/results/",
        "/en/admin/quizzes/quiz/{quiz}/results/?o=started",
        "/en/admin/quizzes/quiz/{quiz}/results.csv",
        "/en/admin/quizzes/quiz/learners/{learner}/",
    ],
)
def test_a_report_makes_as_many_statements_for_400_attempts_as_for_40(world, path):
    quiz, learner, client = world
    path = path.format(quiz=quiz.pk, learner=learner.pk)
    counts = []
    for size in (40, 400):
        _add_attempts(quiz, learner, size - Attempt.objects.filter(quiz=quiz).count())
        counts.append(_statements(client, path)[0])
    assert counts[0] == counts[1]


def test_the_grades_csv_is_the_same_read_in_chunks_of_three_and_sent_in_small_pieces(
    world, monkeypatch
):
    quiz, learner, client = world
    _add_attempts(quiz, learner, 10)
    path = f"/en/admin/quizzes/quiz/{quiz.pk}/results.csv"
    whole = _statements(client, path)[1]
    monkeypatch.setattr(grades, "CSV_CHUNK", 3)
    monkeypatch.setattr(exports, "CSV_PIECE", 100)

    response = client.get(path)

    assert response.streaming
    pieces = list(response.streaming_content)
    assert len(pieces) > 5
    assert b"".join(pieces) == whole
    rows = list(csv.reader(io.StringIO(whole.decode("utf-8-sig"))))
    assert len(rows) == 1 + 10
    assert [row[-4:] for row in rows[1:]] == [["1", "0", "0", "0"]] * 10
