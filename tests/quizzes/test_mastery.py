"""Mastery levels from each question's latest answer, in quizzes and in reviews."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from quizzes.mastery import (
    Level,
    QuestionRecord,
    attempts_and_levels,
    guide_levels,
    level_of,
    quiz_levels,
)
from quizzes.models import (
    PROGRESS_COLUMNS,
    Answer,
    Attempt,
    ReviewAnswer,
    ReviewCard,
    progress_of_attempts,
)
from tests.factories import correct_choice, make_guide, make_quiz, wrong_choice

DAY = timedelta(days=1)
T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def record(*answers: tuple[bool, datetime]) -> QuestionRecord:
    found = QuestionRecord()
    for is_correct, at in answers:
        found.add(is_correct, at)
    return found


def answer(attempt: Attempt, question, *, right: bool, at: datetime = T0) -> Answer:
    """A quiz answer as the rules record it: the right choice or a wrong one."""
    return Answer.objects.create(
        attempt=attempt,
        question=question,
        choice=correct_choice(question) if right else wrong_choice(question),
        correct_choice=correct_choice(question),
        is_correct=right,
        answered_at=at,
    )


@pytest.mark.parametrize(
    ("records", "count", "level"),
    [
        ([], 10, Level.NOT_STARTED),
        ([record((False, T0))], 10, Level.ATTEMPTED),
        ([record((True, T0))] * 6, 10, Level.ATTEMPTED),  # 60 %
        ([record((True, T0))] * 7, 10, Level.FAMILIAR),  # 70 %
        ([record((True, T0))] * 9 + [record((False, T0))], 10, Level.FAMILIAR),
        ([record((True, T0))] * 3, 3, Level.PROFICIENT),
        # Right again a day after first right, every question: mastered.
        ([record((True, T0), (True, T0 + DAY))] * 3, 3, Level.MASTERED),
        # Less than a day apart does not show it was remembered.
        ([record((True, T0), (True, T0 + DAY - timedelta(minutes=1)))] * 3, 3, Level.PROFICIENT),
        # One question not yet remembered keeps the quiz at Proficient.
        ([record((True, T0), (True, T0 + DAY))] * 2 + [record((True, T0))], 3, Level.PROFICIENT),
        # Wrong first, then right twice a day apart: remembered.
        ([record((False, T0), (True, T0 + DAY), (True, T0 + 3 * DAY))], 1, Level.MASTERED),
        # The latest answer decides: right long ago, wrong now.
        ([record((True, T0), (True, T0 + 2 * DAY), (False, T0 + 3 * DAY))], 1, Level.ATTEMPTED),
        # Questions never answered count as not right: 2 of 3 is under 70 %.
        ([record((True, T0))] * 2, 3, Level.ATTEMPTED),
    ],
)
def test_the_level_rule(records, count, level):
    assert level_of(records, count) == level


def test_answers_out_of_time_order_are_read_in_time_order():
    late_wrong_first = record((False, T0 + 2 * DAY), (True, T0))

    assert not late_wrong_first.latest_right


@pytest.mark.django_db
def test_levels_read_quiz_attempts_and_reviews_of_this_learner_only(learner, other_learner):
    quiz = make_quiz(questions=2)
    first, second = quiz.questions.order_by("position")
    mine = Attempt.objects.create(user=learner, quiz=quiz, started_at=T0)
    for question, right in ((first, True), (second, False)):
        answer(mine, question, right=right)
    theirs = Attempt.objects.create(user=other_learner, quiz=quiz, started_at=T0)
    answer(theirs, second, right=True, at=T0 + 5 * DAY)
    counts = {quiz.pk: 2}
    assert quiz_levels(user_id=learner.pk, question_counts=counts)[quiz.pk] == Level.ATTEMPTED

    card = ReviewCard.objects.create(user=learner, question=second, due=T0, state=2)
    ReviewAnswer.objects.create(
        user=learner, question=second, card=card, revision=1, is_correct=True, answered_at=T0 + DAY
    )
    assert quiz_levels(user_id=learner.pk, question_counts=counts)[quiz.pk] == Level.PROFICIENT

    # Both right again, in a review, days after they were first right: mastered.
    ReviewAnswer.objects.create(
        user=learner, question=first, card=card, revision=2, is_correct=True, answered_at=T0 + DAY
    )
    ReviewAnswer.objects.create(
        user=learner,
        question=second,
        card=card,
        revision=3,
        is_correct=True,
        answered_at=T0 + 3 * DAY,
    )
    assert quiz_levels(user_id=learner.pk, question_counts=counts)[quiz.pk] == Level.MASTERED
    assert quiz_levels(user_id=other_learner.pk, question_counts=counts)[quiz.pk] == Level.ATTEMPTED


@pytest.mark.django_db
@pytest.mark.parametrize("quizzes", [1, 3, 20, 21])
def test_levels_of_many_quizzes_at_once_are_each_quizs_own(learner, quizzes):
    """Up to a catalog page's worth in one prepared statement, more through the ORM: the
    levels are the same as asked one quiz at a time."""
    made = [make_quiz(questions=1) for _ in range(quizzes)]
    for quiz in made[::2]:  # every other quiz answered right: Proficient
        answer(Attempt.objects.create(user=learner, quiz=quiz), quiz.questions.get(), right=True)
    counts = {quiz.pk: 1 for quiz in made}
    one_by_one = {
        quiz.pk: quiz_levels(user_id=learner.pk, question_counts={quiz.pk: 1})[quiz.pk]
        for quiz in made
    }
    assert quiz_levels(user_id=learner.pk, question_counts=counts) == one_by_one
    assert {one_by_one[quiz.pk] for quiz in made[::2]} == {Level.PROFICIENT}
    assert {one_by_one[quiz.pk] for quiz in made[1::2]} <= {Level.NOT_STARTED}


def test_a_guides_level_spans_its_published_quizzes(learner):
    guide = make_guide()
    taken = make_quiz(questions=2, guide=guide)
    make_quiz(questions=2, guide=guide)  # not taken: its questions count as not right
    make_quiz(questions=5, guide=guide, is_published=False)  # hidden: does not count
    attempt = Attempt.objects.create(user=learner, quiz=taken, started_at=T0)
    for question in taken.questions.all():
        answer(attempt, question, right=True)

    levels = guide_levels(user_id=learner.pk, guide_ids=[guide.pk, make_guide().pk])

    assert levels[guide.pk] == Level.ATTEMPTED  # 2 of 4 right
    assert list(levels.values())[1] == Level.NOT_STARTED


@pytest.mark.django_db
def test_pages_show_the_levels(learner, learner_client, quiz):
    attempt = Attempt.objects.create(user=learner, quiz=quiz, started_at=T0, finished_at=T0)
    for question in quiz.questions.all():
        answer(attempt, question, right=True)

    assert "Mastery: Proficient" in learner_client.get("/en/").content.decode()
    assert "Mastery: Proficient" in learner_client.get(quiz.get_absolute_url()).content.decode()
    history = learner_client.get("/en/attempts/").content.decode()
    assert "Mastery by guide" in history and "Mastery: Proficient" in history
    assert "مستوى الإتقان: متمكّن" in learner_client.get("/ar/").content.decode()


def test_a_question_right_again_a_day_later_is_retained_whatever_order_answers_come_in():
    # The database sums answers without an order: the latest right, then an earlier one.
    assert record((True, T0 + DAY + DAY / 4), (True, T0 + DAY / 2), (True, T0)).retained
    assert not record((True, T0 + DAY / 2), (True, T0)).retained


@pytest.mark.django_db
def test_a_catalog_page_reads_the_progress_and_levels_the_orm_reads(learner, other_learner):
    """The catalog's one literal statement (attempts_and_levels) against progress_of_attempts
    over the ORM and quiz_levels: attempts finished, in progress and past their deadline,
    reviews, an exam not finished yet, another learner's answers, and a quiz not attempted."""
    practice, exam, reviewed, untouched = (make_quiz(questions=2) for _ in range(4))
    done = Attempt.objects.create(user=learner, quiz=practice, started_at=T0, finished_at=T0)
    done.score, done.total = Decimal("1.5"), 2
    done.save()
    for question, right in zip(practice.questions.order_by("position"), (True, False), strict=True):
        answer(done, question, right=right)
    Attempt.objects.create(user=learner, quiz=practice, started_at=T0 + DAY)
    # An exam in progress: its answers say nothing yet.
    open_exam = Attempt.objects.create(user=learner, quiz=exam, started_at=T0, feedback="deferred")
    answer(open_exam, exam.questions.order_by("position")[0], right=True)
    # Right in the attempt, right again a day later in a review, both questions: mastered.
    taken = Attempt.objects.create(user=learner, quiz=reviewed, started_at=T0, finished_at=T0)
    for revision, question in enumerate(reviewed.questions.all(), start=1):
        answer(taken, question, right=True)
        card = ReviewCard.objects.create(user=learner, question=question, due=T0, state=2)
        ReviewAnswer.objects.create(
            user=learner,
            question=question,
            card=card,
            revision=revision,
            is_correct=True,
            answered_at=T0 + 2 * DAY,
        )
    theirs = Attempt.objects.create(user=other_learner, quiz=untouched, started_at=T0)
    answer(theirs, untouched.questions.order_by("position")[0], right=True)
    # Past its deadline, not answered: over, and nothing of the other learner's counts.
    Attempt.objects.create(
        user=learner, quiz=untouched, started_at=T0, deadline=T0 + timedelta(minutes=5)
    )
    counts = {quiz.pk: 2 for quiz in (practice, exam, reviewed, untouched)}

    attempts, levels = attempts_and_levels(user_id=learner.pk, question_counts=counts)

    by_orm = progress_of_attempts(
        Attempt.objects.filter(user=learner, quiz_id__in=counts).values(*PROGRESS_COLUMNS)
    )
    assert progress_of_attempts(attempts) == by_orm
    assert by_orm[practice.pk] | {"best_score": None} == {
        "in_progress": 1,
        "overdue": 0,
        "finished": 1,
        "best_score": None,
        "best_total": 2,
    }
    assert by_orm[practice.pk]["best_score"] == Decimal("1.5")
    assert by_orm[untouched.pk]["overdue"] == 1
    attempted = {pk: count for pk, count in counts.items() if pk in by_orm}
    assert levels == quiz_levels(user_id=learner.pk, question_counts=attempted)
    assert levels == {
        practice.pk: Level.ATTEMPTED,
        exam.pk: Level.NOT_STARTED,
        reviewed.pk: Level.MASTERED,
        untouched.pk: Level.NOT_STARTED,
    }


@pytest.mark.django_db
def test_a_card_shows_no_level_for_an_exam_until_it_is_finished(learner, learner_client):
    exam = make_quiz(questions=1)
    attempt = Attempt.objects.create(user=learner, quiz=exam, started_at=T0, feedback="deferred")
    answer(attempt, exam.questions.get(), right=True)
    assert "Mastery:" not in learner_client.get("/en/").content.decode()

    attempt.finished_at, attempt.score, attempt.total = T0, 1, 1
    attempt.save()
    assert "Mastery: Proficient" in learner_client.get("/en/").content.decode()
