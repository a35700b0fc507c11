"""Answering as a learner does, for tests: the fields a step's form posts (in the attempt's
own numbering of shuffled choices, matches and items), read by the step's `AnswerForm` and
taken by `quizzes.attempts.attempt_answer`, the one call the step's view makes."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from quizzes.attempts import services as engine
from quizzes.attempts.services import StepOutcome, attempt_answer
from quizzes.attempts.state import attempt_state
from quizzes.content import QuestionData
from quizzes.forms import AnswerForm
from quizzes.grading import Response
from quizzes.models import Attempt, Choice, Question
from tests import factories
from tests.factories import correct_choice


def right_answer_data(attempt: Attempt, question: Question) -> dict[str, str | list[str]]:
    """The step's fields for the right answer: the choice (every right one), the full-mark
    number, a full-mark accepted text, each prompt's match by its number in this attempt's
    order, each item's right position."""
    shown = attempt.choice_order.get(str(question.pk)) or []
    if question.kind == Question.Kind.MULTIPLE:
        right = question.choices.filter(is_correct=True).values_list("pk", flat=True)
        return {"choice": [str(pk) for pk in right]}
    if question.kind == Question.Kind.NUMERICAL:
        return {"number": str(question.numerical_answers.get(fraction=1).value.normalize())}
    if question.kind == Question.Kind.SHORT:
        return {"text": question.accepted_texts.filter(fraction=1).order_by("position")[0].text_en}
    if question.kind == Question.Kind.MATCHING:
        numbers = {pk: n for n, pk in enumerate(shown, start=1)}
        prompts = question.pairs.exclude(prompt_en="").order_by("position")
        return {f"match-{n}": str(numbers[p.pk]) for n, p in enumerate(prompts, start=1)}
    if question.kind == Question.Kind.ORDERING:
        place = {
            pk: n
            for n, pk in enumerate(
                question.order_items.order_by("position").values_list("pk", flat=True), start=1
            )
        }
        return {f"position-{n}": str(place[pk]) for n, pk in enumerate(shown, start=1)}
    return {"choice": str(correct_choice(question).pk)}


def post_answer(
    attempt: Attempt,
    question: Question | QuestionData,
    *,
    choice: Choice | Any | None = None,
    response: Response | None = None,
    number: int | None = None,
    seen: bool = True,
    now: datetime | None = None,
    confidence: int | str | None = None,
) -> StepOutcome:
    """`attempt`'s learner answers `question` on its step: picks `choice`, or sends
    `response` (the choices ticked, the number or text typed, the matches or the order)
    through the step's form. `number`: the step the form was on (the question's own by
    default); `seen=False`: a page too old to send the question's id. `attempt` is brought up
    to date (finished, scored) as the answer leaves it. `confidence`: the level ticked under
    the answer (quizzes/confidence.py), when the quiz asks."""
    state = attempt_state(attempt)
    known = state.content.question(question.pk)
    if response is None:
        response = Response(choice_ids=(choice.pk,) if choice is not None else ())
    data = form_data(state, known, response) if known is not None else _ids(response)
    if confidence is not None:
        data["confidence"] = str(confidence)
    form = AnswerForm({"question": str(question.pk) if seen else "", **data})
    assert form.is_valid(), form.errors
    if number is None:
        number = state.number_of(known) if known is not None and state.question(known.pk) else 1
    outcome = attempt_answer(
        user=attempt.user, attempt_id=attempt.pk, number=number, posted=form.posted(), now=now
    )
    attempt.refresh_from_db(fields=["finished_at", "score", "total", "cbm_score"])
    return outcome


def form_data(state: Any, question: QuestionData, response: Response) -> dict[str, Any]:
    """`AnswerForm`'s data as the step's form posts `response` to `question` in this attempt
    (`views.common.answer_data`): choices by their number on the page when the attempt
    shuffled them, matches and positions by the numbers of its own order of matches and
    items."""
    if response.number is not None:
        return {"number": str(response.number)}
    if response.text is not None:
        return {"text": response.text}
    if response.arrangement is not None:
        shown = [part.pk for part in state.parts_of(question)]
        if question.kind == Question.Kind.MATCHING:
            picked = dict(response.arrangement)
            return {
                "match": [
                    str(shown.index(picked[prompt.pk]) + 1) if prompt.pk in picked else ""
                    for prompt in question.prompts
                ]
            }
        order = list(response.arrangement)
        return {"position": [str(order.index(pk) + 1) if pk in order else "" for pk in shown]}
    numbered = state.numbered_choices(question)
    if numbered is None:
        return _ids(response)
    numbers = {choice.pk: n for n, choice in enumerate(numbered, start=1)}
    return {"choice": [str(numbers.get(pk, pk)) for pk in response.choice_ids]}


def _ids(response: Response) -> dict[str, Any]:
    return {"choice": [str(pk) for pk in response.choice_ids]}


def another_tab_between_read_and_write(
    monkeypatch: pytest.MonkeyPatch, other_tab: Callable[[], object]
) -> None:
    """Two tabs' requests interleaved: `other_tab` (a whole request of the same learner) runs
    once, right after the next request has read its attempt and before it writes anything."""
    read = engine.attempt_read

    def reading(**kwargs: Any) -> Any:
        got = read(**kwargs)
        monkeypatch.setattr(engine, "attempt_read", read)
        other_tab()
        return got

    monkeypatch.setattr(engine, "attempt_read", reading)


# When the bystander did all they did (`bystander_on`): before every clock the tests stop, so
# that their cards are due and their attempt finished whatever a test's own time.
BYSTANDER_AT = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def bystander_on(quiz: Any, username: str = "Bystander") -> Any:
    """Another learner with activity on `quiz`'s own questions, beside the learner a test is
    about: a finished attempt with every question of choices answered wrong and very sure (so a
    review card each, all due, and levels for calibration, when the quiz asks), the first card
    answered right in a review, a problem report and a sign-in's record. A learner-scoped page
    or service must neither show nor touch any of it (the `bystander` fixture, tests/conftest.py).
    """
    import time_machine
    from axes.models import AccessLog

    from quizzes.attempts.services import attempt_start, attempt_submit_all
    from quizzes.confidence import VERY_SURE
    from quizzes.grading import Posted
    from quizzes.models import QuestionReport, ReviewCard
    from quizzes.review.services import review_answer_post

    user = factories.make_user(username, email=f"{username.lower()}@example.org")
    questions = list(quiz.questions.order_by("position"))
    level = VERY_SURE if quiz.confidence != "off" else None
    with time_machine.travel(BYSTANDER_AT, tick=False):
        attempt = attempt_start(user=user, quiz=quiz)
        for question in questions:
            if (wrong := factories.wrong_choice(question)) is not None:
                post_answer(attempt, question, choice=wrong, confidence=level)
        attempt_submit_all(user=user, attempt_id=attempt.pk)
        card = ReviewCard.objects.filter(user=user).order_by("question__position").first()
        if card is not None:
            right = factories.correct_choice(card.question)
            outcome = review_answer_post(
                user_id=user.pk,
                card_id=card.pk,
                revision=card.reviews,
                posted=Posted(choices=(right.pk,), confidence=level),
            )
            assert outcome.answer is not None, outcome
    if questions:
        QuestionReport.objects.create(user=user, question=questions[0], reason="unclear")
    AccessLog.objects.create(username=user.get_username(), ip_address="192.0.2.77")
    return user
