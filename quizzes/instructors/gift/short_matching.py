"""GIFT's short-answer and matching questions, read and written (see format.py for the rest).

Short answer, as Moodle reads it: `{=TCP =%50%tcp#Half: the name, not the suite.}`, every
answer after `=` (a first one without is read too), `%w%` its weight (100% without one) and
`#` its feedback. Daleel keeps the answers that earn marks: one worth 0% or less (Moodle's way
of giving feedback on a wrong answer) is left out with a warning.

Matching: `{=ZeRO-1 -> optimizer states =ZeRO-2 -> gradients = -> training data}`, a prompt
and its match per `=`, split at the first `->`; a pair with nothing before `->` is a match
that goes with no prompt (a distractor). A `#` is part of the text there, as in Moodle.

Accepted answers, prompts and matches are plain text on the site (no Markdown): they are read
as the text they show, HTML read as text, bilingual through the multilang markup.

A question of these kinds that Daleel cannot hold is skipped with the reason, never an error:
the importer read these kinds as "skipped" before, and a file it took then is taken now.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from ...models.kinds import (
    PART_TEXT_MAX_LENGTH,
    SHORT_ANSWER_MAX_LENGTH,
    shadowed_texts,
    validate_accepted_texts,
    validate_pairs,
)
from .scan import (
    Bilingual,
    format_of,
    html_to_text,
    normalize_line,
    split_multilang,
    unescape,
)

TYPED_KINDS = ("short", "matching")
ONE = Decimal(1)
_WEIGHT = re.compile(r"%(-?[0-9]+(?:\.[0-9]*)?)%")
# The writer's leading "[" or "%" (a format prefix, a weight otherwise) and a prompt's "->"
# (the end of the prompt otherwise), as character references that the reader decodes.
_REFERENCES = {"&#91;": "[", "&#37;": "%"}
ARROW = "-&#62;"


@dataclass(slots=True)
class GiftText:
    """A short-answer question's accepted answer, worth `fraction` (0 to 1) of the mark."""

    text: Bilingual
    fraction: Decimal = ONE
    feedback: Bilingual = field(default_factory=Bilingual)
    line: int = 0


@dataclass(slots=True)
class GiftPair:
    """A matching question's prompt and its match; no prompt: a distractor."""

    prompt: Bilingual
    match: Bilingual
    line: int = 0


def plain_text(raw: str, text_format: str) -> Bilingual:
    """A GIFT piece (escapes still as placeholders) as the plain text it shows, in each
    language: HTML read as text in the `html` and `moodle` formats, kept as written in
    `plain` and `markdown` (the writer's), on one line."""
    text = unescape(raw).strip()
    if text_format == "markdown":
        if text[:5] in _REFERENCES:
            text = _REFERENCES[text[:5]] + text[5:]
        text = text.replace(ARROW, "->")
    parts = split_multilang(text)

    def converted(value: str) -> str:
        if text_format in ("html", "moodle"):
            value = html_to_text(value)
        return normalize_line(value)

    return Bilingual(en=converted(parts.en), ar=converted(parts.ar))


