"""Taking questions of every kind: several answers, true or false, a number; partial marks."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.utils import timezone

from quizzes.attempts.services import Step, attempt_start, attempt_submit_all
from quizzes.content import content_changed
from quizzes.grading import Response
from quizzes.models import (
    Answer,
    Attempt,
    Choice,
    NumericalAnswer,
    Quiz,
    ReviewAnswer,
    ReviewCard,
)
from tests.factories import correct_choice, make_mixed_quiz
from tests.steps import post_answer

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def mixed(db):
    return make_mixed_quiz()


@pytest.fixture
def attempt(learner, mixed):
    return attempt_start(user=learner, quiz=mixed)


def url(attempt: Attempt, number: int) -> str:
    return f"/en/attempts/{attempt.pk}/questions/{number}/"


def question(quiz, position: int):
    return quiz.questions.get(position=position)


def boxes(quiz, position: int, *choice_positions: int) -> list[int]:
    return list(
        question(quiz, position)
        .choices.filter(position__in=choice_positions)
        .values_list("pk", flat=True)
    )


def answer_first(client, attempt, quiz) -> None:
    response = client.post(url(attempt, 1), {"choice": correct_choice(question(quiz, 1)).pk})
    assert response.status_code == 302


def test_several_answers_are_asked_with_checkboxes_that_say_nothing_of_how_many_are_right(
    learner_client, attempt, mixed
):
    answer_first(learner_client, attempt, mixed)

    page = learner_client.get(url(attempt, 2)).content.decode()

    assert page.count('type="checkbox" name="choice"') == 4
    assert 'type="radio"' not in page
    assert "Tick every answer that applies." in page
    # No weight, no count, no mark of the right ones before answering.
    assert "choice--correct" not in page and "0.5" not in page and "two" not in page.lower()


def test_half_the_right_boxes_earn_half_the_mark_and_every_choice_gets_its_verdict(
    learner_client, attempt, mixed
):
    answer_first(learner_client, attempt, mixed)

    response = learner_client.post(url(attempt, 2), {"choice": boxes(mixed, 2, 1)}, **HX)

    page = response.content.decode()
    answer = Answer.objects.get(attempt=attempt, question=question(mixed, 2))
    assert response.status_code == 200
    assert answer.fraction == Decimal("0.5") and not answer.is_correct
    assert answer.choice_ids == boxes(mixed, 2, 1)
    assert "Partly correct: 0.5 of 1." in page
    assert page.count("choice--correct") == 2  # both right boxes shown, one was not ticked
    assert page.count("choice__tag--mine") == 1


def test_a_right_and_a_wrong_box_cancel_out(learner_client, attempt, mixed):
    answer_first(learner_client, attempt, mixed)

    learner_client.post(url(attempt, 2), {"choice": boxes(mixed, 2, 1, 3)})

    answer = Answer.objects.get(attempt=attempt, question=question(mixed, 2))
    assert answer.fraction == 0


def test_no_box_ticked_is_a_422_that_records_nothing(learner_client, attempt, mixed):
    answer_first(learner_client, attempt, mixed)

    response = learner_client.post(url(attempt, 2), {"question": question(mixed, 2).pk})

    assert response.status_code == 422
    assert "Tick at least one answer before submitting." in response.content.decode()
    assert attempt.answers.count() == 1


def test_true_or_false_is_two_radio_buttons_in_the_pages_language(learner_client, attempt, mixed):
    answer_first(learner_client, attempt, mixed)
    learner_client.post(url(attempt, 2), {"choice": boxes(mixed, 2, 1, 2)})

    english = learner_client.get(url(attempt, 3)).content.decode()
    arabic = learner_client.get(f"/ar/attempts/{attempt.pk}/questions/3/").content.decode()

    assert english.count('type="radio" name="choice"') == 2
    assert re.search(r"True</span>.*False</span>", english, re.S)
    assert re.search(r"صواب</span>.*خطأ</span>", arabic, re.S)


def test_two_picks_for_true_or_false_are_refused(learner_client, attempt, mixed):
    answer_first(learner_client, attempt, mixed)
    learner_client.post(url(attempt, 2), {"choice": boxes(mixed, 2, 1, 2)})

    response = learner_client.post(url(attempt, 3), {"choice": boxes(mixed, 3, 1, 2)})

    assert response.status_code == 422
    assert attempt.answers.count() == 2


def _to_the_number(client, attempt, quiz) -> None:
    answer_first(client, attempt, quiz)
    client.post(url(attempt, 2), {"choice": boxes(quiz, 2, 1, 2)})
    client.post(url(attempt, 3), {"choice": boxes(quiz, 3, 1)})


def test_a_number_is_typed_in_a_text_box_with_a_decimal_keypad(learner_client, attempt, mixed):
    _to_the_number(learner_client, attempt, mixed)

    page = learner_client.get(url(attempt, 4)).content.decode()

    assert 'inputmode="decimal"' in page and 'name="number"' in page
    assert 'type="number"' not in page  # it would refuse Arabic-Indic digits
    assert 'name="choice"' not in page


def test_arabic_indic_digits_answer_a_number_and_finish_the_attempt(learner_client, attempt, mixed):
    _to_the_number(learner_client, attempt, mixed)

    response = learner_client.post(
        f"/ar/attempts/{attempt.pk}/questions/4/", {"number": "١٦٫٢"}, **HX
    )

    answer = Answer.objects.get(attempt=attempt, question=question(mixed, 4))
    attempt.refresh_from_db()
    assert response.status_code == 200
    assert answer.number == Decimal("16.2") and answer.is_correct
    assert attempt.is_finished and attempt.score == 4 and attempt.total == 4


@pytest.mark.parametrize("typed", ["16,2", "١٦,٢"])
def test_a_number_with_a_decimal_comma_answers_and_finishes_the_attempt(
    learner_client, attempt, mixed, typed
):
    _to_the_number(learner_client, attempt, mixed)

    response = learner_client.post(url(attempt, 4), {"number": typed}, **HX)

    answer = Answer.objects.get(attempt=attempt, question=question(mixed, 4))
    assert response.status_code == 200
    assert answer.number == Decimal("16.2") and answer.is_correct


def test_a_comma_before_three_digits_is_refused_with_why_and_what_to_type(
    learner_client, attempt, mixed
):
    _to_the_number(learner_client, attempt, mixed)

    response = learner_client.post(url(attempt, 4), {"number": "1,000"}, **HX)

    page = response.content.decode()
    assert response.status_code == 422
    assert "may separate thousands or decimals" in page and "such as 1000" in page
    assert 'aria-invalid="true"' in page
    assert attempt.answers.count() == 3


def test_the_hint_under_a_number_says_a_point_or_a_comma_and_no_thousands_separators(
    learner_client, attempt, mixed
):
    _to_the_number(learner_client, attempt, mixed)

    page = learner_client.get(url(attempt, 4)).content.decode()

    hint = re.search(r'<p class="field__hint" id="number-hint">(.*?)</p>', page)[1]
    assert "a point or a comma before decimals" in hint and "1,41" in hint
    assert "No thousands separators" in hint


@pytest.mark.parametrize("typed", ["sixteen", "16.2.1", "1e1", "", "+16", "16 bytes"])
def test_a_number_the_site_cannot_read_is_a_422_with_a_clear_message_and_records_nothing(
    learner_client, attempt, mixed, typed
):
    _to_the_number(learner_client, attempt, mixed)

    response = learner_client.post(url(attempt, 4), {"number": typed}, **HX)

    page = response.content.decode()
    assert response.status_code == 422
    assert "Type a number" in page
    assert 'aria-invalid="true"' in page
    assert attempt.answers.count() == 3
    attempt.refresh_from_db()
    assert not attempt.is_finished


def test_a_number_in_the_half_mark_range_earns_half_and_the_result_reads_3_5_of_4(
    learner_client, attempt, mixed
):
    _to_the_number(learner_client, attempt, mixed)
    learner_client.post(url(attempt, 4), {"number": "8"})

    result = learner_client.get(f"/en/attempts/{attempt.pk}/result/").content.decode()
    history = learner_client.get("/en/attempts/").content.decode()
    catalog = learner_client.get("/en/").content.decode()

    attempt.refresh_from_db()
    assert attempt.score == Decimal("3.5")
    assert "3.5 / 4" in result
    assert "88% correct" in result
    assert "Partly correct: 0.5 of 1" in result
    assert "16 ± 0.5" in result  # the accepted number, as it was keyed
    assert "3.5 / 4" in history
    assert "Best score: 3.5 / 4" in catalog


def test_a_double_post_of_boxes_counts_once(learner_client, attempt, mixed):
    answer_first(learner_client, attempt, mixed)
    ticked = {"choice": boxes(mixed, 2, 1, 2)}

    first = learner_client.post(url(attempt, 2), ticked, **HX)
    again = learner_client.post(url(attempt, 2), ticked, **HX)
    other = learner_client.post(url(attempt, 2), {"choice": boxes(mixed, 2, 1)}, **HX)

    assert first.status_code == again.status_code == other.status_code == 200
    assert Answer.objects.filter(attempt=attempt, question=question(mixed, 2)).count() == 1
    assert "your first answer counts" not in again.content.decode()
    assert "your first answer counts" in other.content.decode()
    assert Answer.objects.get(attempt=attempt, question=question(mixed, 2)).fraction == 1


def test_boxes_of_another_question_are_refused(learner_client, attempt, mixed):
    answer_first(learner_client, attempt, mixed)
    foreign = boxes(mixed, 3, 1)

    response = learner_client.post(url(attempt, 2), {"choice": boxes(mixed, 2, 1) + foreign})

    assert response.status_code == 409
    assert attempt.answers.count() == 1


def test_editing_the_key_after_answering_changes_no_mark_nor_review(learner_client, attempt, mixed):
    _to_the_number(learner_client, attempt, mixed)
    learner_client.post(url(attempt, 4), {"number": "8"})
    several = question(mixed, 2)
    # The instructor swaps which boxes are right, and moves the number.
    Choice.objects.filter(question=several, position__in=[1, 2]).update(
        is_correct=False, fraction=Decimal("-0.5")
    )
    Choice.objects.filter(question=several, position__in=[3, 4]).update(
        is_correct=True, fraction=Decimal("0.5")
    )
    NumericalAnswer.objects.filter(question=question(mixed, 4)).update(value=99)
    content_changed(quiz=mixed)

    step = learner_client.get(url(attempt, 2)).content.decode()
    result = learner_client.get(f"/en/attempts/{attempt.pk}/result/").content.decode()

    attempt.refresh_from_db()
    assert attempt.score == Decimal("3.5")
    assert "Correct." in step
    assert re.search(
        r'choice--correct choice--chosen">\s*<span class="choice__text">Box 2\.1', step
    )
    assert "16 ± 0.5" in result


def miss_every_question(client, attempt, quiz) -> None:
    client.post(url(attempt, 1), {"choice": question(quiz, 1).choices.get(position=2).pk})
    client.post(url(attempt, 2), {"choice": boxes(quiz, 2, 3)})
    client.post(url(attempt, 3), {"choice": boxes(quiz, 3, 2)})
    client.post(url(attempt, 4), {"number": "99"})
    ReviewCard.objects.update(due=timezone.now() - timezone.timedelta(minutes=1))


def review_form(page: str) -> dict[str, str]:
    """The hidden fields of the review step's form, and the question it asks."""
    return {
        name: re.search(rf'name="{name}" value="(\d+)"', page)[1]
        for name in ("card", "revision", "question")
    }


