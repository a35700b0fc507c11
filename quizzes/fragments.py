"""Parts of a step rendered once per content version, language and order of choices.

A question's form fields (its prompt and choices, nothing answered) and the body of its
feedback (the prompt, the verdict on each choice, the explanation) are the same for every
learner who sees that question of that version in that language with the choices in that
order and, for feedback, with the same answer. They are rendered once and kept on the
question object of the cached content version (quizzes/content.py), so a new version starts
empty and nothing ever needs invalidating. What is the learner's own (the step's URL, the
CSRF token, progress, messages, the report link) is rendered per request around them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import SafeString

if TYPE_CHECKING:
    from .models import Answer, Choice, ChoiceVerdict, Question

TAKE_TEMPLATE = "quizzes/take.html"
# Per question and kind of part: enough for every language and a few shuffled orders and
# answers; past it (a long shuffled quiz, numbers typed freely) parts are rendered each time.
MAX_PER_QUESTION = 64


def question_fields(*, question: Question, choices: list[Choice]) -> SafeString:
    """The question's fieldset, unanswered, as `take.html#question_fields` renders it."""
    key = (translation.get_language(), tuple(choice.pk for choice in choices))
    context = {"question": question, "choices": choices, "answer": None, "form": None}
    return _rendered(question, "_fields_html", key, "question_fields", context)


def feedback_body(
    *, question: Question, answer: Answer, verdicts: list[ChoiceVerdict]
) -> SafeString:
    """The answered question and why, as `take.html#feedback_body` renders it."""
    key = (
        translation.get_language(),
        tuple((row.choice.pk, row.ticked, row.right) for row in verdicts),
        answer.choice_id,
        answer.correct_choice_id,
        tuple(answer.choice_ids or ()),
        str(answer.number),
        str(answer.fraction),
        answer.is_correct,
        json.dumps(answer.key, sort_keys=True, default=str),
    )
    context = {"question": question, "answer": answer, "verdicts": verdicts}
    return _rendered(question, "_feedback_html", key, "feedback_body", context)


def _rendered(
    question: Question, store: str, key: tuple, partial: str, context: dict[str, Any]
) -> SafeString:
    parts: dict[tuple, SafeString] = question.__dict__.setdefault(store, {})
    html = parts.get(key)
    if html is None:
        html = SafeString(render_to_string(f"{TAKE_TEMPLATE}#{partial}", context))
        if len(parts) < MAX_PER_QUESTION:
            parts[key] = html  # one dict per question, shared by the requests of a process
    return html
