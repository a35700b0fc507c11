"""Short-answer, matching and ordering questions taken by a learner: the step's form, the
answer's mark and feedback, refusals that record nothing, exam mode and the result page."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from quizzes.attempts.services import attempt_start
from quizzes.models import Answer, Attempt, Quiz, ReviewCard
from tests.factories import make_typed_quiz

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def typed_quiz():
    return make_typed_quiz()


def step(attempt, number):
    return f"/en/attempts/{attempt.pk}/questions/{number}/"


def select_options(page: str, name: str) -> list[tuple[str, str]]:
    """The (value, label) options of the select named `name`."""
    select = re.search(rf'<select[^>]*name="{name}"[^>]*>(.*?)</select>', page, re.S)
    assert select, f"no select {name}"
    return re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select[1])


def match_numbers(page: str, wanted: dict[str, str]) -> dict[str, str]:
    """The numbers to post for matching: per `match-N` select, the option whose label is the
    match wanted for the N-th prompt."""
    posted = {}
    for n, label in enumerate(wanted.values(), start=1):
        options = {text: value for value, text in select_options(page, f"match-{n}")}
        posted[f"match-{n}"] = options[label]
    return posted


def shown_items(page: str) -> list[str]:
    return re.findall(r'class="order-item__text"[^>]*>([^<]*)</label>', page)


def order_positions(page: str, right: list[str], order: list[str]) -> dict[str, str]:
    """The positions to post so that the items are in `order` (their texts)."""
    return {
        f"position-{n}": str(order.index(text) + 1)
        for n, text in enumerate(shown_items(page), start=1)
    }


RIGHT_ORDER = ["forward", "backward", "all-reduce", "optimizer step"]
RIGHT_MATCHES = {"ZeRO-1": "optimizer states", "ZeRO-2": "gradients", "ZeRO-3": "parameters"}


def test_a_learner_types_matches_and_orders_and_gets_each_mark(learner_client, learner, typed_quiz):
    attempt = attempt_start(user=learner, quiz=typed_quiz)
    questions = list(typed_quiz.questions.order_by("position"))

    page = learner_client.get(step(attempt, 1)).content.decode()
    assert 'name="text"' in page and 'maxlength="200"' in page
    answered = learner_client.post(
        step(attempt, 1), {"question": questions[0].pk, "text": "  Optimizer   STATES "}, **HX
    ).content.decode()
    assert "Correct." in answered

    page = learner_client.get(step(attempt, 2)).content.decode()
    labels = [label for _value, label in select_options(page, "match-1")][1:]
    assert sorted(labels) == ["activations", "gradients", "optimizer states", "parameters"]
    wrong_one = {**RIGHT_MATCHES, "ZeRO-3": "activations"}
    answered = learner_client.post(
        step(attempt, 2), {"question": questions[1].pk, **match_numbers(page, wrong_one)}, **HX
    ).content.decode()
    assert "Partly correct: 0.67 of 1." in answered
    assert "activations" in answered and "parameters" in answered  # picked, and the right one

    page = learner_client.get(step(attempt, 3)).content.decode()
    assert shown_items(page) != RIGHT_ORDER  # never shown in the right order
    swapped = ["forward", "all-reduce", "backward", "optimizer step"]
    answered = learner_client.post(
        step(attempt, 3),
        {"question": questions[2].pk, **order_positions(page, RIGHT_ORDER, swapped)},
        **HX,
    ).content.decode()
    assert "Partly correct: 0.75 of 1." in answered  # three of four in the right order
    assert "Correct order" in answered

    attempt.refresh_from_db()
    assert attempt.is_finished and attempt.total == 3
    assert float(attempt.score) == pytest.approx(1 + 2 / 3 + 0.75, abs=0.001)
    stored = {a.question_id: a for a in Answer.objects.filter(attempt=attempt)}
    assert stored[questions[0].pk].text == "  Optimizer   STATES "  # kept as typed
    assert len(stored[questions[1].pk].arrangement) == 3
    assert len(stored[questions[2].pk].arrangement) == 4
    # Misses come back in review: the partly right matching and ordering.
    assert set(ReviewCard.objects.filter(user=learner).values_list("question_id", flat=True)) == {
        questions[1].pk,
        questions[2].pk,
    }

    result = learner_client.get(f"/en/attempts/{attempt.pk}/result/").content.decode()
    assert "Optimizer   STATES" in result and "Your order" in result and "Your match" in result


def test_a_partly_right_short_answer_earns_its_weight_and_a_wrong_one_names_the_answer(
    learner_client, learner, typed_quiz
):
    attempt = attempt_start(user=learner, quiz=typed_quiz)
    question = typed_quiz.questions.get(position=1)
    answered = learner_client.post(
        step(attempt, 1), {"question": question.pk, "text": "States"}, **HX
    ).content.decode()
    assert "Partly correct: 0.5 of 1." in answered
    assert "optimizer states" in answered  # the whole answer named


@pytest.mark.parametrize(
    "typed",
    ["حالات المحسن", "حَالَاتُ المُحَسِّن", "حالـات المحسّن", "  حالات   المحسن  "],
    ids=["no-shadda", "diacritics", "tatweel", "spaces"],
)
def test_an_arabic_answer_counts_however_it_is_typed(learner_client, learner, typed_quiz, typed):
    attempt = attempt_start(user=learner, quiz=typed_quiz)
    question = typed_quiz.questions.get(position=1)
    answered = learner_client.post(
        f"/ar/attempts/{attempt.pk}/questions/1/", {"question": question.pk, "text": typed}, **HX
    ).content.decode()
    assert Answer.objects.get(attempt=attempt).is_correct, answered


@pytest.mark.parametrize(
    ("number", "data", "error"),
    [
        (1, {"text": "   "}, "Type your answer before submitting."),
        (1, {"text": "x" * 201}, "Type at most 200 characters."),
        (2, {"match-1": "1", "match-2": "", "match-3": "2"}, "Choose a match for every prompt"),
        (2, {"match-1": "1", "match-2": "9", "match-3": "2"}, "Choose one of the answers listed."),
        (2, {"match-1": "1", "match-2": "x", "match-3": "2"}, "Choose one of the answers listed."),
        (2, {"match-1": "1"}, "Choose one of the answers listed."),
        (3, {f"position-{n}": "1" for n in range(1, 5)}, "Give each item a different position."),
        (3, {"position-1": "1", "position-2": "2"}, "Choose one of the answers listed."),
        (3, {**{f"position-{n}": str(n) for n in range(1, 5)}, "position-4": "7"}, "Choose one"),
    ],
    ids=[
        "empty",
        "too-long",
        "a-prompt-unmatched",
        "unknown-match",
        "letters",
        "too-few-prompts",
        "same-position",
        "too-few-items",
        "unknown-position",
    ],
)
def test_what_cannot_be_read_gets_the_forms_error_and_records_nothing(
    learner_client, learner, typed_quiz, number, data, error
):
    attempt = attempt_start(user=learner, quiz=typed_quiz)
    # Steps open in order: answer those before.
    for earlier in range(1, number):
        Answer.objects.create(
            attempt=attempt,
            question=typed_quiz.questions.get(position=earlier),
            fraction=0,
            is_correct=False,
        )
    question = typed_quiz.questions.get(position=number)
    response = learner_client.post(step(attempt, number), {"question": question.pk, **data}, **HX)
    assert response.status_code == 422
    assert error in response.content.decode()
    assert not Answer.objects.filter(attempt=attempt, question=question).exists()


def test_in_exam_mode_typed_answers_are_saved_changeable_and_reveal_nothing(
    learner_client, learner
):
    quiz = make_typed_quiz(feedback=Quiz.Feedback.DEFERRED, time_limit=timedelta(minutes=20))
    attempt = attempt_start(user=learner, quiz=quiz)
    short, matching, ordering = quiz.questions.order_by("position")
    for text in ("gradients", "optimizer states"):
        saved = learner_client.post(
            step(attempt, 1), {"question": short.pk, "text": text}, **HX
        ).content.decode()
        assert "Answer saved" in saved and f'value="{text}"' in saved
        assert "Correct." not in saved and "Correct answer" not in saved and "Partly" not in saved
    page = learner_client.get(step(attempt, 2)).content.decode()
    learner_client.post(
        step(attempt, 2), {"question": matching.pk, **match_numbers(page, RIGHT_MATCHES)}, **HX
    )
    again = learner_client.get(step(attempt, 2)).content.decode()
    assert "selected" in again and "Correct match" not in again  # the picks kept, no verdict
    page = learner_client.get(step(attempt, 3)).content.decode()
    learner_client.post(
        step(attempt, 3),
        {"question": ordering.pk, **order_positions(page, RIGHT_ORDER, RIGHT_ORDER)},
        **HX,
    )
    assert Answer.objects.get(attempt=attempt, question=short).text == "optimizer states"
    learner_client.post(f"/en/attempts/{attempt.pk}/finish/")
    attempt = Attempt.objects.get(pk=attempt.pk)
    assert attempt.is_finished and attempt.score == 3


def test_each_attempt_keeps_its_own_order_of_matches_and_items(learner, typed_quiz):
    attempt = attempt_start(user=learner, quiz=typed_quiz)
    matching, ordering = typed_quiz.questions.filter(position__in=[2, 3]).order_by("position")
    assert sorted(attempt.choice_order[str(matching.pk)]) == sorted(
        matching.pairs.values_list("pk", flat=True)
    )
    assert attempt.choice_order[str(ordering.pk)] != list(
        ordering.order_items.order_by("position").values_list("pk", flat=True)
    )
    assert attempt_start(user=learner, quiz=typed_quiz).choice_order == attempt.choice_order


def test_a_missed_matching_question_comes_back_in_review_and_is_answered_there(
    learner_client, learner, typed_quiz
):
    from quizzes.models import ReviewAnswer

    matching = typed_quiz.questions.get(position=2)
    card = ReviewCard.objects.create(
        user=learner, question=matching, due=timezone.now() - timedelta(minutes=1), state=1
    )
    page = learner_client.get("/en/review/").content.decode()
    assert "Choose the match of each prompt" in page
    response = learner_client.post(
        "/en/review/",
        {
            "card": card.pk,
            "revision": card.reviews,
            "question": matching.pk,
            **match_numbers(page, RIGHT_MATCHES),
        },
        **HX,
    )
    assert response.status_code == 200 and "Correct." in response.content.decode()
    answer = ReviewAnswer.objects.get(card=card)
    assert answer.is_correct and len(answer.arrangement) == 3
    assert learner_client.get("/en/review/").status_code == 200


def test_the_admins_preview_takes_an_ordering_question_and_records_nothing(
    admin_client, typed_quiz
):
    url = f"/en/admin/quizzes/quiz/{typed_quiz.pk}/preview/3/"
    page = admin_client.get(url).content.decode()
    assert len(shown_items(page)) == 4
    response = admin_client.post(
        url, {**order_positions(page, RIGHT_ORDER, RIGHT_ORDER)}
    ).content.decode()
    assert "Correct." in response
    assert not Answer.objects.exists()
