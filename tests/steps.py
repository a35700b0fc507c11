"""What a step's form posts for the right answer to any kind of question, as a learner's
browser would send it for `attempt` (its own order of matches and items)."""

from __future__ import annotations

from quizzes.models import Attempt, Question
from tests.factories import correct_choice


def right_answer_data(attempt: Attempt, question: Question) -> dict[str, str]:
    """The step's fields for the right answer: the choice, a full-mark accepted text, each
    prompt's match by its number in this attempt's order, each item's right position."""
    shown = attempt.choice_order.get(str(question.pk)) or []
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
