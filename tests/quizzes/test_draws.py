"""Draws and order (Quiz.questions_per_attempt, Quiz.shuffle_questions): an attempt draws its
questions when it starts, unseen ones first, and keeps its draw and order for its whole life."""

import re

import pytest
from django.test import Client

from quizzes.attempts.services import attempt_start
from quizzes.attempts.state import attempt_read, attempt_state
from quizzes.content import content_changed
from quizzes.models import Question
from tests.factories import add_question, correct_choice, make_quiz, make_user, wrong_choice
from tests.steps import post_answer


def read(learner, attempt):
    state, _card = attempt_read(user_id=learner.pk, attempt_id=attempt.pk)
    return state


pytestmark = pytest.mark.django_db


def _take_all(learner, quiz, *, right=True):
    attempt = attempt_start(user=learner, quiz=quiz)
    state = attempt_state(attempt)
    for question in state.questions:
        pick = correct_choice(question) if right else wrong_choice(question)
        post_answer(attempt, question, choice=pick)
    attempt.refresh_from_db()
    return attempt, [q.pk for q in state.questions]


def test_an_attempt_draws_its_share_and_is_scored_out_of_it(learner):
    quiz = make_quiz(questions=5, questions_per_attempt=2)

    attempt, drawn = _take_all(learner, quiz)

    assert len(drawn) == 2 and attempt.question_order == drawn
    assert attempt.is_finished  # two answers finish it
    assert (attempt.score, attempt.total) == (2, 2)


def test_unseen_questions_come_first_then_those_seen_longest_ago(learner):
    quiz = make_quiz(questions=5, questions_per_attempt=2)
    _first, one = _take_all(learner, quiz)
    _second, two = _take_all(learner, quiz)
    _third, three = _take_all(learner, quiz)

    all_ids = set(quiz.questions.values_list("pk", flat=True))
    assert not set(one) & set(two)  # the second attempt saw two unseen
    assert set(three) >= all_ids - set(one) - set(two)  # the last unseen one …
    assert len(set(three) & set(one)) == 1  # … and one of the first draw, seen longest ago


def test_the_draw_and_order_stay_for_the_attempts_whole_life(learner):
    quiz = make_quiz(questions=6, questions_per_attempt=3, shuffle_questions=True)
    attempt = attempt_start(user=learner, quiz=quiz)
    drawn = attempt.question_order

    again = read(learner, attempt)
    assert [q.pk for q in again.questions] == drawn
    assert attempt_start(user=learner, quiz=quiz).question_order == drawn  # resumed

    client = Client()
    client.force_login(learner)
    for number, pk in enumerate(drawn, start=1):
        question = Question.objects.get(pk=pk)
        page = client.get(f"/en/attempts/{attempt.pk}/questions/{number}/").content.decode()
        assert question.prompt_en in page
        client.post(
            f"/en/attempts/{attempt.pk}/questions/{number}/",
            {"choice": wrong_choice(question).pk, "question": pk},
        )
    result = client.get(f"/en/attempts/{attempt.pk}/result/").content.decode()
    shown = [Question.objects.get(pk=pk).prompt_en for pk in drawn]
    assert [result.index(prompt) for prompt in shown] == sorted(result.index(p) for p in shown)
    not_drawn = quiz.questions.exclude(pk__in=drawn)
    assert not any(question.prompt_en in result for question in not_drawn)


def test_shuffled_attempts_each_have_their_own_order():
    quiz = make_quiz(questions=4, shuffle_questions=True)
    orders = {tuple(attempt_start(user=make_user(), quiz=quiz).question_order) for _ in range(12)}
    assert len(orders) > 1
    assert all(
        sorted(order) == sorted(quiz.questions.values_list("pk", flat=True)) for order in orders
    )


def test_a_question_added_after_the_start_is_not_part_of_a_draw(learner):
    quiz = make_quiz(questions=3, questions_per_attempt=2)
    attempt = attempt_start(user=learner, quiz=quiz)
    add_question(quiz, 9)
    content_changed(quiz=quiz)
    assert read(learner, attempt).count == 2


def test_an_attempt_that_drew_none_keeps_every_question_the_quiz_has(learner):
    quiz = make_quiz(questions=2)
    attempt = attempt_start(user=learner, quiz=quiz)
    assert attempt.question_order == []
    add_question(quiz, 3)
    content_changed(quiz=quiz)
    assert read(learner, attempt).count == 3


def test_the_grades_report_says_not_drawn_not_wrong(instructor, learner):
    quiz = make_quiz(questions=3, questions_per_attempt=1)
    attempt, (drawn,) = _take_all(learner, quiz, right=False)
    client = Client()
    client.force_login(instructor)

    page = client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/results/").content.decode()
    assert page.count("Not drawn") == 2

    response = client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/results.csv")
    csv = b"".join(response.streaming_content).decode()
    row = csv.splitlines()[1].split(",")
    assert row.count("not drawn") == 2 and row[7] == "1"  # out of the one drawn


def test_shuffled_choices_are_sent_by_their_number_on_the_page_not_their_id(learner):
    """Ids follow the order choices were written in (often the right one first): a shuffled
    step numbers its choices 1, 2, … as shown, and reads the number back."""
    quiz = make_quiz(questions=1, choices=4, shuffle_choices=True)
    question = quiz.questions.get()
    attempt = attempt_start(user=learner, quiz=quiz)
    shown = attempt.choice_order[str(question.pk)]
    client = Client()
    client.force_login(learner)
    step = f"/en/attempts/{attempt.pk}/questions/1/"

    page = client.get(step).content.decode()
    assert re.findall(r'name="choice" value="(\d+)"', page) == ["1", "2", "3", "4"]
    assert not any(f'value="{pk}"' in page for pk in shown if pk > 4)

    right = shown.index(correct_choice(question).pk) + 1
    client.post(step, {"choice": right, "question": question.pk})
    answer = attempt.answers.get()
    assert answer.choice_id == correct_choice(question).pk and answer.is_correct

    refused = Client()
    other = attempt_start(user=make_user(), quiz=quiz)
    refused.force_login(other.user)
    response = refused.post(
        f"/en/attempts/{other.pk}/questions/1/", {"choice": 5, "question": question.pk}
    )
    assert response.status_code == 422 and not other.answers.exists()
