"""A GIFT file's questions as plain data, and the reading of one item of the file (a
question of some kind, a description, or errors): `gift.parse_gift` reads a file item by item
with `GiftItem`. See format.py beside it for the format as read and written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from ...models import validate_choice_set
from ...text import TEXT_MAX_LENGTH, markdown_escape
from .scan import (
    Bilingual,
    Block,
    format_of,
    html_to_text,
    normalize,
    normalize_line,
    split_multilang,
    unescape,
)
from .short_matching import ARROW, TYPED_KINDS, GiftPair, GiftText, TypedAnswers

BLANK = "_____"
CHOICE_TEXT_MAX_LENGTH = 500
TITLE_MAX_LENGTH = 200
# Past this many errors the rest of the file is not read: the file is refused anyway, and
# a list of thousands helps nobody.
MAX_ERRORS = 100
# A question's answers: counted in its answer block before any is read.
MAX_ANSWERS = 100
KINDS = ("single", "multiple", "truefalse", "numerical", "short", "matching")
TRUE = Bilingual("True", "صواب")
FALSE = Bilingual("False", "خطأ")
ONE, ZERO = Decimal(1), Decimal(0)
EMPTY = Bilingual()
_MARKER = re.compile("[=~]")
# What makes a text more than itself trimmed: markup, entities, escapes, line breaks.
_SPECIAL = re.compile("[<&{\r\n\ue000-\ue0ff]")


@dataclass(slots=True)
class GiftChoice:
    text: Bilingual
    # The share of the question's mark, -1 to 1: `=` is 1, `~` is 0, `~%50%` is 0.5.
    fraction: Decimal
    feedback: Bilingual = field(default_factory=Bilingual)
    line: int = 0

    @property
    def is_correct(self) -> bool:
        return self.fraction > 0


@dataclass(slots=True)
class GiftNumericalAnswer:
    """A number is right within value ± tolerance; a range `a..b` is its midpoint ± half."""

    value: Decimal
    tolerance: Decimal
    fraction: Decimal
    feedback: Bilingual = field(default_factory=Bilingual)
    line: int = 0


@dataclass(slots=True)
class GiftQuestion:
    prompt: Bilingual
    # single and multiple: the choices; truefalse: True then False; numerical: none.
    choices: list[GiftChoice]
    explanation: Bilingual = field(default_factory=Bilingual)
    name: str = ""
    line: int = 0
    kind: str = "single"
    numerical: list[GiftNumericalAnswer] = field(default_factory=list)
    # short: the accepted answers; matching: the pairs (distractors without a prompt).
    texts: list[GiftText] = field(default_factory=list)
    pairs: list[GiftPair] = field(default_factory=list)
    # The warnings about this question, also in the document's: an importer that skips the
    # question leaves them out. Not part of what the question is (not compared).
    warnings: list[Problem] = field(default_factory=list, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Problem:
    """Something to tell the instructor about one place in the file (line 0: the whole file)."""

    line: int
    message: str

    def __str__(self) -> str:
        if self.line:
            return _("Line %(line)d: %(message)s") % {"line": self.line, "message": self.message}
        return self.message


@dataclass
class GiftDocument:
    questions: list[GiftQuestion] = field(default_factory=list)
    # From `$CATEGORY:` (the quiz title) and a description item before the first question.
    title: Bilingual = field(default_factory=Bilingual)
    description: Bilingual = field(default_factory=Bilingual)
    description_line: int = 0
    errors: list[Problem] = field(default_factory=list)
    # Questions of a type the site cannot hold: reported, not imported.
    skipped: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


# --- Text formats ----------------------------------------------------------------------------

# Moodle's answer weight, `%50%`, `%-33.333%`, at the start of an answer.
_WEIGHT = re.compile(r"%(-?[0-9]+(?:\.[0-9]*)?)%")
# A number as Moodle's is_numeric reads one, without its oddities (hexadecimal, spaces).
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")
_NUMBER_MAX_LENGTH = 40
# Numbers past 10^±100 are refused: a range's midpoint then always writes back as read.
_NUMBER_MAX_EXPONENT = 100


_ESCAPED_BLANK = markdown_escape(BLANK)
_LEADING_REFERENCES = {"&#91;": "[", "&#37;": "%"}


def _as_markdown(value: str, text_format: str) -> str:
    """A text read in `text_format` as the Markdown the site stores: `[markdown]` as written
    (its line breaks and indentation kept, for code), anything else as the text it shows
    (HTML read as text, as before), escaped so that Markdown shows it literally."""
    if text_format == "markdown":
        lines = value.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        return "\n".join(line.rstrip() for line in lines).strip("\n")
    if text_format == "html":
        value = html_to_text(value)
    elif text_format == "moodle":
        value = html_to_text(value, keep_newlines=True)
    # The missing word's blank is shown as it is: a run of underscores between spaces.
    return markdown_escape(normalize(value)).replace(_ESCAPED_BLANK, BLANK)


def _convert(raw: str, text_format: str, *, one_line: bool = False) -> Bilingual:
    """GIFT text (escapes still as placeholders) as the site's bilingual Markdown."""
    if not _SPECIAL.search(raw):
        # No markup, escape or line break (most answers): in every format, the text trimmed.
        return Bilingual(_as_markdown(raw.strip(), text_format), "") if raw else EMPTY
    text = unescape(raw)
    if text_format == "markdown" and text[:5] in _LEADING_REFERENCES:
        # The writer's leading "[" or "%" (see `_answer_piece`): HTML would decode it, and
        # Markdown keeps what is written.
        text = _LEADING_REFERENCES[text[:5]] + text[5:]
    if text_format == "markdown":
        text = text.replace(ARROW, "->")  # the writer's, in a short answer's or a pair's block
    parts = split_multilang(text)

    def converted(value: str) -> str:
        if not value:
            return ""
        value = _as_markdown(value, text_format)
        return normalize_line(value) if one_line else value

    return Bilingual(en=converted(parts.en), ar=converted(parts.ar))


