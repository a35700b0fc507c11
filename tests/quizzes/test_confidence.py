"""Confidence with each answer (issue 56): the setting, the radio group `confidence`, the
certainty-based marks and what a level does to review."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.utils import timezone

from accounts.privacy import account_delete, account_export_json
from quizzes.attempts.services import attempt_start, attempt_submit_all
from quizzes.confidence import cbm_grade, cbm_mark
from quizzes.content import content_changed
from quizzes.grading import Response
from quizzes.models import Answer, Attempt, Question, ReviewAnswer, ReviewCard
from tests.factories import (
    add_matching_question,
    add_ordering_question,
    add_short_question,
    correct_choice,
    make_mixed_quiz,
    make_quiz,
    wrong_choice,
)
from tests.steps import post_answer, right_answer_data


def every_kind_quiz(**fields):
    """One question of each kind: single, multiple, true/false, number (8 earns half),
    short answer, matching, ordering."""
    quiz = make_mixed_quiz(**fields)
    add_short_question(quiz, 5)
    add_matching_question(quiz, 6)
    add_ordering_question(quiz, 7)
    content_changed(quiz=quiz)
    return quiz


def step_url(attempt, number: int) -> str:
    return f"/en/attempts/{attempt.pk}/questions/{number}/"


@pytest.mark.parametrize(
    ("fraction", "level", "mark"),
    [
        (Decimal(1), 1, Decimal(1)),
        (Decimal(0), 1, Decimal(0)),
        (Decimal(1), 2, Decimal(2)),
        (Decimal(0), 2, Decimal(-2)),
        (Decimal(1), 3, Decimal(3)),
        (Decimal(0), 3, Decimal(-6)),
        (Decimal("0.5"), 3, Decimal("1.5")),
        (Decimal("0.5"), 2, Decimal(1)),
    ],
)
def test_certainty_based_marks_follow_moodles_table_and_scale_a_partial_answer(
    fraction, level, mark
):
    assert cbm_mark(fraction, level) == mark


def test_the_grade_is_the_averages_share_of_three_and_nothing_at_or_below_zero():
    assert cbm_grade(Decimal(9), 3) == 1
    assert cbm_grade(Decimal(3), 3) == Decimal(1) / 3
    assert cbm_grade(Decimal(-2), 3) == 0


def test_a_quiz_that_does_not_ask_shows_no_levels_and_records_none_sent(
    db, learner, learner_client
):
    quiz = make_quiz(questions=2)
    attempt = attempt_start(user=learner, quiz=quiz)
    page = learner_client.get(f"/en/attempts/{attempt.pk}/questions/1/").content.decode()
    assert 'name="confidence"' not in page

    post_answer(
        attempt,
        quiz.questions.get(position=1),
        choice=correct_choice(quiz.questions.get(position=1)),
        confidence=3,
    )

    assert Answer.objects.get(attempt=attempt).confidence is None


def test_a_quiz_that_asks_shows_three_levels_and_refuses_an_answer_without_one(
    db, learner, learner_client
):
    quiz = make_quiz(questions=2, confidence="ask")
    attempt = attempt_start(user=learner, quiz=quiz)
    first = quiz.questions.get(position=1)
    page = learner_client.get(f"/en/attempts/{attempt.pk}/questions/1/").content.decode()
    for value, name in (("1", "Not sure"), ("2", "Fairly sure"), ("3", "Very sure")):
        assert f'name="confidence" value="{value}"' in page and name in page

    for level in ("", "0", "4", "x", "٣"):
        data = {"question": first.pk, "choice": correct_choice(first).pk}
        if level:
            data["confidence"] = level
        response = learner_client.post(f"/en/attempts/{attempt.pk}/questions/1/", data)
        assert response.status_code == 422
    assert not Answer.objects.filter(attempt=attempt).exists()

    learner_client.post(
        f"/en/attempts/{attempt.pk}/questions/1/",
        {"question": first.pk, "choice": correct_choice(first).pk, "confidence": "2"},
    )
    assert Answer.objects.get(attempt=attempt).confidence == 2


def test_asking_leaves_the_score_as_it_was_and_marking_keeps_the_cbm_sum(db, learner):
    for mode, expected_cbm in (("ask", None), ("marking", Decimal(-2))):
        quiz = make_quiz(questions=3, confidence=mode)
        attempt = attempt_start(user=learner, quiz=quiz)
        one, two, three = quiz.questions.order_by("position")
        post_answer(attempt, one, choice=correct_choice(one), confidence=3)
        post_answer(attempt, two, choice=wrong_choice(two), confidence=3)
        post_answer(attempt, three, choice=correct_choice(three), confidence=1)
        attempt.refresh_from_db()
        assert attempt.score == 2 and attempt.total == 3
        assert attempt.cbm_score == expected_cbm
        assert attempt.grade_score == (2 if mode == "ask" else 0)


def test_a_right_guess_creates_a_card_and_a_sure_miss_is_offered_first_and_said_so(
    db, learner, learner_client
):
    quiz = make_quiz(questions=3, confidence="ask")
    attempt = attempt_start(user=learner, quiz=quiz)
    one, two, three = quiz.questions.order_by("position")
    post_answer(attempt, one, choice=wrong_choice(one), confidence=1)
    post_answer(attempt, two, choice=correct_choice(two), confidence=1)
    post_answer(attempt, three, choice=wrong_choice(three), confidence=3)

    guess = ReviewCard.objects.get(user=learner, question=two)
    sure = ReviewCard.objects.get(user=learner, question=three)
    assert not guess.sure_miss and sure.sure_miss
    assert sure.due <= timezone.now() + timedelta(minutes=10)

    ReviewCard.objects.filter(user=learner).update(due=timezone.now() - timedelta(days=1))
    ReviewCard.objects.filter(pk=sure.pk).update(due=timezone.now() - timedelta(hours=1))
    page = learner_client.get("/en/review/").content.decode()
    assert "You were sure of this" in page
    assert f'name="question" value="{three.pk}"' in page


@pytest.mark.parametrize("mode", ["ask", "marking"])
def test_every_kind_of_question_takes_a_level_and_keeps_it_with_its_answer(
    db, learner, learner_client, mode
):
    quiz = every_kind_quiz(confidence=mode)
    learner_client.post(f"/en/quizzes/{quiz.slug}/start/")
    attempt = Attempt.objects.get(user=learner, quiz=quiz)
    questions = list(quiz.questions.order_by("position"))
    assert {q.kind for q in questions} == {kind for kind, _label in Question.Kind.choices}
    for number, question in enumerate(questions, start=1):
        page = learner_client.get(step_url(attempt, number)).content.decode()
        assert page.count('name="confidence"') == 3, question.kind
        data = {"question": question.pk, **right_answer_data(attempt, question)}
        refused = learner_client.post(step_url(attempt, number), data)
        assert refused.status_code == 422, question.kind
        level = 1 + number % 3
        answered = learner_client.post(step_url(attempt, number), {**data, "confidence": level})
        assert answered.status_code in (200, 302), question.kind
        assert Answer.objects.get(attempt=attempt, question=question).confidence == level

    attempt.refresh_from_db()
    assert attempt.is_finished and attempt.score == len(questions)
    levels = [1 + number % 3 for number in range(1, len(questions) + 1)]
    if mode == "ask":
        assert attempt.cbm_score is None and attempt.grade_score == attempt.score
    else:
        assert attempt.cbm_score == sum(levels)  # every answer right: its level's mark
        assert attempt.grade_score == (Decimal(sum(levels)) / 3).quantize(Decimal("0.0001"))


def test_levels_outside_one_to_three_are_refused_on_every_kind_and_record_nothing(
    db, learner, learner_client
):
    quiz = every_kind_quiz(confidence="marking")
    learner_client.post(f"/en/quizzes/{quiz.slug}/start/")
    attempt = Attempt.objects.get(user=learner, quiz=quiz)
    for number, question in enumerate(quiz.questions.order_by("position"), start=1):
        data = {"question": question.pk, **right_answer_data(attempt, question)}
        for level in ("0", "4", "-1", "1.5", "high", "٢", ""):
            response = learner_client.post(step_url(attempt, number), {**data, "confidence": level})
            assert response.status_code == 422, (question.kind, level)
            assert 'id="confidence-error"' in response.content.decode()
        assert not Answer.objects.filter(attempt=attempt, question=question).exists()
        assert not ReviewCard.objects.filter(user=learner).exists()
        learner_client.post(step_url(attempt, number), {**data, "confidence": "2"})
    assert Answer.objects.filter(attempt=attempt, confidence=2).count() == 7


def test_with_confidence_off_the_pages_and_the_score_are_as_they_were(db, learner, learner_client):
    quiz = make_quiz(questions=2)
    assert quiz.confidence == "off"
    detail = learner_client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    assert "how sure" not in detail.lower()
    learner_client.post(f"/en/quizzes/{quiz.slug}/start/")
    attempt = Attempt.objects.get(user=learner, quiz=quiz)
    one, two = quiz.questions.order_by("position")
    learner_client.post(
        step_url(attempt, 1), {"question": one.pk, "choice": correct_choice(one).pk}
    )
    learner_client.post(
        step_url(attempt, 2),
        {"question": two.pk, "choice": wrong_choice(two).pk, "confidence": "3"},
    )
    attempt.refresh_from_db()
    assert (attempt.score, attempt.cbm_score, attempt.grade_score) == (1, None, 1)
    assert list(Answer.objects.filter(attempt=attempt).values_list("confidence", flat=True)) == [
        None,
        None,
    ]
    assert not ReviewCard.objects.get(user=learner, question=two).sure_miss
    for path in (f"/en/attempts/{attempt.pk}/result/", "/en/attempts/", "/en/review/statistics/"):
        response = learner_client.get(path)
        assert response.status_code == 200, path
        page = response.content.decode()
        assert "confidence" not in page and "Very sure" not in page, path
        assert "Graded by certainty" not in page, path


def test_the_quiz_page_says_before_starting_how_each_setting_uses_the_levels(db, learner_client):
    asks = make_quiz(confidence="ask")
    marks = make_quiz(confidence="marking")
    assert (
        "It does not change your score"
        in learner_client.get(f"/en/quizzes/{asks.slug}/").content.decode()
    )
    page = learner_client.get(f"/ar/quizzes/{marks.slug}/").content.decode()
    assert "وعليها تتوقف علاماتك" in page


def test_certainty_based_marking_scales_a_partly_right_answer_by_its_fraction(db, learner):
    quiz = make_mixed_quiz(confidence="marking")
    attempt = attempt_start(user=learner, quiz=quiz)
    single, multiple, truefalse, number = quiz.questions.order_by("position")
    post_answer(attempt, single, choice=correct_choice(single), confidence=2)  # 2
    post_answer(attempt, multiple, choice=wrong_choice(multiple), confidence=1)  # wrong: 0
    post_answer(attempt, truefalse, choice=wrong_choice(truefalse), confidence=2)  # -2
    post_answer(attempt, number, response=Response(number=Decimal(8)), confidence=3)  # 3 × 0.5

    attempt.refresh_from_db()
    assert Answer.objects.get(attempt=attempt, question=number).fraction == Decimal("0.5")
    assert attempt.cbm_score == Decimal("1.5")
    # An average of 1.5 / 4 out of 3: an eighth of the four marks.
    assert attempt.grade_score == Decimal("0.5")
    assert attempt.grade_percent == 12 and attempt.percent == 38


def test_the_result_shows_accuracy_the_cbm_average_on_its_true_range_and_each_level(
    db, learner, learner_client
):
    quiz = make_quiz(questions=4, confidence="marking")
    attempt = attempt_start(user=learner, quiz=quiz)
    q = list(quiz.questions.order_by("position"))
    post_answer(attempt, q[0], choice=correct_choice(q[0]), confidence=3)
    post_answer(attempt, q[1], choice=correct_choice(q[1]), confidence=3)
    post_answer(attempt, q[2], choice=wrong_choice(q[2]), confidence=3)
    post_answer(attempt, q[3], choice=correct_choice(q[3]), confidence=1)

    page = learner_client.get(f"/en/attempts/{attempt.pk}/result/").content.decode()
    # (3 + 3 − 6 + 1) / 4 = 0.25; accuracy 3 of 4; grade 0.25 / 3 ≈ 8 %.
    assert "Certainty-based average: 0.25 (from −6 to 3)." in page
    assert "Accuracy 75%; grade 8%." in page
    assert '<th scope="row">Very sure</th><td>3</td><td>2 (67%)</td>' in page
    assert '<th scope="row">Not sure</th><td>1</td><td>1 (100%)</td>' in page
    arabic = learner_client.get(f"/ar/attempts/{attempt.pk}/result/").content.decode()
    assert "المتوسط بحسب درجة الثقة" in arabic and "ثقة عالية" in arabic


def test_an_exam_keeps_each_level_and_shows_its_effect_only_once_submitted(
    db, learner, learner_client
):
    quiz = make_quiz(questions=2, confidence="marking", feedback="deferred")
    attempt = attempt_start(user=learner, quiz=quiz)
    one, two = quiz.questions.order_by("position")
    post_answer(attempt, one, choice=wrong_choice(one), confidence=3)
    step = learner_client.get(step_url(attempt, 1)).content.decode()
    # The learner's own pick and level stay picked, nothing more.
    assert 'name="confidence" value="3" required checked' in step
    for text in ("Certainty-based", "You said", "You were sure of this", "Not quite"):
        assert text not in step
    post_answer(attempt, two, choice=correct_choice(two), confidence=1)
    attempt.refresh_from_db()
    assert attempt.cbm_score is None and not attempt.is_finished
    assert not ReviewCard.objects.filter(user=learner).exists()
    for path in ("/en/attempts/", "/en/review/statistics/", "/en/review/"):
        response = learner_client.get(path)
        assert response.status_code == 200, path
        page = response.content.decode()
        assert "How sure you were" not in page and "When very sure" not in page, path
    (exported,) = json.loads("".join(account_export_json(user=learner)))["attempts"]
    assert exported["certainty_based_score"] is None and exported["score"] is None
    assert [answer["confidence"] for answer in exported["answers"]] == [3, 1]

    attempt_submit_all(user=learner, attempt_id=attempt.pk)
    attempt.refresh_from_db()
    assert attempt.cbm_score == Decimal(-5)  # −6 + 1
    assert ReviewCard.objects.get(user=learner, question=one).sure_miss
    result = learner_client.get(f"/en/attempts/{attempt.pk}/result/").content.decode()
    assert "Certainty-based average: −2.5" in result or "Certainty-based average: -2.5" in result


def test_a_regrade_adds_the_certainty_based_marks_up_again(db, learner):
    quiz = make_quiz(questions=2, confidence="marking")
    attempt = attempt_start(user=learner, quiz=quiz)
    one, two = quiz.questions.order_by("position")
    # Choice 2 of question 1 is in truth the right one: picked "Very sure", marked −6.
    post_answer(attempt, one, choice=one.choices.get(position=2), confidence=3)
    post_answer(attempt, two, choice=correct_choice(two), confidence=2)
    attempt.refresh_from_db()
    assert attempt.cbm_score == Decimal(-4)
    plain = make_quiz(questions=2, confidence="ask")
    other = attempt_start(user=learner, quiz=plain)
    for question in plain.questions.order_by("position"):
        post_answer(other, question, choice=wrong_choice(question), confidence=3)

    for choice in one.choices.all():
        choice.is_correct = choice.position == 2
        choice.fraction = Decimal(int(choice.position == 2))
        choice.save()
    content_changed(quiz=quiz)
    call_command("regrade", quiz.slug, stdout=io.StringIO())

    attempt.refresh_from_db()
    assert attempt.score == 2 and attempt.cbm_score == Decimal(5)  # 3 + 2
    assert attempt.grade_score == Decimal("1.6667")
    other.refresh_from_db()
    assert other.cbm_score is None


def test_the_data_export_holds_the_levels_and_deleting_the_account_removes_them(
    db, learner, other_learner, learner_client
):
    quiz = make_quiz(questions=2, confidence="marking")
    attempt = attempt_start(user=learner, quiz=quiz)
    one, two = quiz.questions.order_by("position")
    post_answer(attempt, one, choice=wrong_choice(one), confidence=3)
    post_answer(attempt, two, choice=correct_choice(two), confidence=2)
    card = ReviewCard.objects.get(user=learner, question=one)
    ReviewCard.objects.filter(pk=card.pk).update(due=timezone.now() - timedelta(minutes=1))
    learner_client.post(
        "/en/review/",
        {
            "card": card.pk,
            "revision": card.reviews,
            "question": one.pk,
            "choice": wrong_choice(one).pk,
            "confidence": "2",
        },
    )
    theirs = attempt_start(user=other_learner, quiz=quiz)
    post_answer(theirs, one, choice=wrong_choice(one), confidence=1)

    data = json.loads("".join(account_export_json(user=learner)))
    (exported,) = data["attempts"]
    assert exported["confidence"] == "marking"
    assert Decimal(exported["certainty_based_score"]) == -4  # −6 + 2
    assert exported["certainty_based_grade"] == "0.0000"
    assert [answer["confidence"] for answer in exported["answers"]] == [3, 2]
    (exported_card,) = data["review_cards"]
    assert exported_card["missed_when_very_sure"] is True
    assert [answer["confidence"] for answer in exported_card["answers"]] == [2]
    # Not chosen, but set by their first quiz answer given with a level: asked in review.
    assert data["account"]["review_confidence"] is True

    account_delete(user=learner)
    assert not Answer.objects.filter(attempt__user_id=learner.pk).exists()
    assert not ReviewAnswer.objects.filter(user_id=learner.pk).exists()
    assert not ReviewCard.objects.filter(user_id=learner.pk).exists()
    assert Answer.objects.get(attempt=theirs).confidence == 1
