"""Marking rules of every question kind, as pure functions over the question's content.

No database and no request here: `attempts` records what these return. Moodle's rules:
a choice question earns the sum of the weights of the choices ticked, clamped to 0…1; a
numerical one earns the weight of the best accepted number whose range holds the response.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, NamedTuple

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from .content import AcceptedNumber, ChoiceData, ItemData, PairData, QuestionData
from .models import SHORT_ANSWER_MAX_LENGTH, TYPED_KINDS, Question
from .short_answers import matches as text_matches

if TYPE_CHECKING:
    from .attempts.responses import RecordedAnswer

# An answer's mark is kept to four decimals: Moodle's 1/3 weights (0.3333333) ticked three
# times make 0.9999999, which is the whole mark.
MARK_PLACES = Decimal("0.0001")
ZERO = Decimal(0)
ONE = Decimal(1)

# What a learner may type for a number: Western or Arabic-Indic digits, a point, a comma or the
# Arabic decimal separator before the decimals, a leading minus (ASCII or U+2212). Nothing
# else: no thousands separators, no exponent, no sign "+", no unit.
_DIGITS = str.maketrans("٠١٢٣٤٥٦٧٨٩", "0123456789")
_NUMBER = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
# A comma is the decimal separator of most of Europe ("1,41") and a thousands separator in
# English ("1,000"): read as decimals unless exactly three digits follow it after a whole part
# that is not zero, where it could be either. Several commas, a comma and a point, or the
# Arabic thousands separator are groups of thousands.
_DECIMAL_COMMA = re.compile(r"-?(?:[0-9]*),([0-9]*)")
_GROUPED = re.compile(r"-?[0-9]+(?:[,\u066c][0-9]+)+(?:\.[0-9]*)?")
# Marks an Arabic keyboard or a copy from right-to-left text puts around a number: LRM, RLM,
# ALM and the isolates. They carry no meaning inside a number.
_BIDI_MARKS = dict.fromkeys(map(ord, "\u200e\u200f\u061c\u2066\u2067\u2068\u2069"))
# Room in Answer.number (20 digits, 10 after the point).
MAX_INTEGER_DIGITS = 10
MAX_DECIMAL_PLACES = 10


class NumberError(ValueError):
    """What the learner typed is not a number the site reads; `message` says why."""

    def __init__(self, message: str | Promise) -> None:
        super().__init__(message)
        self.message = message


def _decimal_comma(cleaned: str) -> str:
    """`cleaned` with a comma that can only be a decimal separator made a point; NumberError
    where it could be a thousands separator too."""
    match = _DECIMAL_COMMA.fullmatch(cleaned)
    if match is None:
        if _GROUPED.fullmatch(cleaned):
            raise NumberError(THOUSANDS_REFUSED)
        return cleaned
    whole = cleaned.lstrip("-").partition(",")[0]
    if len(match[1]) == 3 and whole.strip("0"):
        raise NumberError(THOUSANDS_REFUSED)
    return cleaned.replace(",", ".")


THOUSANDS_REFUSED = _(
    "A comma followed by three digits, as in 1,000, may separate thousands or decimals: "
    "type the number without thousands separators, such as 1000, and a point before "
    "decimals, such as 1.5."
)


def parse_number(text: str) -> Decimal:
    """The number a learner typed, such as "16", "١٦", "-0.5", "1,41", "−٠٫٥"; NumberError
    otherwise (with a message saying why)."""
    cleaned = (text or "").translate(_BIDI_MARKS).strip()
    if not cleaned:
        raise NumberError(_("Type a number."))
    cleaned = cleaned.replace("\u2212", "-").replace("٫", ".").translate(_DIGITS)
    cleaned = _decimal_comma(cleaned)
    if not _NUMBER.fullmatch(cleaned):
        raise NumberError(
            _(
                "Type a number with digits only, such as 16, -0.5, 1,5 or ١٦٫٥: a minus "
                "sign first if it is negative, a point or a comma before the decimals, "
                "nothing else."
            )
        )
    whole, _point, decimals = cleaned.lstrip("-").partition(".")
    if len(whole.lstrip("0")) > MAX_INTEGER_DIGITS or len(decimals) > MAX_DECIMAL_PLACES:
        raise NumberError(
            _("Type a number of at most %(whole)d digits, and %(places)d after the point.")
            % {"whole": MAX_INTEGER_DIGITS, "places": MAX_DECIMAL_PLACES}
        )
    return Decimal(cleaned if cleaned[-1] != "." else cleaned[:-1])


def clamp_mark(value: Decimal) -> Decimal:
    """A question's mark: between 0 and 1, to four decimals."""
    return min(max(value, ZERO), ONE).quantize(MARK_PLACES)