def _shortened(text: str) -> str:
    """A piece of the file quoted in a message: a whole megabyte of digits helps nobody."""
    return text if len(text) <= _NUMBER_MAX_LENGTH else text[:_NUMBER_MAX_LENGTH] + "…"


def _number(text: str) -> Decimal | None:
    text = text.strip()
    if len(text) > _NUMBER_MAX_LENGTH or not _NUMBER.fullmatch(text):
        return None
    value = Decimal(text)
    if value and abs(value.adjusted()) > _NUMBER_MAX_EXPONENT:
        return None
    return value


# --- Parser --------------------------------------------------------------------------------


def percent_weight(fraction: Decimal) -> str:
    """A fraction as GIFT's percent weight: 0.5 as 50, -1 as -100, 1/3 as 33.33333."""
    return format((fraction * 100).normalize(), "f")


class GiftItem(TypedAnswers):
    """One item of the file: a question of some kind, a description, or errors."""

    def __init__(self, block: Block, document: GiftDocument, translated: dict[str, str]) -> None:
        self.block = block
        self.document = document
        self.translated = translated
        self.start_line = block.line_at(0)
        self.errors: list[Problem] = []
        self.warnings: list[Problem] = []
        self.kind = ""

    def error(self, message: str, index: int | None = None) -> None:
        line = self.block.line_at(index) if index is not None else self.start_line
        self.errors.append(Problem(line, message))

    def warn(self, line: int, message: str) -> None:
        self.warnings.append(Problem(line, message))

    def fail(self, line: int, message: str) -> None:
        self.errors.append(Problem(line or self.start_line, message))

    def refuse(self) -> None:
        """The item's errors: the file's, or for a short-answer or matching question (which
        the importer skipped before it read them), the reasons it is skipped."""
        if self.kind not in TYPED_KINDS:
            self.document.errors.extend(self.errors)
            return
        label = _("Short-answer") if self.kind == "short" else _("Matching")
        self.document.skipped.extend(
            Problem(
                problem.line,
                _("%(kind)s question not imported: %(reason)s")
                % {"kind": label, "reason": problem.message},
            )
            for problem in self.errors
        )

    def skip(self, kind: str) -> None:
        self.document.skipped.append(
            Problem(
                self.start_line,
                _("%(kind)s questions are not supported; this question was skipped.")
                % {"kind": kind},
            )
        )

    def parse(self) -> None:
        text = self.block.text
        name, body_start = "", 0
        if text.startswith("::"):
            end = text.find("::", 2)
            if end == -1:
                self.error(_("The question name opened with '::' is not closed with '::'."), 0)
                self.document.errors.extend(self.errors)
                return
            name = normalize_line(unescape(text[2:end]))
            body_start = end + 2
        opening = text.find("{", body_start)
        closing = text.find("}", body_start)
        after = text[closing + 1 :] if closing != -1 else ""
        extra = after.find("{")
        if (extra_closing := after.find("}")) != -1 and (extra == -1 or extra_closing < extra):
            extra = extra_closing

        if opening == -1 and closing == -1:
            self.description(body_start)
            return
        if closing == -1:
            self.error(
                _(
                    "'{' is not closed with '}' before the question ends (a blank line ends "
                    "a question); write \\{ for a literal brace."
                ),
                opening,
            )
        elif opening == -1 or closing < opening:
            self.error(_("'}' without an opening '{': write \\} for a literal brace."), closing)
        elif extra != -1:
            self.error(
                _(
                    "A second answer block: put a blank line between questions, or write \\{ "
                    "and \\} for literal braces."
                ),
                closing + 1 + extra,
            )
        if self.errors:
            self.document.errors.extend(self.errors)
            return

        # Text after the answer block makes it a "missing word" question: the block's place
        # is marked with a blank.
        question_text = text[body_start:opening] + (BLANK + after if after.strip() else "")
        answers = text[opening + 1 : closing]
        general_feedback = ""
        separator = answers.rfind("####")
        if separator != -1:
            general_feedback = answers[separator + 4 :]
            answers = answers[:separator]
        self.answers_start = opening + 1 + len(answers) - len(answers.lstrip())
        answers = answers.strip()

        # Moodle's order of deciding the question type, from the answer block alone.
        if not answers:
            return self.skip(_("Essay"))
        if answers.startswith("#"):
            kind = "numerical"
        elif "~" in answers:
            # Moodle: a `=` anywhere makes it single-answer; without one, multiple answers.
            kind = "single" if "=" in answers else "multiple"
        elif "=" in answers and "->" in answers:
            kind = "matching"
        elif answers.split("#")[0].strip() in {"T", "TRUE", "F", "FALSE"}:
            kind = "truefalse"
        else:
            kind = "short"
        self.kind = kind

        counted_by_equals = kind in ("numerical", *TYPED_KINDS)
        count = answers.count("=") if counted_by_equals else len(_MARKER.findall(answers))
        if count > MAX_ANSWERS:
            self.error(
                _("The question has %(count)d answers; at most %(max)d are allowed.")
                % {"count": count, "max": MAX_ANSWERS},
                opening,
            )
            return self.refuse()

        self.text_format, question_text = format_of(question_text, "moodle")
        prompt = _convert(question_text, self.text_format)
        if not prompt.en:
            self.error(_("The question has no English text."), body_start)
        self.check_length(prompt, _("The question's text"), body_start)
        question = GiftQuestion(
            prompt=prompt, choices=[], name=name, line=self.start_line, kind=kind
        )
        if kind == "numerical":
            question.numerical = self.numerical_answers(answers)
        elif kind == "short":
            question.texts = self.short_answers(answers)
        elif kind == "matching":
            question.pairs = self.pairs(answers)
        elif kind == "truefalse":
            question.choices = self.true_false(answers)
        else:
            question.choices = self.choices(answers, kind)
        if self.errors:
            return self.refuse()

        question.explanation = self.feedback(general_feedback)
        if self.errors:
            return self.refuse()
        if not question.explanation.en:
            if "no explanation" not in self.translated:
                self.translated["no explanation"] = _(
                    "No general feedback (####): the question's explanation is empty; "
                    "write one before publishing."
                )
            self.warnings.append(Problem(self.start_line, self.translated["no explanation"]))
        question.warnings = self.warnings
        self.document.warnings.extend(self.warnings)
        self.document.questions.append(question)

    def description(self, body_start: int) -> None:
        """Text with no answer block: the quiz's description if it comes first, else skipped."""
        document = self.document
        text_format, text = format_of(self.block.text[body_start:], "moodle")
        if not (document.questions or document.description or document.skipped or document.errors):
            document.description = _convert(text, text_format)
            document.description_line = self.start_line
            self.check_length(document.description, _("The description"))
            document.errors.extend(self.errors)
            return
        document.skipped.append(
            Problem(
                self.start_line,
                _(
                    "Text without an answer block (a description) is not a question; it was "
                    "skipped."
                ),
            )
        )

    def check_length(self, value: Bilingual, what: str, index: int | None = None) -> None:
        """An error if either language of `value` is longer than a text field takes."""
        length = max(len(value.en), len(value.ar))
        if length > TEXT_MAX_LENGTH:
            self.error(
                _("%(field)s has %(length)d characters; at most %(max)d are allowed.")
                % {"field": what, "length": length, "max": TEXT_MAX_LENGTH},
                index,
            )

    def line_of(self, index: int) -> int:
        """The line of a character of the (stripped) answer block."""
        return self.block.line_at(self.answers_start + index)

    def weight(self, piece: str, line: int) -> tuple[Decimal | None, str]:
        """A leading `%w%` as a fraction, and the rest of the answer; None without one."""
        match = _WEIGHT.match(piece)
        if not match:
            return None, piece
        percent = Decimal(match.group(1))
        if not -100 <= percent <= 100:
            self.errors.append(
                Problem(
                    line,
                    _("Answer weights go from -100%% to 100%%; this one is %(weight)s%%.")
                    % {"weight": _shortened(match.group(1))},
                )
            )
        return percent / 100, piece[match.end() :].strip()

    def feedback(self, raw: str) -> Bilingual:
        """A feedback's text, in the question's format unless it names its own."""
        text_format, raw = format_of(raw, self.text_format)
        value = _convert(raw, text_format)
        self.check_length(value, _("A feedback text"))
        return value

    def text_and_feedback(self, piece: str) -> tuple[Bilingual, Bilingual]:
        answer, _hash, feedback = piece.partition("#")
        answer_format, answer = format_of(answer, self.text_format)
        return (
            _convert(answer, answer_format, one_line=True),
            self.feedback(feedback) if feedback else EMPTY,
        )

    def choices(self, answers: str, kind: str) -> list[GiftChoice]:
        markers = [marker.start() for marker in _MARKER.finditer(answers)]
        if answers[: markers[0]].strip():
            self.error(
                _("Text before the first answer: start every answer with = (right) or ~ (wrong)."),
                self.answers_start,
            )
        choices: list[GiftChoice] = []
        for number, marker in enumerate(markers):
            end = markers[number + 1] if number + 1 < len(markers) else len(answers)
            piece = answers[marker + 1 : end].strip()
            line = self.line_of(marker)
            if answers[marker] == "=":
                # Moodle reads weights only after `~`: `=%50%x` is a right answer, "%50%x".
                fraction = ONE
                if _WEIGHT.match(piece):
                    self.warnings.append(
                        Problem(
                            line,
                            _(
                                "An answer starts with = and a weight: Moodle reads it as "
                                "a right answer whose text starts with the weight, and so "
                                "does this import. Write ~ before a weight."
                            ),
                        )
                    )
            elif piece.startswith("%"):
                weight, piece = self.weight(piece, line)
                fraction = ZERO if weight is None else weight
            else:
                fraction = ZERO
            text, feedback = self.text_and_feedback(piece)
            choice = GiftChoice(text=text, fraction=fraction, feedback=feedback, line=line)
            if not choice.text.en:
                self.errors.append(Problem(line, _("An answer has no English text.")))
            elif max(len(choice.text.en), len(choice.text.ar)) > CHOICE_TEXT_MAX_LENGTH:
                self.errors.append(
                    Problem(
                        line,
                        _("An answer is longer than %(max)d characters.")
                        % {"max": CHOICE_TEXT_MAX_LENGTH},
                    )
                )
            choices.append(choice)
        self.validate_choices(choices, kind)
        return choices

    def validate_choices(self, choices: list[GiftChoice], kind: str) -> None:
        # No right answer at all: whatever the markers say, the author most likely meant a
        # single-answer question and forgot its `=`, so the site's own rule speaks.
        if kind == "single" or not any(choice.fraction > 0 for choice in choices):
            try:
                validate_choice_set(
                    [(position, c.fraction == 1) for position, c in enumerate(choices)]
                )
            except ValidationError as invalid:
                for message in invalid.messages:
                    self.error(message)
            return
        if len(choices) < 2:
            self.error(_("A question needs at least two choices."))
        if all(choice.fraction > 0 for choice in choices):
            self.error(
                _(
                    "A multiple-answer question needs at least one wrong answer: give it a "
                    "weight of 0%, or a negative one such as ~%-100%."
                )
            )
        total = sum(choice.fraction for choice in choices if choice.fraction > 0)
        # Moodle refuses right answers that do not add up to 100% (to two decimals).
        if round(total * 100, 2) != 100:
            self.warnings.append(
                Problem(
                    self.start_line,
                    _(
                        "The right answers' weights add up to %(total)s%%, not 100%%: a "
                        "learner who ticks all of them does not get exactly the full mark."
                    )
                    % {"total": percent_weight(total)},
                )
            )

    def true_false(self, answers: str) -> list[GiftChoice]:
        # Moodle: `{T#feedback if wrong#feedback if right}`; a further `#` belongs to the second.
        bits = answers.split("#", 2) + ["", ""]
        wrong, right = self.feedback(bits[1]), self.feedback(bits[2])
        is_true = bits[0].strip() in {"T", "TRUE"}
        line = self.line_of(0)
        return [
            GiftChoice(TRUE, ONE if is_true else ZERO, right if is_true else wrong, line),
            GiftChoice(FALSE, ZERO if is_true else ONE, wrong if is_true else right, line),
        ]

    def numerical_answers(self, answers: str) -> list[GiftNumericalAnswer]:
        body = answers[1:]  # without the leading `#`
        other = body.find("~")
        if other != -1:
            body = body[:other]
            self.warnings.append(
                Problem(
                    self.line_of(1 + other),
                    _("Feedback for any other number (~) is not supported; it was left out."),
                )
            )
        result: list[GiftNumericalAnswer] = []
        offset = 1
        for number, piece in enumerate(body.split("=")):
            line = self.line_of(offset + len(piece) - len(piece.lstrip()))
            offset += len(piece) + 1
            piece = piece.strip()
            if number == 0 and not piece:
                continue
            weight, piece = self.weight(piece, line)
            answer, _hash, feedback = piece.partition("#")
            parsed = self.number_and_tolerance(unescape(format_of(answer, "")[1]), line)
            if parsed:
                result.append(
                    GiftNumericalAnswer(
                        value=parsed[0],
                        tolerance=parsed[1],
                        fraction=ONE if weight is None else weight,
                        feedback=self.feedback(feedback),
                        line=line,
                    )
                )
        if not result and not self.errors:
            self.error(_("A numerical question needs an answer, such as {#16:0.5}."))
        elif result and not any(answer.fraction == 1 for answer in result):
            self.error(_("A numerical question needs an answer worth the full mark (100%)."))
        return result

    def number_and_tolerance(self, text: str, line: int) -> tuple[Decimal, Decimal] | None:
        low, dots, high = text.partition("..")
        value, colon, tolerance = text.partition(":")
        if dots and low.strip():
            start, end = _number(low), _number(high)
            if start is not None and end is not None:
                if start > end:
                    self.errors.append(Problem(line, _("A range's start is greater than its end.")))
                    return None
                middle = (start + end) / 2
                return middle, end - middle
        elif colon and value.strip():
            number, margin = _number(value), _number(tolerance)
            if number is not None and margin is not None:
                if margin < 0:
                    self.errors.append(Problem(line, _("A tolerance cannot be negative.")))
                    return None
                return number, margin
        elif (number := _number(text)) is not None:
            return number, ZERO
        self.errors.append(
            Problem(
                line,
                _(
                    "“%(text)s” is not a numerical answer: write a number such as 16, a number "
                    "and its tolerance such as 16:0.5, or a range such as 15..17."
                )
                % {"text": _shortened(text.strip())},
            )
        )
        return None


# --- Writer --------------------------------------------------------------------------------