class TypedAnswers:
    """The reading of a short-answer or matching block, for items.GiftItem (which has
    the attributes and helpers named here)."""

    errors: list
    text_format: str

    def line_of(self, index: int) -> int:  # pragma: no cover - GiftItem's
        raise NotImplementedError

    def weight(self, piece: str, line: int) -> tuple[Decimal | None, str]:  # pragma: no cover
        raise NotImplementedError

    def feedback(self, raw: str) -> Bilingual:  # pragma: no cover
        raise NotImplementedError

    def warn(self, line: int, message: str) -> None:  # pragma: no cover
        raise NotImplementedError

    def fail(self, line: int, message: str) -> None:  # pragma: no cover
        raise NotImplementedError

    def _pieces(self, answers: str) -> list[tuple[int, str]]:
        """The answers after each `=` (and one before the first, as Moodle reads), with
        their lines."""
        pieces, offset = [], 0
        for number, piece in enumerate(answers.split("=")):
            start = offset + len(piece) - len(piece.lstrip())
            offset += len(piece) + 1
            if piece.strip() or number:
                pieces.append((self.line_of(start), piece.strip()))
        return pieces

    def short_answers(self, answers: str) -> list[GiftText]:
        texts: list[GiftText] = []
        for line, piece in self._pieces(answers):
            fraction = ONE
            if _WEIGHT.match(piece):
                weight, piece = self.weight(piece, line)
                fraction = ONE if weight is None else weight
            answer, _hash, feedback = piece.partition("#")
            answer_format, answer = format_of(answer, self.text_format)
            text = plain_text(answer, answer_format)
            if not text.en:
                self.fail(line, _("An accepted answer has no English text."))
                continue
            if max(len(text.en), len(text.ar)) > SHORT_ANSWER_MAX_LENGTH:
                self.fail(
                    line,
                    _("An accepted answer is longer than %(max)d characters.")
                    % {"max": SHORT_ANSWER_MAX_LENGTH},
                )
                continue
            if fraction <= 0:
                self.warn(
                    line,
                    _(
                        "An answer worth %(weight)s%% was left out: a short-answer question "
                        "keeps only the answers that earn marks."
                    )
                    % {"weight": _percent(fraction)},
                )
                continue
            if "*" in text.en + text.ar:
                self.warn(
                    line,
                    _(
                        "Moodle reads * in a short answer as any characters; Daleel matches "
                        "it as written."
                    ),
                )
            texts.append(
                GiftText(
                    text=text,
                    fraction=fraction,
                    feedback=self.feedback(feedback) if feedback else Bilingual(),
                    line=line,
                )
            )
        if not self.errors:
            self._validated(validate_accepted_texts, [(n, t.fraction) for n, t in enumerate(texts)])
        # Answers Moodle may tell apart (a case-sensitive question's) and Daleel's folding
        # does not: imported, with a warning on the answer that never counts.
        numbered = [(n, t.text.en, t.text.ar, t.fraction, False) for n, t in enumerate(texts, 1)]
        for number, message in shadowed_texts(numbered):
            self.warn(texts[number - 1].line, message)
        return texts

    def pairs(self, answers: str) -> list[GiftPair]:
        pairs: list[GiftPair] = []
        for line, piece in self._pieces(answers):
            prompt, arrow, match = piece.partition("->")
            if not arrow:
                self.fail(
                    line,
                    _("Write every pair of a matching question as = prompt -> match."),
                )
                continue
            prompt_format, prompt = format_of(prompt, self.text_format)
            pair = GiftPair(
                prompt=plain_text(prompt, prompt_format),
                match=plain_text(match, self.text_format),
                line=line,
            )
            if not pair.match.en or (pair.prompt.ar and not pair.prompt.en):
                self.fail(line, _("A pair has no English text."))
            elif max(map(len, (pair.prompt.en, pair.prompt.ar, pair.match.en, pair.match.ar))) > (
                PART_TEXT_MAX_LENGTH
            ):
                self.fail(
                    line,
                    _("A prompt or a match is longer than %(max)d characters.")
                    % {"max": PART_TEXT_MAX_LENGTH},
                )
            pairs.append(pair)
        if not self.errors:
            self._validated(validate_pairs, [(n, bool(p.prompt)) for n, p in enumerate(pairs)])
        return pairs

    def _validated(self, validate, rows) -> None:
        """The site's own rule for the kind (quizzes.models.kinds), as the admin says it."""
        try:
            validate(rows)
        except ValidationError as invalid:
            for message in invalid.messages:
                self.fail(0, message)


# --- Writer --------------------------------------------------------------------------------


def typed_answer_lines(
    kind: str, texts: list[GiftText], pairs: list[GiftPair], answer_piece
) -> list[str]:
    """The inside of a short-answer or matching block, one line per answer, as Moodle writes
    it; `answer_piece` writes an answer's text (gift._answer_piece). A `->` in any text is
    written as a character reference: in the block it would make a pair (or the question a
    matching one)."""

    def piece(value: Bilingual) -> str:
        return answer_piece(value).replace("->", ARROW)

    lines = [""]
    if kind == "short":
        for accepted in texts:
            weight = "" if accepted.fraction == 1 else f"%{_percent(accepted.fraction)}%"
            line = f"\t={weight}{piece(accepted.text)}"
            if accepted.feedback:
                line += f"#{piece(accepted.feedback)}"
            lines.append(line)
        return lines
    for pair in pairs:
        # An empty prompt, `= -> match`, is Moodle's distractor.
        prompt = piece(pair.prompt)
        lines.append(f"\t={prompt} -> {piece(pair.match)}")
    return lines


def _percent(fraction: Decimal) -> str:
    return format((fraction * 100).normalize(), "f")
