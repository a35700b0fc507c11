"""An independent GIFT file of every kind: imported with `import_quiz`, published in the
admin, and taken by a learner through the site's own pages."""

from __future__ import annotations

import io
from decimal import Decimal

import pytest
from django.core.management import call_command

from quizzes.models import Attempt, Quiz
from tests import factories
from tests.admin_posts import page_errors, question_rows, save_quiz

from .conftest import DATA

pytestmark = pytest.mark.django_db


def _ids(question, *texts: str) -> list[int]:
    return list(question.choices.filter(text_en__in=texts).values_list("pk", flat=True))


def test_a_gift_file_of_every_kind_is_imported_published_and_taken(
    instructor_client, learner_client
):
    out, err = io.StringIO(), io.StringIO()
    call_command("import_quiz", str(DATA / "kinds-independent.gift"), stdout=out, stderr=err)
    quiz = Quiz.objects.get(slug="zero-and-memory")
    assert "5 question(s) created quiz 'zero-and-memory'" in out.getvalue()
    assert "Essay" in err.getvalue()
    assert list(quiz.questions.values_list("kind", flat=True)) == [
        "multiple",
        "numerical",
        "numerical",
        "truefalse",
        "single",
    ]

    response = save_quiz(instructor_client, quiz, question_rows(quiz), guide=factories.make_guide())
    assert response.status_code == 302, page_errors(response)
    quiz.refresh_from_db()
    assert quiz.is_published

    start = learner_client.post(f"/en/quizzes/{quiz.slug}/start/")
    attempt = Attempt.objects.get(quiz=quiz)
    assert start.status_code == 302
    step = f"/en/attempts/{attempt.pk}/questions/"
    arabic_step = f"/ar/attempts/{attempt.pk}/questions/"
    questions = list(quiz.questions.order_by("position"))

    # 1. Several answers: one right box and one wrong one cancel out.
    page = learner_client.get(f"{step}1/").content.decode()
    assert page.count('type="checkbox"') == 4
    learner_client.post(
        f"{step}1/", {"choice": _ids(questions[0], "Optimizer states", "Gradients")}
    )
    # 2. A number in Arabic-Indic digits, in the Arabic interface; words first, refused.
    refused = learner_client.post(f"{arabic_step}2/", {"number": "ستة عشر"})
    assert refused.status_code == 422
    learner_client.post(f"{arabic_step}2/", {"number": "١٢"})  # half the mark
    # 3. A range.
    learner_client.post(f"{step}3/", {"number": "15.5"})
    # 4. True.
    learner_client.post(f"{step}4/", {"choice": _ids(questions[3], "True")})
    # 5. One answer, wrong.
    learner_client.post(f"{step}5/", {"choice": _ids(questions[4], "Stage 2")})

    attempt.refresh_from_db()
    assert attempt.is_finished
    assert [a.fraction for a in attempt.answers.order_by("question__position")] == [
        1,
        Decimal("0.5"),
        1,
        1,
        0,
    ]
    result = learner_client.get(f"/en/attempts/{attempt.pk}/result/").content.decode()
    assert "3.5 / 5" in result
    assert "Only the optimizer states." in result  # the number's own feedback