class AcceptedNumberKey(NamedTuple):
    """A numerical question's accepted number as it stood when an answer was marked."""

    value: Decimal
    tolerance: Decimal
    fraction: Decimal
    pk: int


class AcceptedTextKey(NamedTuple):
    """A short-answer question's accepted answer as it stood when an answer was marked."""

    text_en: str
    text_ar: str
    fraction: Decimal
    exact: bool
    pk: int


@dataclass(frozen=True)
class Key:
    """The key an answer was marked against, kept with it (`Answer.key`, `ReviewAnswer.key`):
    a later change of the question's key changes neither the answer's mark nor its review.
    Each kind fills its own part; one answer and true or false keep theirs in the answer's
    `correct_choice` instead."""

    # Several answers: each choice's weight.
    weights: Mapping[int, Decimal] = field(default_factory=dict)
    # Numbers: the accepted numbers.
    numbers: tuple[AcceptedNumberKey, ...] = ()
    # Short answer: the accepted answers.
    texts: tuple[AcceptedTextKey, ...] = ()
    # Matching: each prompt's pair id, and its right match's (the same pair's).
    matches: Mapping[int, int] = field(default_factory=dict)
    # Ordering: the items' ids in the right order.
    order: tuple[int, ...] = ()

    @classmethod
    def read(cls, kind: str, stored: Any) -> Key:
        """The key as `stored` (JSON) for a question of `kind`."""
        if not stored:
            return cls()
        if kind == Question.Kind.MULTIPLE:
            return cls(weights={int(pk): Decimal(weight) for pk, weight in stored.items()})
        if kind == Question.Kind.NUMERICAL:
            return cls(
                numbers=tuple(
                    AcceptedNumberKey(Decimal(value), Decimal(tolerance), Decimal(weight), pk)
                    for value, tolerance, weight, pk in stored
                )
            )
        if kind == Question.Kind.SHORT:
            return cls(
                texts=tuple(
                    AcceptedTextKey(text_en, text_ar, Decimal(weight), exact, pk)
                    for text_en, text_ar, weight, exact, pk in stored
                )
            )
        if kind == Question.Kind.MATCHING:
            return cls(matches={int(prompt): match for prompt, match in stored.items()})
        if kind == Question.Kind.ORDERING:
            return cls(order=tuple(stored))
        return cls()

    def stored(self, kind: str) -> dict[str, Any] | list[Any]:
        """The key as `Answer.key` keeps it (JSON) for a question of `kind`: several
        answers' {choice id: weight}, numbers' [value, tolerance, weight, id] and short
        answers' [English, Arabic, weight, exact, id] per accepted one, matching's {prompt:
        match}, ordering's ids in order; {} for the kinds that keep no key here."""
        if kind == Question.Kind.MULTIPLE:
            return {str(pk): f"{weight:f}" for pk, weight in self.weights.items()}
        if kind == Question.Kind.NUMERICAL:
            return [[f"{v:f}", f"{t:f}", f"{w:f}", pk] for v, t, w, pk in self.numbers]
        if kind == Question.Kind.SHORT:
            return [[en, ar, f"{w:f}", exact, pk] for en, ar, w, exact, pk in self.texts]
        if kind == Question.Kind.MATCHING:
            return {str(prompt): match for prompt, match in self.matches.items()}
        if kind == Question.Kind.ORDERING:
            return list(self.order)
        return {}


