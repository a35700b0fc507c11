"""An answer recorded while a regrade runs is marked by the new key, and neither waits for
the other to finish (issue 55). PostgreSQL only: SQLite's transactions take the whole
database's write lock, so there the two cannot overlap at all."""

from __future__ import annotations

import threading
from decimal import Decimal

import pytest
from django.db import connection

from quizzes.attempts import regrade as regrading
from quizzes.attempts.regrade import regrade_apply, regrade_preview
from quizzes.attempts.services import attempt_start
from quizzes.content import content_changed
from quizzes.grading import Response
from quizzes.models import Answer, Attempt
from tests.factories import make_quiz, make_user
from tests.steps import post_answer

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks: PostgreSQL (.ci/run runs it)"
    ),
]


def test_an_answer_recorded_during_a_regrade_is_marked_by_the_new_key(monkeypatch):
    quiz = make_quiz(questions=2)
    q1, q2 = quiz.questions.order_by("position")
    done = make_user("done")
    busy = make_user("busy")
    finished = attempt_start(user=done, quiz=quiz)
    for question in (q1, q2):
        post_answer(
            finished, question, response=Response(choice_ids=(question.choices.get(position=2).pk,))
        )
    running = attempt_start(user=busy, quiz=quiz)
    post_answer(running, q1, response=Response(choice_ids=(q1.choices.get(position=1).pk,)))
    # The key fixed: choice 2 of question 2 is the right one.
    for choice in q2.choices.all():
        choice.is_correct = choice.position == 2
        choice.fraction = Decimal(int(choice.position == 2))
        choice.save()
    content_changed(quiz=quiz)
    preview = regrade_preview(quiz=quiz)
    assert [a.attempt_id for a in preview.attempts] == [finished.pk]

    inside, answered = threading.Event(), threading.Event()
    move_cards = regrading._move_cards

    def slow_move_cards(*args, **kwargs):
        inside.set()  # the regrade's transaction holds its attempts' locks now
        assert answered.wait(20), "the learner's answer waited for the regrade"
        return move_cards(*args, **kwargs)

    monkeypatch.setattr(regrading, "_move_cards", slow_move_cards)
    errors: list[BaseException] = []

    def learner_answers() -> None:
        try:
            assert inside.wait(20)
            post_answer(running, q2, response=Response(choice_ids=(q2.choices.get(position=2).pk,)))
            answered.set()
        except BaseException as error:  # reported below
            errors.append(error)
            answered.set()
        finally:
            connection.close()

    thread = threading.Thread(target=learner_answers)
    thread.start()
    regrade = regrade_apply(preview=preview)
    thread.join(30)

    assert not errors, errors
    assert regrade.answers_changed == 1
    racing = Answer.objects.get(attempt=running, question=q2)
    assert racing.is_correct and racing.correct_choice.position == 2
    running.refresh_from_db()
    finished.refresh_from_db()
    assert (running.finished_at is not None, running.score) == (True, 2)
    assert finished.score == 1  # question 2 right now, question 1 (choice 2) still wrong
    assert Attempt.objects.filter(pk=finished.pk, score=1).exists()
