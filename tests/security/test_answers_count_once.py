"""An answer counts once: replays, double clicks and races never change a recorded outcome."""

import threading

import pytest
from django.db import connection
from django.test import Client

from quizzes.attempts.services import Step, attempt_start
from quizzes.models import Answer, Attempt, Choice, ReviewCard
from tests.factories import correct_choice, make_quiz, make_user, wrong_choice
from tests.steps import post_answer

CONCURRENT = 20


def _post_concurrently(user, url: str, payloads: list[dict]) -> list[int]:
    """POST every payload at once from its own thread (own client, own DB connection)."""
    barrier = threading.Barrier(len(payloads))
    statuses: list[int] = []
    errors: list[BaseException] = []

    def worker(payload: dict) -> None:
        try:
            client = Client()
            client.force_login(user)
            # Hand the connection back (to the pool on PostgreSQL) before the race starts.
            connection.close()
            barrier.wait(timeout=30)
            statuses.append(client.post(url, payload).status_code)
        except BaseException as error:  # noqa: BLE001 — reported to the test below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(p,)) for p in payloads]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    return statuses


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "miss", [False, True], ids=["a right pick", "a miss posted with its question, as the form does"]
)
def test_twenty_concurrent_submissions_of_the_same_answer_are_recorded_once(miss):
    learner = make_user()
    quiz = make_quiz(questions=2)
    attempt = attempt_start(user=learner, quiz=quiz)
    question = quiz.questions.get(position=1)
    url = f"/en/attempts/{attempt.pk}/questions/1/"
    if miss:
        payload = {"choice": wrong_choice(question).pk, "question": question.pk}
    else:
        payload = {"choice": correct_choice(question).pk}

    statuses = _post_concurrently(learner, url, [payload] * CONCURRENT)

    assert sorted(set(statuses)) == [302]
    assert Answer.objects.filter(attempt=attempt).count() == 1
    cards = ReviewCard.objects.filter(user=learner, question=question)
    # A miss creates the question's card, moved by the one answer that counts.
    assert [card.reviews for card in cards] == ([1] if miss else [])


@pytest.mark.django_db(transaction=True)
def test_concurrent_different_answers_to_the_last_question_record_one_and_score_once():
    learner = make_user()
    quiz = make_quiz(questions=1)
    attempt = attempt_start(user=learner, quiz=quiz)
    question = quiz.questions.get()
    choices = list(question.choices.values_list("pk", flat=True))
    payloads = [{"choice": choices[i % len(choices)]} for i in range(CONCURRENT)]

    statuses = _post_concurrently(learner, f"/en/attempts/{attempt.pk}/questions/1/", payloads)

    assert 500 not in statuses
    answer = Answer.objects.get(attempt=attempt)
    attempt.refresh_from_db()
    assert attempt.is_finished
    assert attempt.score == (1 if answer.is_correct else 0)
    assert attempt.total == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_starts_make_one_attempt_in_progress():
    learner = make_user()
    quiz = make_quiz(questions=1)
    statuses = _post_concurrently(learner, f"/en/quizzes/{quiz.slug}/start/", [{}] * 10)
    assert sorted(set(statuses)) == [302]
    assert Attempt.objects.filter(user=learner, quiz=quiz).count() == 1


@pytest.mark.django_db
def test_a_replayed_answer_returns_the_recorded_outcome_unchanged(learner, quiz):
    attempt = attempt_start(user=learner, quiz=quiz)
    question = quiz.questions.get(position=1)
    first = post_answer(attempt, question, choice=wrong_choice(question))
    replay = post_answer(attempt, question, choice=wrong_choice(question))
    changed = post_answer(attempt, question, choice=correct_choice(question))
    assert first.step is Step.ANSWERED
    assert replay.step is Step.REPEATED and changed.step is Step.ANSWERED_BEFORE
    assert replay.answer.pk == changed.answer.pk == first.answer.pk
    assert not changed.answer.is_correct
    assert Answer.objects.filter(attempt=attempt).count() == 1


@pytest.mark.django_db
def test_a_back_button_resubmit_of_an_earlier_question_changes_nothing(learner_client, learner):
    quiz = make_quiz(questions=3)
    attempt = attempt_start(user=learner, quiz=quiz)
    q1, q2 = quiz.questions.get(position=1), quiz.questions.get(position=2)
    learner_client.post(f"/en/attempts/{attempt.pk}/questions/1/", {"choice": wrong_choice(q1).pk})
    learner_client.post(f"/en/attempts/{attempt.pk}/questions/2/", {"choice": wrong_choice(q2).pk})

    # The stale tab of question 1 posts again, now with the right answer.
    response = learner_client.post(
        f"/en/attempts/{attempt.pk}/questions/1/", {"choice": correct_choice(q1).pk}
    )
    assert response.status_code == 302
    assert list(
        Answer.objects.filter(attempt=attempt)
        .order_by("question__position")
        .values_list("is_correct", flat=True)
    ) == [False, False]
    # The answer is not counted against question 3 either.
    assert not Answer.objects.filter(question__position=3).exists()


@pytest.mark.django_db
def test_instructor_edits_after_an_attempt_change_no_score_or_review(learner_client, learner):
    quiz = make_quiz(questions=2)
    attempt = attempt_start(user=learner, quiz=quiz)
    for question in quiz.questions.all():
        post_answer(attempt, question, choice=correct_choice(question))

    question = quiz.questions.get(position=1)
    old_key, new_key = correct_choice(question), wrong_choice(question)
    Choice.objects.filter(pk=old_key.pk).update(is_correct=False, fraction=0)
    Choice.objects.filter(pk=new_key.pk).update(is_correct=True, fraction=1)
    question.save()  # as the admin would: moves the content version

    attempt.refresh_from_db()
    assert (attempt.score, attempt.total) == (2, 2)
    page = learner_client.get(f"/en/attempts/{attempt.pk}/result/").content.decode()
    assert "2 / 2" in page
    assert "Incorrect" not in page