def test_a_missed_question_of_every_kind_comes_back_for_review_as_the_quiz_asked_it(
    learner_client, attempt, mixed
):
    miss_every_question(learner_client, attempt, mixed)
    carded = ReviewCard.objects.values_list("question__position", flat=True)
    assert sorted(carded) == [1, 2, 3, 4]

    right = {
        1: {"choice": correct_choice(question(mixed, 1)).pk},
        2: {"choice": boxes(mixed, 2, 1, 2)},
        3: {"choice": correct_choice(question(mixed, 3)).pk},
        4: {"number": "١٦٫٢"},  # Arabic-Indic digits, within 16 ± 0.5
    }
    asked = []
    for _ in range(4):
        page = learner_client.get("/en/review/").content.decode()
        form = review_form(page)
        position = mixed.questions.get(pk=form["question"]).position
        asked.append(position)
        if position == 2:
            assert page.count('type="checkbox" name="choice"') == 4
        if position == 4:
            assert 'inputmode="decimal" name="number"' in page
        response = learner_client.post("/en/review/", {**form, **right[position]}, **HX)
        assert response.status_code == 200
        assert "Correct." in response.content.decode()

    assert sorted(asked) == [1, 2, 3, 4]
    assert all(card.reviews == 2 for card in ReviewCard.objects.all())
    answers = ReviewAnswer.objects.all()
    assert len(answers) == 4 and all(a.is_correct and a.fraction == 1 for a in answers)
    assert not Answer.objects.filter(attempt__user=attempt.user).filter(is_correct=True).exists()