@dataclass
class Grade:
    """What an answer earned, and the key it was marked against."""

    fraction: Decimal
    # One answer / true or false: the choice worth the whole mark.
    correct_choice: ChoiceData | None = None
    key: Key = field(default_factory=Key)
    # Numbers: the accepted number the response fell in, for its feedback.
    matched: AcceptedNumber | None = None

    @property
    def is_correct(self) -> bool:
        return self.fraction == ONE


def grade_choices(question: QuestionData, ticked: Iterable[ChoiceData]) -> Grade:
    """Mark the choices ticked (one for a single-answer or true/false question)."""
    choices = question.choices
    ticked_ids = {choice.pk for choice in ticked}
    total = sum((c.fraction for c in choices if c.pk in ticked_ids), ZERO)
    correct = next((c for c in choices if c.fraction == ONE), None)
    key = Key()
    if question.kind == Question.Kind.MULTIPLE:
        key = Key(weights={c.pk: c.fraction.normalize() for c in choices})
    return Grade(fraction=clamp_mark(total), correct_choice=correct, key=key)


def within(answer: AcceptedNumber, number: Decimal) -> bool:
    return abs(number - answer.value) <= answer.tolerance


def grade_number(question: QuestionData, number: Decimal) -> Grade:
    """Mark a numerical response: the best weight among the accepted numbers that hold it."""
    answers = question.numbers
    matching = [answer for answer in answers if within(answer, number)]
    best = max(matching, key=lambda answer: answer.fraction, default=None)
    key = Key(
        numbers=tuple(
            AcceptedNumberKey(a.value.normalize(), a.tolerance.normalize(), a.fraction, a.pk)
            for a in answers
        )
    )
    fraction = clamp_mark(best.fraction) if best is not None else ZERO
    return Grade(fraction=fraction, key=key, matched=best)


def format_mark(value: Decimal | int | float | None) -> str:
    """A mark for people: "3.5", "4", "2.33" (two decimals at most, no trailing zeros)."""
    if value is None:
        return ""
    rounded = Decimal(str(value)).quantize(Decimal("0.01"))
    text = f"{rounded:f}".rstrip("0").rstrip(".")
    return "0" if text in {"", "-0"} else text


@dataclass(frozen=True)
class Response:
    """What the learner sent for one question: the choices ticked (one for a single-answer or
    true/false question), the number typed (already read by `parse_number`), the text typed
    (a short answer), or the arrangement (matching: (prompt's pair id, match's pair id) per
    prompt; ordering: the items' ids in the learner's order)."""

    choice_ids: tuple[int, ...] = ()
    number: Decimal | None = None
    text: str | None = None
    arrangement: tuple[Any, ...] | None = None

    def same_as(self, answer: RecordedAnswer) -> bool:
        """Whether `answer` records this very response (a double click, not a change)."""
        if self.number is not None:
            return answer.number == self.number
        if self.text is not None:
            return answer.text == self.text
        if self.arrangement is not None:
            return bool(answer.arrangement == stored_arrangement(self.arrangement))
        recorded = [answer.choice_id] if answer.choice_id is not None else answer.choice_ids
        return set(recorded) == set(self.choice_ids)


@dataclass(frozen=True)
class Posted:
    """A step's form as sent, read as ids and text but not yet against its question: the id
    of the question the learner saw (None from an older page), the choices ticked (ids, or
    their numbers on the page), the number or the text typed, the match picked per prompt
    and the position given per item (numbers on the page; 0: none picked)."""

    question_id: int | None = None
    choices: tuple[int, ...] = ()
    number: str = ""
    text: str = ""
    matches: tuple[int, ...] = ()
    positions: tuple[int, ...] = ()
    # How sure the learner said they were (quizzes/confidence.py's levels); None: not said.
    confidence: int | None = None


class Unanswerable(Exception):
    """A response that does not fit its question; `message` is for the learner."""

    def __init__(self, message: str | Promise) -> None:
        super().__init__(message)
        self.message = message


