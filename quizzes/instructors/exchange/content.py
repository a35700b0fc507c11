"""A file's quizzes as plain data: what the Moodle XML and QTI readers make, what `store.py`
writes, and what the writers are given (`dump.py`). Texts are the site's Markdown, in both
languages (`Bilingual`); images are already checked and encoded anew (`images.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from django.core.files.base import ContentFile
from django.utils.translation import gettext as _

from ..gift.format import Bilingual

__all__ = [
    "Bilingual",
    "Document",
    "ExchangeError",
    "Image",
    "Note",
    "Part",
    "Pair",
    "Question",
    "QuizPart",
]

# The formats a file may be in, as the import's report names them.
GIFT, MOODLE, QTI = "gift", "moodle", "qti"


@dataclass(frozen=True, slots=True)
class Note:
    """Something said about one place in a file: `source` (a file in a package, or empty),
    `line` (0: the whole file) and the `message`. Shaped as the GIFT import's `Problem`."""

    line: int
    message: str
    source: str = ""

    def __str__(self) -> str:
        if self.source and self.line:
            return _("%(source)s, line %(line)d: %(message)s") % {
                "source": self.source,
                "line": self.line,
                "message": self.message,
            }
        if self.source:
            return _("%(source)s: %(message)s") % {"source": self.source, "message": self.message}
        if self.line:
            return _("Line %(line)d: %(message)s") % {"line": self.line, "message": self.message}
        return self.message


class ExchangeError(Exception):
    """The file was refused: `problems` say where and why. Nothing was written."""

    def __init__(self, problems: list[Note], notes: list[Note] | None = None) -> None:
        super().__init__("\n".join(str(problem) for problem in problems))
        self.problems = problems
        self.notes = notes or []


@dataclass(slots=True)
class Image:
    """An image of a question, an explanation or a choice: checked and encoded anew
    (`content`, named by its format's extension), with its alt text in both languages."""

    content: ContentFile
    alt: Bilingual = field(default_factory=Bilingual)
    # The file's name in the file it came from, for the report and the writers.
    name: str = ""
    # Its pixels' width and height, for the writers (QTI's <img> wants them).
    width: int = 0
    height: int = 0


@dataclass(slots=True)
class Part:
    """A row of a question beside its prompt: a choice (`text`, `fraction`, `feedback`,
    `image`), an accepted number (`value`, `tolerance`, `fraction`, `feedback`), an accepted
    answer (`text`, `fraction`, `feedback`, `exact`) or an item to order (`text`)."""

    text: Bilingual = field(default_factory=Bilingual)
    fraction: Decimal = Decimal(0)
    feedback: Bilingual = field(default_factory=Bilingual)
    image: Image | None = None
    value: Decimal = Decimal(0)
    tolerance: Decimal = Decimal(0)
    exact: bool = False


@dataclass(slots=True)
class Pair:
    """A matching question's pair; without a prompt, a distractor."""

    prompt: Bilingual
    match: Bilingual


@dataclass(slots=True)
class Question:
    kind: str
    prompt: Bilingual
    explanation: Bilingual = field(default_factory=Bilingual)
    # The question's name in its file, for the report (Daleel keeps none).
    name: str = ""
    line: int = 0
    source: str = ""
    image: Image | None = None
    explanation_image: Image | None = None
    # single, multiple, truefalse: the choices; numerical: the accepted numbers; short: the
    # accepted answers; ordering: the items in their right order.
    parts: list[Part] = field(default_factory=list)
    pairs: list[Pair] = field(default_factory=list)
    # Whether its file shuffles its answers (None: the file does not say).
    shuffle: bool | None = None
    # Why Daleel cannot hold it after all (its answers are images…): then it is skipped.
    skip_reason: str = ""

    def note(self, message: str) -> Note:
        return Note(self.line, message, self.source)


@dataclass(slots=True)
class QuizPart:
    """A quiz of the file: a Moodle category that holds questions, a QTI test."""

    title: Bilingual = field(default_factory=Bilingual)
    description: Bilingual = field(default_factory=Bilingual)
    questions: list[Question] = field(default_factory=list)
    line: int = 0
    source: str = ""


@dataclass
class Document:
    format: str
    quizzes: list[QuizPart] = field(default_factory=list)
    errors: list[Note] = field(default_factory=list)
    # Questions of a type Daleel cannot hold, and what else was left out or changed.
    skipped: list[Note] = field(default_factory=list)
    warnings: list[Note] = field(default_factory=list)

    @property
    def questions(self) -> list[Question]:
        return [question for quiz in self.quizzes for question in quiz.questions]

    @property
    def notes(self) -> list[Note]:
        return self.skipped + self.warnings
