"""What the admin's validation would say against a question read from a file, before anything
is written: its kind's rules (the models' own checks, as the GIFT import calls them) and the
lengths its fields hold. Shared by every reader."""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from ...models import (
    parts_problems,
    validate_choice_set,
    validate_numerical_answers,
)
from ...models.kinds import PART_TEXT_MAX_LENGTH, SHORT_ANSWER_MAX_LENGTH
from ...text import TEXT_MAX_LENGTH
from ..gift.format import CHOICE_TEXT_MAX_LENGTH
from .content import Bilingual, Note, Question

CHOICE_KINDS = ("single", "multiple", "truefalse")
FULL = Decimal(1)


class _Row:
    """A row as `parts_problems` reads one: a position, a weight, a prompt."""

    def __init__(self, position: int, fraction: Decimal = FULL, prompt: Bilingual | None = None):
        self.position = position
        self.fraction = fraction
        self.prompt_en = prompt.en if prompt else ""
        self.prompt_ar = prompt.ar if prompt else ""


def question_problems(question: Question) -> list[Note]:
    """The reasons `question` cannot be written as it stands (empty: it can)."""
    messages = _lengths(question)
    try:
        if question.kind in CHOICE_KINDS:
            validate_choice_set(
                [(n, part.fraction > 0, part.fraction) for n, part in enumerate(question.parts)],
                kind=question.kind,
                strict_total=False,
            )
        elif question.kind == "numerical":
            validate_numerical_answers([(n, p.fraction) for n, p in enumerate(question.parts)])
        elif question.kind == "short":
            parts_problems("short", texts=[_Row(n, p.fraction) for n, p in _numbered(question)])
        elif question.kind == "matching":
            rows = [_Row(n, prompt=pair.prompt) for n, pair in enumerate(question.pairs)]
            parts_problems("matching", pairs=rows)
        elif question.kind == "ordering":
            parts_problems("ordering", items=[_Row(n) for n, _part in _numbered(question)])
    except ValidationError as invalid:
        messages.extend(invalid.messages)
    return [question.note(_named(question, message)) for message in messages]


def _numbered(question: Question):
    return enumerate(question.parts, start=1)


def weights_warning(question: Question) -> Note | None:
    """Several answers whose right weights do not add up to 100%: kept, as Moodle keeps them."""
    if question.kind != "multiple":
        return None
    total = sum((part.fraction for part in question.parts if part.fraction > 0), Decimal(0))
    if abs(total - FULL) <= Decimal("0.00001") or not total:
        return None
    return question.note(
        _named(
            question,
            _(
                "the right answers' weights add up to %(total)s%%, not 100%%: a learner who "
                "ticks them all earns that share of the mark."
            )
            % {"total": f"{(total * 100).normalize():f}"},
        )
    )


def _named(question: Question, message: str) -> str:
    if not question.name:
        return message
    return _("Question “%(name)s”: %(message)s") % {"name": question.name, "message": message}


def _too_long(field: str, value: str, limit: int) -> str | None:
    if len(value) <= limit:
        return None
    return _("its %(field)s is %(length)d characters long; at most %(max)d fit.") % {
        "field": field,
        "length": len(value),
        "max": limit,
    }


def _lengths(question: Question) -> list[str]:
    checks: list[tuple[str, Bilingual, int]] = [
        (_("text"), question.prompt, TEXT_MAX_LENGTH),
        (_("general feedback"), question.explanation, TEXT_MAX_LENGTH),
    ]
    part_limit = {
        "short": SHORT_ANSWER_MAX_LENGTH,
        "ordering": PART_TEXT_MAX_LENGTH,
    }.get(question.kind, CHOICE_TEXT_MAX_LENGTH)
    for part in question.parts:
        if question.kind != "numerical":
            checks.append((_("answer"), part.text, part_limit))
        checks.append((_("feedback"), part.feedback, TEXT_MAX_LENGTH))
    for pair in question.pairs:
        checks.append((_("answer"), pair.prompt, PART_TEXT_MAX_LENGTH))
        checks.append((_("answer"), pair.match, PART_TEXT_MAX_LENGTH))
    messages = []
    if not question.prompt.en.strip():
        messages.append(_("it has no text."))
    for field, value, limit in checks:
        for text in (value.en, value.ar):
            if message := _too_long(field, text, limit):
                messages.append(message)
    return messages


def unexplained_note(names: list[str]) -> Note | None:
    """The questions whose explanation came empty: the quiz cannot be published before they
    have one (one note for them all)."""
    if not names:
        return None
    return Note(
        0,
        _(
            "No general feedback for %(count)d question(s) (%(names)s): their explanation is "
            "empty; write one before publishing."
        )
        % {"count": len(names), "names": listed(names)},
    )


def listed(names: list[str]) -> str:
    shown = ", ".join(f"“{name}”" for name in names[:10])
    if len(names) > 10:
        shown += " " + _("and %(count)d more") % {"count": len(names) - 10}
    return shown


def image_choice_text(text: Bilingual, image, number: int) -> Bilingual:
    """A choice that is only an image still needs a text (learners pick it by its label, screen
    readers read it): its alt text, else "Image N"."""
    if text.en or image is None:
        return text
    return Bilingual(en=image.alt.en or f"Image {number}", ar=text.ar or image.alt.ar)


def question_accepted(document, quiz, question: Question, unexplained: list[str]) -> bool:
    """Check `question` as the admin would and add it to `quiz` (its problems go to the
    document's errors instead); a multiple-answer question whose right weights do not add up,
    and one with no explanation, are noted."""
    problems = question_problems(question)
    if problems:
        document.errors.extend(problems)
        return False
    if warning := weights_warning(question):
        document.warnings.append(warning)
    if not question.explanation.en:
        unexplained.append(question.name)
    quiz.questions.append(question)
    return True


def not_a_number(question: Question, said: str) -> Note:
    return question.note(
        _("Question “%(name)s”: “%(answer)s” is not a number.")
        % {"name": question.name, "answer": said[:40]}
    )


def description_left_out(question: Question) -> Note:
    return question.note(
        _("Description “%(name)s”: the quiz has a description already; this one was left out.")
        % {"name": question.name}
    )


def too_many_questions(maximum: int, line: int, source: str = "") -> Note:
    return Note(
        line,
        _(
            "The file has more than %(max)d questions; at most %(max)d can be imported from one "
            "file. Split it into several files."
        )
        % {"max": maximum},
        source,
    )