def grade_response(question: QuestionData, response: Response) -> dict[str, Any]:
    """The recorded fields of `response` to `question` (Answer's and ReviewAnswer's alike:
    the choice, the right one, the choices ticked, the number, the key, the mark and
    whether it is whole). Unanswerable when it does not fit the question (a choice not its
    own, two choices for one answer, a number for a choice)."""
    fields: dict[str, Any] = {
        "choice_id": None,
        "correct_choice_id": None,
        "choice_ids": [],
        "number": None,
        "key": {},
        "text": "",
        "arrangement": [],
    }
    kind = question.kind
    if kind in TYPED_KINDS:
        grade, recorded = _grade_typed(question, response)
        fields.update(key=grade.key.stored(kind), **recorded)
    elif kind == Question.Kind.NUMERICAL:
        if response.number is None or response.choice_ids:
            raise Unanswerable(_("Type a number."))
        if not question.numbers:
            # Only reachable if content was written around the admin's validation.
            raise Unanswerable(_("This question is being revised; please try again later."))
        grade = grade_number(question, response.number)
        fields.update(number=response.number, key=grade.key.stored(kind))
    else:
        choices = {choice.pk: choice for choice in question.choices}
        ids = list(dict.fromkeys(response.choice_ids))
        chosen = [choices[pk] for pk in ids if pk in choices]
        if response.number is not None or not chosen or len(chosen) != len(ids):
            raise Unanswerable(_("Choose one of this question's answers."))
        if kind != Question.Kind.MULTIPLE and len(chosen) != 1:
            raise Unanswerable(_("Choose one of this question's answers."))
        grade = grade_choices(question, chosen)
        if kind == Question.Kind.MULTIPLE:
            if not any(choice.fraction > 0 for choice in choices.values()):
                raise Unanswerable(_("This question is being revised; please try again later."))
            fields.update(
                choice_ids=[pk for pk in choices if pk in set(ids)], key=grade.key.stored(kind)
            )
        else:
            if grade.correct_choice is None:
                # Only reachable if content was written around the admin's validation.
                raise Unanswerable(_("This question is being revised; please try again later."))
            fields.update(choice_id=chosen[0].pk, correct_choice_id=grade.correct_choice.pk)
    fields.update(fraction=grade.fraction, is_correct=grade.fraction == 1)
    return fields


class Unreadable(Exception):
    """What was sent cannot be read as a response to its question (no choice ticked, a number
    in letters, a choice number the step did not show); `field` is the form's field it is
    about, `message` is for the learner. Nothing is recorded."""

    def __init__(self, field: str, message: str | Promise) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


# What a step says of choices it cannot read; forms.CHOICE_ERRORS has the same words.
CHOOSE_ONE = _("Choose an answer before submitting.")
CHOOSE_LISTED = _("Choose one of the answers listed.")


def read_response(
    question: QuestionData | None,
    posted: Posted,
    *,
    shown: tuple[ChoiceData, ...] | tuple[PairData | ItemData, ...] | None = None,
) -> Response:
    """The response to `question`'s kind in what was `posted`: the choices (ids, or numbers
    on the page when the step numbered the `shown` choices 1, 2, … in this order: shuffled
    choices, whose ids would tell the order they were written in), the number or the text
    typed, the matches or positions picked (numbers of the `shown` matches or items).
    Unreadable otherwise. For a question gone from the quiz (None), the choices as sent: the
    rules say where to go."""
    choices = posted.choices
    if question is None:
        return Response(choice_ids=choices)
    if question.kind in TYPED_KINDS:
        return read_typed(question, posted, shown or ())
    if question.kind == Question.Kind.NUMERICAL:
        try:
            return Response(number=parse_number(posted.number))
        except NumberError as error:
            raise Unreadable("number", error.message) from None
    if not choices:
        if question.kind == Question.Kind.MULTIPLE:
            raise Unreadable("choice", _("Tick at least one answer before submitting."))
        raise Unreadable("choice", CHOOSE_ONE)
    if question.kind != Question.Kind.MULTIPLE and len(choices) > 1:
        raise Unreadable("choice", CHOOSE_LISTED)
    if shown is not None:
        if not all(1 <= n <= len(shown) for n in choices):
            raise Unreadable("choice", CHOOSE_LISTED)
        choices = tuple(shown[n - 1].pk for n in choices)
    return Response(choice_ids=choices)