def test_a_partly_right_review_says_so_and_counts_as_missed_for_the_schedule(
    learner_client, attempt, mixed
):
    miss_every_question(learner_client, attempt, mixed)
    ReviewCard.objects.exclude(question=question(mixed, 2)).delete()
    page = learner_client.get("/en/review/").content.decode()

    response = learner_client.post(
        "/en/review/", {**review_form(page), "choice": boxes(mixed, 2, 1)}, **HX
    )

    assert "Partly correct: 0.5 of 1." in response.content.decode()
    [answer] = ReviewAnswer.objects.all()
    assert answer.fraction == Decimal("0.5") and not answer.is_correct
    card = ReviewCard.objects.get()
    assert card.reviews == 2 and card.due < timezone.now() + timezone.timedelta(days=2)


def test_a_review_number_in_letters_is_refused_and_records_nothing(learner_client, attempt, mixed):
    miss_every_question(learner_client, attempt, mixed)
    ReviewCard.objects.exclude(question=question(mixed, 4)).delete()
    page = learner_client.get("/en/review/").content.decode()

    response = learner_client.post("/en/review/", {**review_form(page), "number": "sixteen"})

    assert response.status_code == 422
    assert "Type a number with digits only" in response.content.decode()
    assert not ReviewAnswer.objects.exists()
    assert ReviewCard.objects.get().reviews == 1


def test_in_exam_mode_boxes_and_numbers_can_be_changed_until_submit_all(learner):
    quiz = make_mixed_quiz(feedback=Quiz.Feedback.DEFERRED)
    attempt = attempt_start(user=learner, quiz=quiz)
    several, number = question(quiz, 2), question(quiz, 4)

    def send(q, response):
        assert post_answer(attempt, q, response=response).step is Step.SAVED

    send(several, Response(choice_ids=tuple(boxes(quiz, 2, 3))))
    send(several, Response(choice_ids=tuple(boxes(quiz, 2, 1, 2))))
    send(number, Response(number=Decimal(99)))
    send(number, Response(number=Decimal(8)))
    assert attempt_submit_all(user=learner, attempt_id=attempt.pk).finished

    attempt.refresh_from_db()
    answers = {a.question_id: a for a in attempt.answers.all()}
    assert answers[several.pk].fraction == 1 and answers[several.pk].choice_ids == boxes(
        quiz, 2, 1, 2
    )
    assert answers[number.pk].number == 8 and answers[number.pk].fraction == Decimal("0.5")
    assert attempt.score == Decimal("1.5") and attempt.total == 4
