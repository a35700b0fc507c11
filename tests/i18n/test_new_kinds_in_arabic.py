"""The three new kinds as an Arabic reader meets them (issue 53): matching in plain words
(«البند»، «اختيارك»، «الإجابة الصحيحة»), ordering's feedback that tells the truth («في تسلسله
الصحيح» for the longest run in order, «موضعه الصحيح: 3» otherwise), the right short answers in
the page's language only, and the words around them («المراجعة»، «الشرح»)."""

from __future__ import annotations

import re

import pytest

from quizzes.attempts.services import attempt_start
from quizzes.content import content_changed
from quizzes.grading import Response
from tests.arabic_wording import problems, read
from tests.factories import (
    add_matching_question,
    add_ordering_question,
    add_short_question,
    make_quiz,
)
from tests.steps import post_answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(learner):
    """A finished attempt: a short answer wrong, one match wrong, the items in the order
    all-reduce, forward, backward, optimizer step (the last three a run in order)."""
    quiz = make_quiz(questions=0)
    short = add_short_question(
        quiz,
        1,
        accepted=(
            ("optimizer states", "حالات المحسّن", 1, False),
            ("the optimizer states", "", 1, False),  # no Arabic: not listed on /ar/
            ("states", "", 0.5, False),
        ),
    )
    matching = add_matching_question(quiz, 2)
    ordering = add_ordering_question(quiz, 3)
    content_changed(quiz=quiz)
    attempt = attempt_start(user=learner, quiz=quiz)
    post_answer(attempt, short, response=Response(text="التدرّجات"))
    pairs = {pair.prompt_en or pair.match_en: pair for pair in matching.pairs.all()}
    picked = (
        (pairs["ZeRO-1"].pk, pairs["ZeRO-1"].pk),
        (pairs["ZeRO-2"].pk, pairs["ZeRO-2"].pk),
        (pairs["ZeRO-3"].pk, pairs["activations"].pk),
    )
    post_answer(attempt, matching, response=Response(arrangement=picked))
    items = {item.position: item.pk for item in ordering.order_items.all()}
    post_answer(
        attempt, ordering, response=Response(arrangement=tuple(items[p] for p in (3, 1, 2, 4)))
    )
    assert attempt.finished_at is not None
    return attempt


def _result(client, attempt) -> str:
    response = client.get(f"/ar/attempts/{attempt.pk}/result/")
    assert response.status_code == 200
    return response.content.decode()


def test_matching_says_prompt_pick_and_right_answer_in_plain_words(learner_client, answered):
    page = _result(learner_client, answered)

    headers = re.search(r'<table class="match-review">\s*<thead>(.*?)</thead>', page, re.S)[1]
    assert re.findall(r"<th[^>]*>([^<]+)</th>", headers) == ["البند", "اختيارك", "الإجابة الصحيحة"]
    assert "مطابِق" not in page


def test_ordering_marks_the_run_in_order_and_says_where_the_others_belong(learner_client, answered):
    page = _result(learner_client, answered)

    rows = re.findall(
        r'<li class="order-review--(right|wrong)">(.*?)<span class="hint">(.*?)</span></li>',
        page,
        re.S,
    )
    said = [
        (verdict, text.strip(), " ".join(re.sub(r"<[^>]+>", "", hint).split()))
        for verdict, text, hint in rows
    ]
    assert said == [
        ("wrong", "الاختزال الشامل", "موضعه الصحيح: 3"),
        ("right", "التمرير الأمامي", "✓ في تسلسله الصحيح"),
        ("right", "التمرير الخلفي", "✓ في تسلسله الصحيح"),
        ("right", "خطوة المحسّن", "✓ في تسلسله الصحيح"),
    ]
    assert "في مكانه" not in page


def test_the_right_short_answers_are_listed_in_the_pages_language_only(learner_client, answered):
    page = _result(learner_client, answered)
    english = learner_client.get(f"/en/attempts/{answered.pk}/result/").content.decode()

    right = re.search(r"<dt>الإجابة الصحيحة</dt><dd[^>]*>([^<]*)</dd>", page)[1]
    assert right == "حالات المحسّن"
    right = re.search(r"<dt>Correct answer</dt><dd[^>]*>([^<]*)</dd>", english)[1]
    assert right == "optimizer states · the optimizer states"


def test_the_step_of_a_matching_question_asks_in_plain_words(learner_client, learner):
    quiz = make_quiz(questions=0)
    add_matching_question(quiz, 1)
    content_changed(quiz=quiz)
    attempt = attempt_start(user=learner, quiz=quiz)

    page = learner_client.get(f"/ar/attempts/{attempt.pk}/questions/1/").content.decode()

    assert "اختر لكل بند ما يقابله. قد يبقى أحد الخيارات بلا مقابل." in page
    assert '<option value="">اختر…</option>' in page
    assert problems(page) == []


def test_the_navigation_and_the_explanation_say_the_review_and_the_explanation(
    learner_client, learner
):
    quiz = make_quiz(questions=1)
    attempt = attempt_start(user=learner, quiz=quiz)
    question = quiz.questions.get()
    post_answer(attempt, question, choice=question.choices.order_by("position").first())

    page = learner_client.get(f"/ar/attempts/{attempt.pk}/questions/1/").content.decode()

    nav = re.search(r"<nav[^>]*>(.*?)</nav>", page, re.S)[1]
    assert "المراجعة" in read(nav)[0]
    assert re.search(r'class="explanation__title"[^>]*>الشرح<', page)