# --- Short answer, matching, ordering -------------------------------------------------------

REVISING = _("This question is being revised; please try again later.")


def stored_arrangement(arrangement: tuple[Any, ...]) -> list[Any] | dict[str, int]:
    """A response's arrangement as Answer.arrangement keeps it: matching's (prompt, match)
    pairs as {prompt's pair id: match's pair id}, ordering's ids as a list."""
    if arrangement and isinstance(arrangement[0], tuple):
        return {str(prompt): match for prompt, match in arrangement}
    return list(arrangement)


def grade_text(question: QuestionData, typed: str) -> Grade:
    """A short answer earns the weight of the best accepted answer it matches (short_answers.py)."""
    best = max(
        (
            accepted.fraction
            for accepted in question.texts
            for text in (accepted.text_en, accepted.text_ar)
            if text and text_matches(typed, text, exact=accepted.exact)
        ),
        default=ZERO,
    )
    key = Key(
        texts=tuple(
            AcceptedTextKey(a.text_en, a.text_ar, a.fraction, a.exact, a.pk) for a in question.texts
        )
    )
    return Grade(fraction=clamp_mark(best), key=key)


def grade_matches(question: QuestionData, picked: dict[int, int]) -> Grade:
    """Each prompt matched right earns its share of the mark (1 / the number of prompts)."""
    prompts = question.prompts
    right = sum(1 for prompt in prompts if picked.get(prompt.pk) == prompt.pk)
    key = Key(matches={prompt.pk: prompt.pk for prompt in prompts})
    return Grade(fraction=clamp_mark(Decimal(right) / len(prompts)), key=key)


def longest_in_order(places: list[int]) -> list[int]:
    """Indexes into `places` (each item's place in the right order, as the learner put them)
    of one longest run that is in the right order, not necessarily side by side: what an
    ordering answer's mark counts, and what its feedback marks as in order."""
    runs: list[list[int]] = []  # per index, the longest run ending there
    for index, place in enumerate(places):
        before = (run for run in runs if places[run[-1]] < place)
        runs.append([*max(before, key=len, default=[]), index])
    return max(runs, key=len, default=[])


def grade_order(question: QuestionData, order: list[int]) -> Grade:
    """An order earns the share of its items that are in the longest subsequence already in
    the right order: all of them in order, the whole mark; 1, 3, 2, 4 earns 3/4; the reverse
    of four items 1/4."""
    place = {item.pk: index for index, item in enumerate(question.items)}
    in_order = len(longest_in_order([place[pk] for pk in order]))
    key = Key(order=tuple(item.pk for item in question.items))
    return Grade(fraction=clamp_mark(Decimal(in_order) / len(question.items)), key=key)


def _grade_typed(question: QuestionData, response: Response) -> tuple[Grade, dict[str, Any]]:
    kind = question.kind
    if kind == Question.Kind.SHORT:
        if response.text is None or response.choice_ids or response.number is not None:
            raise Unanswerable(_("Type your answer."))
        if not question.texts:
            raise Unanswerable(REVISING)
        return grade_text(question, response.text), {"text": response.text}
    arrangement = response.arrangement
    if arrangement is None or response.choice_ids or response.number is not None:
        raise Unanswerable(CHOOSE_LISTED)
    if kind == Question.Kind.MATCHING:
        prompts = {pair.pk for pair in question.prompts}
        offered = {pair.pk for pair in question.pairs}
        picked = dict(arrangement)
        if not prompts or set(picked) != prompts or not set(picked.values()) <= offered:
            raise Unanswerable(REVISING if not prompts else CHOOSE_LISTED)
        return grade_matches(question, picked), {"arrangement": stored_arrangement(arrangement)}
    order = list(arrangement)
    if not question.items or sorted(order) != sorted(item.pk for item in question.items):
        raise Unanswerable(REVISING if not question.items else CHOOSE_LISTED)
    return grade_order(question, order), {"arrangement": order}


