"""Prepared statements (quizzes/statements.py): the ORM's SQL, compiled once per process, gives
and writes exactly what the ORM itself would, on SQLite and on PostgreSQL."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from quizzes.attempts import attempt_start
from quizzes.models import Answer, Attempt, ReviewCard
from quizzes.statements import PreparedInsert, PreparedQuery, list_values
from tests.factories import add_multiple_question, correct_choice, make_quiz, make_user

pytestmark = pytest.mark.django_db

COLUMNS = ("id", "user_id", "started_at", "finished_at", "score", "choice_order")


def attempts_of(user_id, quiz_id):
    return Attempt.objects.filter(user_id=user_id, quiz_id=quiz_id).order_by("pk").values(*COLUMNS)


def test_a_prepared_query_gives_the_rows_the_orm_gives_with_their_types():
    learner, quiz = make_user(), make_quiz(shuffle_choices=True)
    attempt = attempt_start(user=learner, quiz=quiz)
    Attempt.objects.filter(pk=attempt.pk).update(
        finished_at=timezone.now(), score=Decimal("2.5000")
    )
    prepared = PreparedQuery(attempts_of, "user_id", "quiz_id")

    rows = prepared.rows(user_id=learner.pk, quiz_id=quiz.pk)

    assert rows == list(attempts_of(learner.pk, quiz.pk))
    (row,) = rows
    assert row["score"] == Decimal("2.5") and timezone.is_aware(row["finished_at"])
    assert row["choice_order"] == attempt.choice_order and row["choice_order"]


def test_a_prepared_query_is_compiled_once_and_filled_anew_on_every_call(
    django_assert_num_queries,
):
    first, second = make_user(), make_user()
    quiz = make_quiz()
    mine, theirs = attempt_start(user=first, quiz=quiz), attempt_start(user=second, quiz=quiz)
    builds = []

    def counted(user_id, quiz_id):
        builds.append(user_id)
        return attempts_of(user_id, quiz_id)

    prepared = PreparedQuery(counted, "user_id", "quiz_id")
    with django_assert_num_queries(3):
        assert [row["id"] for row in prepared.rows(user_id=first.pk, quiz_id=quiz.pk)] == [mine.pk]
        assert [row["id"] for row in prepared.rows(user_id=second.pk, quiz_id=quiz.pk)] == [
            theirs.pk
        ]
        assert prepared.rows(user_id=second.pk, quiz_id=quiz.pk + 1) == []
    assert len(builds) == 1


@pytest.mark.parametrize("too_large", [2**63, 10**30, -(2**63) - 1])
def test_an_id_no_column_can_hold_matches_nothing_without_asking(
    too_large, django_assert_num_queries
):
    prepared = PreparedQuery(attempts_of, "user_id", "quiz_id")
    with django_assert_num_queries(0):
        assert prepared.rows(user_id=too_large, quiz_id=1) == []


def test_a_list_of_fewer_ids_fills_its_slots_by_repeating_them():
    assert list_values("quiz", [7, 8], 5) == {
        "quiz0": 7,
        "quiz1": 8,
        "quiz2": 7,
        "quiz3": 8,
        "quiz4": 7,
    }


@pytest.mark.parametrize("ids", [[], [1, 2, 3]])
def test_a_list_of_no_id_or_too_many_is_refused(ids):
    with pytest.raises(ValueError, match="for a list of 2"):
        list_values("quiz", ids, 2)


def test_a_value_the_statement_does_not_hold_is_refused():
    prepared = PreparedQuery(lambda user_id: Attempt.objects.values("id"), "user_id")
    with pytest.raises(ValueError, match="must appear in the statement"):
        prepared.rows(user_id=1)


def test_a_value_the_statement_holds_twice_fills_both_places():
    learner, other = make_user(), make_user()
    quiz = make_quiz(questions=1)
    mine = attempt_start(user=learner, quiz=quiz)
    attempt_start(user=other, quiz=quiz)
    prepared = PreparedQuery(
        lambda user_id: (
            Attempt.objects.filter(user_id=user_id)
            .order_by()
            .values("id")
            .union(Attempt.objects.filter(user_id=user_id).order_by().values("id"), all=True)
            .order_by()
        ),
        "user_id",
    )
    assert prepared.rows(user_id=learner.pk) == [{"id": mine.pk}, {"id": mine.pk}]


def test_a_prepared_insert_writes_the_row_save_would_and_gives_it_its_key():
    learner = make_user()
    quiz = make_quiz(questions=0)
    question = add_multiple_question(quiz, 1)
    attempt = attempt_start(user=learner, quiz=quiz)
    ticked = list(question.choices.order_by("pk").values_list("pk", flat=True)[:2])
    answer = Answer(
        attempt=attempt,
        question=question,
        choice_ids=ticked,
        key={str(pk): "0.5" for pk in ticked},
        fraction=Decimal("0.5000"),
        is_correct=False,
    )

    PreparedInsert(Answer).insert(answer)

    assert answer.pk is not None and not answer._state.adding
    stored = Answer.objects.get(pk=answer.pk)
    assert stored.choice_ids == ticked and stored.key == answer.key
    assert stored.fraction == Decimal("0.5") and stored.is_correct is False
    assert abs(stored.answered_at - timezone.now()) < timedelta(minutes=1)


def test_a_prepared_insert_breaking_a_unique_constraint_raises_and_writes_nothing():
    learner, quiz = make_user(), quiz_of_one_question()
    attempt = attempt_start(user=learner, quiz=quiz)
    question = quiz.questions.get()
    right = correct_choice(question)
    insert = PreparedInsert(Answer)
    insert.insert(Answer(attempt=attempt, question=question, choice=right, is_correct=True))
    with pytest.raises(IntegrityError), transaction.atomic():
        insert.insert(Answer(attempt=attempt, question=question, choice=right, is_correct=True))
    assert Answer.objects.count() == 1


def test_a_prepared_insert_ignoring_conflicts_skips_the_row_and_the_transaction_goes_on():
    learner, quiz = make_user(), quiz_of_one_question()
    question = quiz.questions.get()
    now = timezone.now()
    insert = PreparedInsert(ReviewCard, ignore_conflicts=True)
    with transaction.atomic():
        insert.insert(ReviewCard(user=learner, question=question, due=now, state=1))
        insert.insert(ReviewCard(user=learner, question=question, due=now + timedelta(1), state=1))
        assert ReviewCard.objects.get().due == now  # the first stands; the database still answers


def quiz_of_one_question():
    return make_quiz(questions=1)
