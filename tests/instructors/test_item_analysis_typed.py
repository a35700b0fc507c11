"""Item analysis of short-answer, matching and ordering questions: the wrong answers typed
(grouped as the grading matches them), the confused pairs, the items put in their place."""

from __future__ import annotations

import pytest
from django.utils import translation

from quizzes.attempts.services import attempt_start
from quizzes.grading import Response
from quizzes.instructors.item_analysis import item_analysis
from quizzes.short_answers import folded
from tests import factories
from tests.steps import post_answer

pytestmark = pytest.mark.django_db

# Per learner: the short answer typed, the prompts whose matches were swapped or mistaken
# (prompt → match, by English text), the items' order (positions in the right order).
ANSWERS = [
    ("Optimizer States", {}, [1, 2, 3, 4]),
    ("gradients", {"ZeRO-1": "gradients", "ZeRO-2": "optimizer states"}, [1, 3, 2, 4]),
    ("  Gradients.", {"ZeRO-1": "gradients", "ZeRO-2": "optimizer states"}, [4, 3, 2, 1]),
    ("gradients", {"ZeRO-3": "activations"}, [1, 2, 3, 4]),
    ("الْمُعَامِلَات", {}, [1, 2, 3, 4]),
    ("المعاملات،\u200b", {}, [1, 2, 3, 4]),
    ("states", {}, [1, 2, 3, 4]),  # half the mark: not among the wrong answers
]


@pytest.fixture
def typed_quiz():
    quiz = factories.make_typed_quiz()
    short, matching, ordering = quiz.questions.order_by("position")
    pairs = {pair.prompt_en or pair.match_en: pair for pair in matching.pairs.all()}
    by_match = {pair.match_en: pair for pair in matching.pairs.all()}
    items = {item.position: item for item in ordering.order_items.all()}
    for n, (typed, mistakes, order) in enumerate(ANSWERS, start=1):
        attempt = attempt_start(user=factories.make_user(f"learner{n}"), quiz=quiz)
        post_answer(attempt, short, response=Response(text=typed))
        picked = tuple(
            (pairs[prompt].pk, by_match[mistakes.get(prompt, pairs[prompt].match_en)].pk)
            for prompt in ("ZeRO-1", "ZeRO-2", "ZeRO-3")
        )
        post_answer(attempt, matching, response=Response(arrangement=picked))
        arranged = tuple(items[position].pk for position in order)
        post_answer(attempt, ordering, response=Response(arrangement=arranged))
        assert attempt.finished_at is not None
    return quiz


def test_the_most_common_wrong_short_answers_are_grouped_as_the_grading_matches_them(typed_quiz):
    with translation.override("en"):
        short = item_analysis(typed_quiz).items[0]

    assert short.answers == 7
    rows = sorted(((folded(row.text), row.count) for row in short.typed), key=lambda r: -r[1])
    # "gradients" typed three ways (a final full stop one of them) is one answer; the Arabic
    # with its diacritics, and without them but with a final comma and a zero-width space, is
    # one; the half-right "states" is not a wrong answer.
    assert rows == [("gradients", 3), (folded("المعاملات"), 2)]
    assert short.typed[0].text == "gradients"  # as most learners typed it
    assert short.typed[0].share_percent == 43


def test_the_most_confused_pairs_are_each_prompt_with_the_wrong_match_picked(typed_quiz):
    with translation.override("en"):
        matching = item_analysis(typed_quiz).items[1]

    confused = {(row.text, row.other): row.count for row in matching.typed}
    assert confused == {
        ("ZeRO-1", "gradients"): 2,
        ("ZeRO-2", "optimizer states"): 2,
        ("ZeRO-3", "activations"): 1,
    }


def test_ordering_counts_each_item_put_in_its_place_and_its_facility_is_the_mean_mark(
    typed_quiz,
):
    with translation.override("en"):
        ordering = item_analysis(typed_quiz).items[2]

    assert [(row.place, row.text, row.count) for row in ordering.typed] == [
        (1, "forward", 6),
        (2, "backward", 5),
        (3, "all-reduce", 5),
        (4, "optimizer step", 6),
    ]
    # Five in order, 1 3 2 4 (three of four in the longest run in order), 4 3 2 1 (one).
    assert ordering.facility == pytest.approx((5 + 0.75 + 0.25) / 7)


def test_the_instructor_reads_them_on_the_item_analysis_page(instructor_client, typed_quiz):
    page = instructor_client.get(
        f"/en/admin/quizzes/quiz/{typed_quiz.pk}/item-analysis/"
    ).content.decode()

    assert "Most common wrong answers to question 1" in page
    assert "Most confused pairs of question 2" in page
    assert "ZeRO-1 → gradients" in page
    assert "Items of question 3 put in their place" in page
    assert "Put in its place in 86% of the answers" in page
    arabic = instructor_client.get(
        f"/ar/admin/quizzes/quiz/{typed_quiz.pk}/item-analysis/"
    ).content.decode()
    assert "مرحلة ZeRO-1 ← التدرّجات" in arabic  # the arrow points the way Arabic reads