SHORT_ANSWER_TOO_LONG = ngettext_lazy(
    "Type at most %(count)d character.", "Type at most %(count)d characters.", "count"
)


def read_typed(
    question: QuestionData, posted: Posted, shown: Sequence[ChoiceData | PairData | ItemData]
) -> Response:
    """A short answer, a matching or an ordering response in what was posted; `shown`: the
    matches (or the items) in the order the step numbered them. Unreadable otherwise."""
    if question.kind == Question.Kind.SHORT:
        if not posted.text.strip():
            raise Unreadable("text", _("Type your answer before submitting."))
        if len(posted.text) > SHORT_ANSWER_MAX_LENGTH:
            raise Unreadable("text", SHORT_ANSWER_TOO_LONG % {"count": SHORT_ANSWER_MAX_LENGTH})
        return Response(text=posted.text)
    if question.kind == Question.Kind.MATCHING:
        prompts = question.prompts
        if len(posted.matches) != len(prompts) or any(
            not 0 <= n <= len(shown) for n in posted.matches
        ):
            raise Unreadable("match", CHOOSE_LISTED)
        if 0 in posted.matches:
            raise Unreadable("match", _("Choose a match for every prompt before submitting."))
        return Response(
            arrangement=tuple(
                (prompt.pk, shown[n - 1].pk)
                for prompt, n in zip(prompts, posted.matches, strict=True)
            )
        )
    positions = posted.positions
    if len(positions) != len(shown) or any(not 0 <= n <= len(shown) for n in positions):
        raise Unreadable("position", CHOOSE_LISTED)
    if 0 in positions:
        raise Unreadable("position", _("Give every item a position before submitting."))
    if len(set(positions)) != len(positions):
        raise Unreadable("position", _("Give each item a different position."))
    by_position = sorted(zip(positions, shown, strict=True), key=lambda pair: pair[0])
    return Response(arrangement=tuple(item.pk for _position, item in by_position))


def recorded_response(question: QuestionData, answer: Any) -> Response:
    """The response an answer recorded (an Answer row, a RecordedAnswer, anything with their
    fields), to mark it again under `question`'s key as it stands now (a regrade, an exam's
    saves when it finishes). A matching answer to a prompt added since counts that prompt
    unmatched (`regrade_fields`)."""
    kind = question.kind
    if kind == Question.Kind.NUMERICAL:
        return Response(number=answer.number)
    if kind == Question.Kind.SHORT:
        return Response(text=answer.text or "")
    if kind == Question.Kind.MATCHING:
        picked = answer.arrangement or {}
        return Response(arrangement=tuple((int(p), m) for p, m in picked.items()))
    if kind == Question.Kind.ORDERING:
        return Response(arrangement=tuple(answer.arrangement or ()))
    if kind == Question.Kind.MULTIPLE:
        return Response(choice_ids=tuple(answer.choice_ids or ()))
    return Response(choice_ids=(answer.choice_id,) if answer.choice_id is not None else ())


def regrade_fields(question: QuestionData, response: Response) -> dict[str, Any] | None:
    """The mark of a recorded `response` under `question`'s key as it stands now: the fields
    a regrade writes (the mark, whether it is whole, the key, the right choice), or None
    when the response no longer fits the question (its items changed since: a regrade
    leaves such an answer as it was)."""
    if question.kind == Question.Kind.MATCHING and response.arrangement is not None:
        picked = dict(response.arrangement)
        if not question.prompts:
            return None
        grade = grade_matches(question, picked)
        fields = {"key": grade.key.stored(question.kind), "correct_choice_id": None}
    else:
        try:
            graded = grade_response(question, response)
        except Unanswerable:
            return None
        fields = {"key": graded["key"], "correct_choice_id": graded["correct_choice_id"]}
        grade = Grade(fraction=graded["fraction"])
    return {**fields, "fraction": grade.fraction, "is_correct": grade.fraction == ONE}
