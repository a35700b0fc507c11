"""Faults an audit planted in recent code that the suite let through (issue 52, point 16): each
test here fails with its fault. Two learners where one would hide a join that drops the
learner; choices whose positions differ from the order they were written in, where ordering by
id would pass; an item's place said from 1; parts never shown already in order."""

from __future__ import annotations

import random
import re

import pytest

from quizzes.attempts.services import attempt_start
from quizzes.attempts.state import arranged, parts_in_order
from quizzes.content import content_changed, quiz_content
from quizzes.grading import Response
from quizzes.models import Answer, ReviewCard
from tests.factories import (
    add_matching_question,
    add_multiple_question,
    add_ordering_question,
    correct_choice,
    make_quiz,
    make_user,
    wrong_choice,
)
from tests.steps import post_answer


def test_a_step_answer_moves_only_the_answering_learners_card(learner, other_learner):
    quiz = make_quiz(questions=1)  # each attempt finishes with its answer: a retake is new
    first = quiz.questions.get(position=1)
    for who in (learner, other_learner):
        post_answer(attempt_start(user=who, quiz=quiz), first, choice=wrong_choice(first))
    cards = {card.user_id: card for card in ReviewCard.objects.filter(question=first)}
    before = cards[other_learner.pk]

    retake = attempt_start(user=learner, quiz=quiz)
    post_answer(retake, first, choice=correct_choice(first))

    after = {card.user_id: card for card in ReviewCard.objects.filter(question=first)}
    assert after[learner.pk].reviews == 2
    assert (after[other_learner.pk].reviews, after[other_learner.pk].due) == (
        before.reviews,
        before.due,
    )


def _reversed_choices(quiz):
    """The first question's choices given positions opposite to the order they were written
    in (their ids); returns their texts in position order."""
    question = quiz.questions.get(position=1)
    choices = list(question.choices.order_by("pk"))
    for position, choice in enumerate(reversed(choices), start=1):
        choice.position = position + 100  # clear of the unique positions while moving
        choice.save(update_fields=["position"])
    for position, choice in enumerate(reversed(choices), start=1):
        choice.position = position
        choice.save(update_fields=["position"])
    content_changed(quiz=quiz)
    return question, [choice.text_en for choice in reversed(choices)]


def _in_page_order(page: str, texts: list[str]) -> list[str]:
    """`texts` as the page lists them (each one, once, must be on it)."""
    assert all(page.count(f">{text}<") == 1 for text in texts), texts
    return sorted(texts, key=lambda text: page.index(f">{text}<"))


def test_choices_reordered_in_the_admin_show_in_their_positions_on_the_step_and_preview(
    learner, learner_client, admin_client
):
    quiz = make_quiz(questions=1)
    _question, in_position_order = _reversed_choices(quiz)
    attempt = attempt_start(user=learner, quiz=quiz)

    step = learner_client.get(f"/en/attempts/{attempt.pk}/questions/1/").content.decode()
    preview = admin_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/preview/1/").content.decode()

    for page in (step, preview):
        assert _in_page_order(page, in_position_order) == in_position_order


def test_boxes_ticked_show_in_their_positions_on_the_result(learner, learner_client):
    quiz = make_quiz(questions=0)
    add_multiple_question(quiz, 1, choices=4, right=(1, 2, 3, 4))
    question, in_position_order = _reversed_choices(quiz)
    attempt = attempt_start(user=learner, quiz=quiz)
    ticked = tuple(question.choices.values_list("pk", flat=True))

    post_answer(attempt, question, response=Response(choice_ids=ticked))

    result = learner_client.get(f"/en/attempts/{attempt.pk}/result/").content.decode()
    listed = re.findall(r"Box 1\.\d", result)
    assert listed == [text.replace("Choice", "Box") for text in in_position_order]


def test_an_item_out_of_place_says_where_it_belongs_counted_from_one(learner, learner_client):
    quiz = make_quiz(questions=0)
    question = add_ordering_question(quiz, 1)  # forward, backward, all-reduce, optimizer step
    content_changed(quiz=quiz)
    items = list(question.order_items.order_by("position").values_list("pk", flat=True))
    attempt = attempt_start(user=learner, quiz=quiz)

    # The last step first: the other three are still in order (3 of 4).
    post_answer(attempt, question, response=Response(arrangement=(items[3], *items[:3])))

    answer = Answer.objects.get(attempt=attempt)
    assert answer.fraction == pytest.approx(0.75)
    page = learner_client.get(f"/en/attempts/{attempt.pk}/result/").content.decode()
    said = re.findall(
        r'<span class="hint">(?:<span aria-hidden="true">✓</span> )?([^<]+)</span></li>', page
    )
    assert said == ["belongs at 4", "in order", "in order", "in order"]


@pytest.mark.parametrize("seed", range(200))
def test_two_parts_are_never_offered_already_in_order(seed):
    assert arranged([11, 12], random.Random(seed)) == [12, 11]


def test_a_two_item_question_never_starts_in_order_for_any_learner_or_preview(db):
    quiz = make_quiz(questions=0)
    ordering = add_ordering_question(quiz, 1, items=(("first", "الأول"), ("second", "الثاني")))
    matching = add_matching_question(
        quiz,
        2,
        pairs=(
            ("ZeRO-1", "مرحلة ZeRO-1", "states", "الحالات"),
            ("ZeRO-2", "مرحلة ZeRO-2", "gradients", "التدرجات"),
        ),
    )
    content_changed(quiz=quiz)
    right = {
        ordering.pk: list(ordering.order_items.order_by("position").values_list("pk", flat=True)),
        matching.pk: list(matching.pairs.order_by("position").values_list("pk", flat=True)),
    }
    content = quiz_content(quiz)
    for n in range(30):
        attempt = attempt_start(user=make_user(f"learner-{n}"), quiz=quiz)
        for question_id, in_order in right.items():
            assert attempt.choice_order[str(question_id)] != in_order
            shown = parts_in_order(content.question(question_id), None, seed=f"preview:{n}")
            assert [part.pk for part in shown] != in_order
