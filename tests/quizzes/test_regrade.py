"""Regrading after a key was fixed (issue 55): the preview, its application, and every mark
that follows (answers, scores, review cards, the trail), for each kind of question."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command

from quizzes.attempts.regrade import regrade_apply, regrade_preview
from quizzes.attempts.services import attempt_start, attempt_submit_all
from quizzes.content import content_changed
from quizzes.grading import Response
from quizzes.models import (
    AcceptedText,
    Answer,
    Attempt,
    Choice,
    NumericalAnswer,
    OrderItem,
    Question,
    Quiz,
    RegradedAnswer,
    RegradedAttempt,
    ReviewCard,
)
from tests.factories import (
    add_matching_question,
    add_multiple_question,
    add_numerical_question,
    add_ordering_question,
    add_short_question,
    make_quiz,
    make_quiz_of_every_kind,
)
from tests.steps import post_answer

pytestmark = pytest.mark.django_db


def take(quiz: Quiz, user, responses: dict[int, Response]) -> Attempt:
    """`user` takes `quiz`, answering each question (by position) with its response."""
    attempt = attempt_start(user=user, quiz=quiz)
    for question in quiz.questions.order_by("position"):
        post_answer(attempt, question, response=responses[question.position])
    attempt.refresh_from_db()
    return attempt


def choose(question: Question, position: int) -> Response:
    return Response(choice_ids=(question.choices.get(position=position).pk,))


def fix_single_key(question: Question, right: int) -> None:
    """The instructor marks choice `right` as the right one instead."""
    for choice in question.choices.all():
        choice.is_correct = choice.position == right
        choice.fraction = Decimal(int(choice.position == right))
        choice.save()
    content_changed(quiz=question.quiz)


def test_a_wrong_key_fixed_raises_the_learners_who_answered_right(learner, other_learner):
    quiz = make_quiz(questions=2)  # choice 1 is "right"; the truth is choice 2
    q1, q2 = quiz.questions.order_by("position")
    amina = take(quiz, learner, {1: choose(q1, 2), 2: choose(q2, 1)})
    bilal = take(quiz, other_learner, {1: choose(q1, 1), 2: choose(q2, 1)})
    assert (amina.score, bilal.score) == (1, 2)

    fix_single_key(q1, right=2)
    preview = regrade_preview(quiz=quiz)

    assert [(a.attempt_id, a.old_score, a.new_score) for a in preview.attempts] == [
        (amina.pk, 1, 2),
        (bilal.pk, 2, 1),
    ]
    assert (preview.answer_count, preview.attempt_count, preview.answers_checked) == (2, 2, 4)
    change = preview.attempts[0].answers[0]
    assert (change.learner, change.position, change.old_fraction, change.new_fraction) == (
        "Amina",
        1,
        0,
        1,
    )

    regrade_apply(preview=preview)

    amina.refresh_from_db()
    bilal.refresh_from_db()
    assert (amina.score, bilal.score) == (2, 1)
    answer = Answer.objects.get(attempt=amina, question=q1)
    assert answer.is_correct and answer.correct_choice == q1.choices.get(position=2)


def test_the_preview_changes_nothing(learner):
    quiz = make_quiz(questions=1)
    (question,) = quiz.questions.all()
    attempt = take(quiz, learner, {1: choose(question, 2)})
    before = list(Answer.objects.values())
    fix_single_key(question, right=2)

    preview = regrade_preview(quiz=quiz)

    assert preview.attempt_count == 1
    assert list(Answer.objects.values()) == before
    attempt.refresh_from_db()
    assert attempt.score == 0
    assert not RegradedAnswer.objects.exists()


def test_applying_twice_changes_nothing_the_second_time(learner):
    quiz = make_quiz(questions=1)
    (question,) = quiz.questions.all()
    attempt = take(quiz, learner, {1: choose(question, 2)})
    fix_single_key(question, right=2)
    preview = regrade_preview(quiz=quiz)

    first = regrade_apply(preview=preview)
    second = regrade_apply(preview=preview)

    attempt.refresh_from_db()
    assert attempt.score == 1
    assert (first.answers_changed, first.attempts_changed) == (1, 1)
    assert (second.answers_changed, second.attempts_changed) == (0, 0)
    assert regrade_preview(quiz=quiz).attempts == ()
    assert RegradedAttempt.objects.count() == 1


def test_confirming_applies_exactly_the_preview_not_what_changed_since(learner, other_learner):
    quiz = make_quiz(questions=1)
    (question,) = quiz.questions.all()
    amina = take(quiz, learner, {1: choose(question, 2)})
    fix_single_key(question, right=2)
    preview = regrade_preview(quiz=quiz)
    # Bilal finishes after the preview, answering under the new key: not in the preview.
    bilal = take(quiz, other_learner, {1: choose(question, 2)})

    regrade = regrade_apply(preview=preview)

    assert list(RegradedAttempt.objects.values_list("attempt_id", flat=True)) == [amina.pk]
    assert regrade.answers_changed == 1
    bilal.refresh_from_db()
    assert bilal.score == 1  # marked by the new key when he answered


def test_a_weight_changed_changes_a_several_answers_mark(learner):
    quiz = make_quiz(questions=0)
    question = add_multiple_question(quiz, 1, choices=4, right=(1, 2))
    content_changed(quiz=quiz)
    first, second, third = (question.choices.get(position=p).pk for p in (1, 2, 3))
    attempt = take(quiz, learner, {1: Response(choice_ids=(first, third))})
    assert attempt.score == 0  # +0.5 −0.5

    Choice.objects.filter(pk=third).update(fraction=0, is_correct=False)
    content_changed(quiz=quiz)
    regrade_apply(preview=regrade_preview(quiz=quiz))

    attempt.refresh_from_db()
    assert attempt.score == Decimal("0.5")
    answer = Answer.objects.get(attempt=attempt)
    assert answer.key[str(third)] == "0"
    assert second  # the other right box still counts its half


@pytest.mark.parametrize(
    ("exact", "typed", "new_mark"),
    [
        (False, "  Optimiser States ", 1),  # folded like the grading folds
        (True, "  Optimiser States ", 0),  # an exact answer takes only itself
        (True, "optimiser states", 1),
    ],
)
def test_an_accepted_text_added_regrades_short_answers(learner, exact, typed, new_mark):
    quiz = make_quiz(questions=0)
    question = add_short_question(quiz, 1)
    content_changed(quiz=quiz)
    attempt = take(quiz, learner, {1: Response(text=typed)})
    assert attempt.score == 0

    AcceptedText.objects.create(
        question=question, position=3, text_en="optimiser states", fraction=1, exact=exact
    )
    content_changed(quiz=quiz)
    preview = regrade_preview(quiz=quiz)
    regrade_apply(preview=preview)

    attempt.refresh_from_db()
    assert attempt.score == new_mark
    assert preview.answer_count == new_mark


def test_a_tolerance_widened_regrades_numbers(learner, other_learner):
    quiz = make_quiz(questions=0)
    question = add_numerical_question(quiz, 1, answers=((16, 0, 1),))
    content_changed(quiz=quiz)
    near = take(quiz, learner, {1: Response(number=Decimal("16.4"))})
    far = take(quiz, other_learner, {1: Response(number=Decimal("17"))})

    NumericalAnswer.objects.filter(question=question).update(tolerance=Decimal("0.5"))
    content_changed(quiz=quiz)
    regrade_apply(preview=regrade_preview(quiz=quiz))

    near.refresh_from_db()
    far.refresh_from_db()
    assert (near.score, far.score) == (1, 0)
    assert Answer.objects.get(attempt=near).key[0][1] == "0.5"


def test_matching_and_ordering_follow_their_key(learner):
    quiz = make_quiz(questions=0)
    matching = add_matching_question(quiz, 1)
    ordering = add_ordering_question(quiz, 2)
    content_changed(quiz=quiz)
    prompts = list(matching.pairs.exclude(prompt_en="").order_by("position"))
    distractor = matching.pairs.get(prompt_en="")
    items = list(ordering.order_items.order_by("position"))
    # ZeRO-3 matched with "activations"; backward before forward.
    picked = ((prompts[0].pk, prompts[0].pk), (prompts[1].pk, prompts[1].pk))
    picked += ((prompts[2].pk, distractor.pk),)
    order = (items[1].pk, items[0].pk, items[2].pk, items[3].pk)
    attempt = take(quiz, learner, {1: Response(arrangement=picked), 2: Response(arrangement=order)})
    assert attempt.score == Decimal("0.6667") + Decimal("0.75")

    # The instructor's fix: ZeRO-3 goes with "activations" (the matches swapped), and the
    # steps' right order puts backward first.
    a, b = prompts[2], distractor
    a.match_en, b.match_en, a.match_ar, b.match_ar = b.match_en, a.match_en, b.match_ar, a.match_ar
    a.save()
    b.save()
    OrderItem.objects.filter(pk=items[0].pk).update(position=99)
    OrderItem.objects.filter(pk=items[1].pk).update(position=1)
    OrderItem.objects.filter(pk=items[0].pk).update(position=2)
    content_changed(quiz=quiz)
    preview = regrade_preview(quiz=quiz)
    regrade_apply(preview=preview)

    attempt.refresh_from_db()
    marks = dict(Answer.objects.filter(attempt=attempt).values_list("question_id", "fraction"))
    assert marks[ordering.pk] == 1
    # Matching is marked by pair: swapping the texts of two pairs changes no mark.
    assert marks[matching.pk] == Decimal("0.6667")
    assert preview.answer_count == 1


def test_a_miss_now_right_leaves_the_review_and_a_right_answer_now_wrong_enters_it(
    learner, other_learner
):
    quiz = make_quiz(questions=1)
    (question,) = quiz.questions.all()
    take(quiz, learner, {1: choose(question, 2)})  # a miss: a card
    take(quiz, other_learner, {1: choose(question, 1)})  # right: no card
    assert list(ReviewCard.objects.values_list("user_id", flat=True)) == [learner.pk]

    fix_single_key(question, right=2)
    regrade_apply(preview=regrade_preview(quiz=quiz))

    card = ReviewCard.objects.get()
    assert card.user_id == other_learner.pk and card.question_id == question.pk
    assert card.reviews == 1  # moved as one miss


def test_a_miss_still_missed_in_another_attempt_keeps_its_card(learner):
    quiz = make_quiz(questions=1)
    (question,) = quiz.questions.all()
    take(quiz, learner, {1: choose(question, 2)})
    take(quiz, learner, {1: choose(question, 3)})
    fix_single_key(question, right=2)

    regrade_apply(preview=regrade_preview(quiz=quiz))

    assert ReviewCard.objects.filter(user=learner, question=question).exists()


def test_an_exam_in_progress_is_marked_by_the_new_key_when_it_finishes(learner):
    quiz = make_quiz(questions=2, feedback=Quiz.Feedback.DEFERRED)
    q1, q2 = quiz.questions.order_by("position")
    attempt = attempt_start(user=learner, quiz=quiz)
    post_answer(attempt, q1, response=choose(q1, 2))
    post_answer(attempt, q2, response=choose(q2, 1))

    fix_single_key(q1, right=2)
    assert regrade_preview(quiz=quiz).attempts == ()  # not finished: nothing to regrade
    attempt_submit_all(user=learner, attempt_id=attempt.pk)

    attempt.refresh_from_db()
    assert attempt.score == 2
    answer = Answer.objects.get(attempt=attempt, question=q1)
    assert answer.is_correct and answer.correct_choice.position == 2
    assert not ReviewCard.objects.filter(user=learner).exists()


def test_one_question_only_regrades_that_question(learner):
    quiz = make_quiz(questions=2)
    q1, q2 = quiz.questions.order_by("position")
    attempt = take(quiz, learner, {1: choose(q1, 2), 2: choose(q2, 2)})
    fix_single_key(q1, right=2)
    fix_single_key(q2, right=2)

    regrade_apply(preview=regrade_preview(quiz=quiz, question=q2))

    attempt.refresh_from_db()
    assert attempt.score == 1
    assert list(RegradedAnswer.objects.values_list("question_id", flat=True)) == [q2.pk]


def test_the_trail_keeps_who_when_and_the_marks_before_and_after(learner, instructor):
    quiz = make_quiz(questions=1)
    (question,) = quiz.questions.all()
    attempt = take(quiz, learner, {1: choose(question, 2)})
    fix_single_key(question, right=2)

    regrade = regrade_apply(preview=regrade_preview(quiz=quiz), by=instructor)
    fix_single_key(question, right=3)  # edited again: the trail stays as it was

    row = RegradedAnswer.objects.get()
    assert (row.regrade.by, row.user, row.attempt_id, row.question) == (
        instructor,
        learner,
        attempt.pk,
        question,
    )
    assert (row.old_fraction, row.new_fraction) == (0, 1)
    assert (row.old_correct_choice_id, row.new_correct_choice_id) == (
        question.choices.get(position=1).pk,
        question.choices.get(position=2).pk,
    )
    assert regrade.finished_at is not None and regrade.status == "done"


def test_the_command_prints_each_changed_attempt_and_the_counts(learner, other_learner):
    quiz = make_quiz(questions=2)
    q1, q2 = quiz.questions.order_by("position")
    amina = take(quiz, learner, {1: choose(q1, 2), 2: choose(q2, 1)})
    take(quiz, other_learner, {1: choose(q1, 3), 2: choose(q2, 1)})
    fix_single_key(q1, right=2)

    dry = StringIO()
    call_command("regrade", quiz.slug, "--question", "1", "--dry-run", stdout=dry)
    assert dry.getvalue().splitlines() == [
        f"attempt {amina.pk} Amina 1 -> 2",
        "regrade: 1 answers, 1 attempts changed",
    ]
    amina.refresh_from_db()
    assert amina.score == 1

    out = StringIO()
    call_command("regrade", quiz.slug, stdout=out)
    assert out.getvalue().splitlines()[-1] == "regrade: 1 answers, 1 attempts changed"
    amina.refresh_from_db()
    assert amina.score == 2

    again = StringIO()
    call_command("regrade", quiz.slug, stdout=again)
    assert again.getvalue().splitlines() == ["regrade: 0 answers, 0 attempts changed"]


def test_the_command_refuses_an_unknown_quiz_or_position(quiz):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="No quiz"):
        call_command("regrade", "no-such-quiz")
    with pytest.raises(CommandError, match="no question at position 9"):
        call_command("regrade", quiz.slug, "--question", "9")


def test_a_hundred_question_quiz_of_every_kind_regrades_what_changed_only(learner):
    quiz = make_quiz_of_every_kind(100)
    attempt = attempt_start(user=learner, quiz=quiz)
    questions = list(quiz.questions.order_by("position"))
    for question in questions:
        post_answer(attempt, question, response=_right(question))
    attempt.refresh_from_db()
    assert attempt.finished_at is not None
    assert regrade_preview(quiz=quiz).attempts == ()  # the key unchanged: nothing to do

    single = next(q for q in questions if q.kind == Question.Kind.SINGLE)
    fix_single_key(single, right=2)
    preview = regrade_preview(quiz=quiz)

    assert preview.answers_checked == 100
    assert [c.question_id for c in preview.changes] == [single.pk]
    regrade_apply(preview=preview)
    attempt.refresh_from_db()
    assert attempt.score == attempt.total - 1


def _right(question: Question) -> Response:
    kind = question.kind
    if kind == Question.Kind.NUMERICAL:
        return Response(number=question.numerical_answers.get(fraction=1).value)
    if kind == Question.Kind.SHORT:
        return Response(text=question.accepted_texts.filter(fraction=1).first().text_en)
    if kind == Question.Kind.MATCHING:
        prompts = question.pairs.exclude(prompt_en="")
        return Response(arrangement=tuple((p.pk, p.pk) for p in prompts))
    if kind == Question.Kind.ORDERING:
        return Response(
            arrangement=tuple(
                question.order_items.order_by("position").values_list("pk", flat=True)
            )
        )
    if kind == Question.Kind.MULTIPLE:
        return Response(
            choice_ids=tuple(question.choices.filter(fraction__gt=0).values_list("pk", flat=True))
        )
    return Response(choice_ids=(question.choices.get(fraction=1).pk,))


def test_a_learner_with_no_finished_attempt_is_not_in_the_preview(learner):
    quiz = make_quiz(questions=2)
    q1, _q2 = quiz.questions.order_by("position")
    attempt = attempt_start(user=learner, quiz=quiz)
    post_answer(attempt, q1, response=choose(q1, 2))
    fix_single_key(q1, right=2)

    assert regrade_preview(quiz=quiz).attempts == ()
