"""Import a file into quizzes: all of it in one transaction, or nothing.

`quiz_import_file` is the door every format comes through (the `import_quiz` command and the
admin's upload page): GIFT (`quiz_import_gift`, below), Moodle XML and QTI packages
(`exchange/`), told apart by the file's content.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import transaction
from django.db.backends.base.operations import BaseDatabaseOperations
from django.db.models import Max
from django.utils.text import slugify
from django.utils.translation import gettext as _

from ..content import content_changed
from ..models import (
    AcceptedText,
    Choice,
    Guide,
    MatchPair,
    NumericalAnswer,
    Question,
    Quiz,
    parts_problems,
    validate_choice_set,
    validate_numerical_answers,
)
from .exchange.content import GIFT, MOODLE, QTI, Document, ExchangeError, Note
from .exchange.moodle import read_moodle
from .exchange.qti_read import read_qti
from .exchange.safety import MAX_FILE_BYTES, ZIP_MAGIC
from .exchange.store import FileImport, QuizImport, document_store
from .gift.format import (
    TITLE_MAX_LENGTH,
    Bilingual,
    GiftDocument,
    GiftQuestion,
    Problem,
    parse_gift,
)

PLACEHOLDER_GUIDE_SLUG = "imported"
# One request imports at most this many questions: more would outlast the server's
# timeout. The README's instructor section and the import page say so.
MAX_QUESTIONS_PER_FILE = 1000


class GiftImportError(Exception):
    """The file was refused; `problems` say where and why. Nothing was written."""

    def __init__(self, problems: list[Problem], document: GiftDocument | None = None) -> None:
        super().__init__("\n".join(str(problem) for problem in problems))
        self.problems = problems
        self.document = document


@dataclass
class ImportResult:
    quiz: Quiz
    created: bool
    questions: list[Question]
    # Questions skipped as unsupported, and warnings, each with its line number.
    notes: list[Problem] = field(default_factory=list)
    placeholder_guide: bool = False


def placeholder_guide() -> Guide:
    """The guide new imported quizzes hang from until an instructor picks their real one."""
    guide, _created = Guide.objects.get_or_create(
        slug=PLACEHOLDER_GUIDE_SLUG,
        defaults={
            "title_en": "Imported quizzes: choose a guide",
            "title_ar": "اختبارات مستوردة: اختر دليلًا",
            # The field is required; a reserved documentation domain points nowhere real.
            "url": "https://example.org/",
        },
    )
    return guide


def quiz_import_gift(
    *,
    text: str,
    filename: str = "",
    quiz_slug: str | None = None,
    guide: Guide | None = None,
) -> ImportResult:
    """Import the questions of GIFT `text` (every kind it has that the site has).

    With `quiz_slug`, the questions are appended to that quiz, which is created if missing;
    without it, a new quiz is created, titled after the file's `$CATEGORY:` (its last
    segment) or else the file name, with a slug made unique. A new quiz is unpublished and
    belongs to `guide`, or to the placeholder guide. Raises GiftImportError, writing
    nothing, if the file has any error.
    """
    document = read_gift(text)
    if document.errors:
        raise GiftImportError(document.errors, document)
    if quiz_slug:
        try:
            validate_slug(quiz_slug)
            Quiz._meta.get_field("slug").run_validators(quiz_slug)  # its length
        except ValidationError as invalid:
            raise GiftImportError([Problem(0, " ".join(invalid.messages))], document) from None

    notes = sorted(document.skipped + document.warnings, key=lambda problem: problem.line)
    with transaction.atomic():
        quiz = (
            Quiz.objects.select_for_update().filter(slug=quiz_slug).first() if quiz_slug else None
        )
        created = quiz is None
        used_placeholder = False
        if quiz is None:
            if guide is None:
                guide = placeholder_guide()
                used_placeholder = True
            quiz = _new_quiz(document, filename=filename, slug=quiz_slug, guide=guide)
            if same := _same_title(quiz):
                notes.append(Problem(0, same))
        elif quiz.is_published:
            notes.append(
                Problem(0, _("The quiz is published: learners see the new questions at once."))
            )
        if not created and document.description:
            notes.append(
                Problem(
                    document.description_line,
                    _(
                        "The description at the top of the file was not used: importing "
                        "into an existing quiz leaves its description as it is."
                    ),
                )
            )
        last = quiz.questions.aggregate(last=Max("position"))["last"] or 0
        if problems := _positions_out_of_range(last, document):
            # Raised inside the transaction: a quiz created above is rolled back too.
            raise GiftImportError(problems, document)
        questions = _append_questions(quiz, document, last=last)
    return ImportResult(
        quiz=quiz,
        created=created,
        questions=questions,
        notes=notes,
        placeholder_guide=used_placeholder,
    )


def read_gift(text: str) -> GiftDocument:
    """The file as this site imports it: parsed, then held to the site's limits.

    Every kind the parser reads is kept (the parser itself reports and skips essays, and
    short-answer and matching questions the site cannot hold); a question the admin's
    validation of its kind would refuse is an error here. The dry run of `import_quiz`
    reads files through this too.
    """
    # The scan stops at the first question past the limit: a file of a hundred thousand
    # tiny questions is refused in the time its first thousand take.
    document = parse_gift(text, max_questions=MAX_QUESTIONS_PER_FILE)
    for question in document.questions:
        document.errors.extend(_problems_of(question))
    if not document.questions and not document.errors:
        document.errors.append(Problem(0, _("The file has no question that can be imported.")))
    return document


def _positions_out_of_range(last: int, document: GiftDocument) -> list[Problem]:
    """Positions past what the position fields hold (PositiveSmallIntegerField: 32,767).

    The field's range on every database: SQLite would store more, PostgreSQL would fail.
    """
    field_type = Question._meta.get_field("position").get_internal_type()
    highest = BaseDatabaseOperations.integer_field_ranges[field_type][1]
    problems = []
    if last + len(document.questions) > highest:
        problems.append(
            Problem(
                0,
                _(
                    "The quiz's questions already reach position %(last)d; %(count)d more "
                    "would pass the highest position, %(highest)d."
                )
                % {"last": last, "count": len(document.questions), "highest": highest},
            )
        )
    problems.extend(
        Problem(
            question.line,
            _("The question has %(count)d answers; at most %(highest)d fit.")
            % {"count": len(question.choices), "highest": highest},
        )
        for question in document.questions
        if len(question.choices) > highest
    )
    return problems


def _new_quiz(document: GiftDocument, *, filename: str, slug: str | None, guide: Guide) -> Quiz:
    title = document.title
    if not title.en:
        title = Bilingual(en=_title_from_filename(filename), ar=title.ar)
    return Quiz.objects.create(
        slug=slug or _unique_slug(title.en),
        title_en=title.en,
        title_ar=title.ar,
        description_en=document.description.en,
        description_ar=document.description.ar,
        guide=guide,
        # An instructor reviews an imported quiz before learners see it.
        is_published=False,
    )


def _same_title(quiz: Quiz) -> str:
    """What to say when another quiz already has the new quiz's title (a quiz's own export
    imported again, most often): the import makes a second quiz, which the instructor may
    delete, or add to the first one instead."""
    other = (
        Quiz.objects.filter(title_en__iexact=quiz.title_en).exclude(pk=quiz.pk).order_by("pk")
    ).first()
    if other is None:
        return ""
    return _(
        "A quiz titled “%(title)s” already exists (%(slug)s): this import made a second one, "
        "“%(new)s”. If you meant to replace the first, delete one of them; to add questions "
        "to it, import them choosing that quiz."
    ) % {"title": other.title_en, "slug": other.slug, "new": quiz.slug}


def _title_from_filename(filename: str) -> str:
    stem = Path(filename).name.split(".")[0] if filename else ""
    title = " ".join(stem.replace("_", " ").replace("-", " ").split())
    # This becomes the English title, so it stays English whatever the admin's language.
    return (title[:1].upper() + title[1:])[:TITLE_MAX_LENGTH] or "Imported quiz"


def _unique_slug(title: str) -> str:
    max_length = Quiz._meta.get_field("slug").max_length - 4
    base = slugify(title)[:max_length].strip("-") or "imported-quiz"
    taken = set(Quiz.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    slug, number = base, 2
    while slug in taken:
        slug, number = f"{base}-{number}", number + 1
    return slug


def _problems_of(parsed: GiftQuestion) -> list[Problem]:
    """What the admin's validation of its kind says against the question, if anything."""
    try:
        if parsed.kind == Question.Kind.SHORT:
            parts_problems(parsed.kind, texts=_accepted_texts(None, parsed))
        elif parsed.kind == Question.Kind.MATCHING:
            parts_problems(parsed.kind, pairs=_pairs(None, parsed))
        elif parsed.kind == Question.Kind.NUMERICAL:
            validate_numerical_answers([(n, a.fraction) for n, a in enumerate(parsed.numerical)])
        else:
            # Right weights not adding up to 100% are the parser's warning, not an error.
            validate_choice_set(
                [(n, c.fraction > 0, c.fraction) for n, c in enumerate(parsed.choices)],
                kind=parsed.kind,
                strict_total=False,
            )
    except ValidationError as invalid:
        return [Problem(parsed.line, message) for message in invalid.messages]
    return []


def _append_questions(quiz: Quiz, document: GiftDocument, *, last: int) -> list[Question]:
    questions = []
    choices = []
    numbers = []
    texts: list[AcceptedText] = []
    pairs: list[MatchPair] = []
    for offset, parsed in enumerate(document.questions, start=1):
        kind = parsed.kind
        question = Question.objects.create(
            quiz=quiz,
            position=last + offset,
            kind=kind,
            prompt_en=parsed.prompt.en,
            prompt_ar=parsed.prompt.ar,
            explanation_en=parsed.explanation.en,
            explanation_ar=parsed.explanation.ar,
        )
        questions.append(question)
        if kind == Question.Kind.NUMERICAL:
            numbers.extend(
                NumericalAnswer(
                    question=question,
                    position=position,
                    value=answer.value,
                    tolerance=answer.tolerance,
                    fraction=answer.fraction,
                    feedback_en=answer.feedback.en,
                    feedback_ar=answer.feedback.ar,
                )
                for position, answer in enumerate(parsed.numerical, start=1)
            )
            continue
        texts.extend(_accepted_texts(question, parsed))
        pairs.extend(_pairs(question, parsed))
        for position, choice in enumerate(parsed.choices, start=1):
            text = choice.text  # true/false: the parser's own bilingual True and False
            choices.append(
                Choice(
                    question=question,
                    position=position,
                    text_en=text.en,
                    text_ar=text.ar,
                    feedback_en=choice.feedback.en,
                    feedback_ar=choice.feedback.ar,
                    is_correct=choice.fraction > 0,
                    fraction=choice.fraction,
                )
            )
    Choice.objects.bulk_create(choices)
    NumericalAnswer.objects.bulk_create(numbers)
    AcceptedText.objects.bulk_create(texts)
    MatchPair.objects.bulk_create(pairs)
    content_changed(quiz=quiz)
    return questions


def _accepted_texts(question: Question | None, parsed: GiftQuestion) -> list[AcceptedText]:
    return [
        AcceptedText(
            question=question,
            position=position,
            text_en=accepted.text.en,
            text_ar=accepted.text.ar,
            fraction=accepted.fraction,
            feedback_en=accepted.feedback.en,
            feedback_ar=accepted.feedback.ar,
        )
        for position, accepted in enumerate(parsed.texts, start=1)
    ]


def _pairs(question: Question | None, parsed: GiftQuestion) -> list[MatchPair]:
    return [
        MatchPair(
            question=question,
            position=position,
            prompt_en=pair.prompt.en,
            prompt_ar=pair.prompt.ar,
            match_en=pair.match.en,
            match_ar=pair.match.ar,
        )
        for position, pair in enumerate(parsed.pairs, start=1)
    ]


# --- The door: every format ----------------------------------------------------------------

# The import's formats, told apart by the file's content: a zip is a QTI package; XML whose
# root is <quiz> is Moodle XML, <questestinterop> (QTI 1.2) or <assessmentItem> and
# <assessmentTest> (QTI 2) a bare QTI file; anything else is GIFT text.
_XML_ROOT = re.compile(rb"<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)")
_QTI_ROOTS = {b"questestinterop", b"assessmentItem", b"assessmentTest", b"manifest"}


def file_format(data: bytes) -> str:
    """GIFT, MOODLE or QTI, from what the file holds (its name plays no part)."""
    if data.startswith(ZIP_MAGIC):
        return QTI
    head = data[:8192].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"<"):
        return GIFT
    body = re.sub(rb"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>\[]*(\[.*?\])?\s*>", b"", head, flags=re.S)
    root = _XML_ROOT.search(body)
    name = root.group(2) if root else b""
    if name == b"quiz":
        return MOODLE
    if name in _QTI_ROOTS:
        return QTI
    return MOODLE if head.startswith(b"<?xml") else GIFT


def read_document(data: bytes, *, file_kind: str | None = None) -> Document:
    """A Moodle XML or QTI file read and checked, nothing written (the dry run stops here)."""
    file_kind = file_kind or file_format(data)
    if len(data) > MAX_FILE_BYTES:
        raise ExchangeError(
            [
                Note(
                    0,
                    _("The file is larger than %(size)d MB.") % {"size": MAX_FILE_BYTES // 2**20},
                )
            ]
        )
    if file_kind == MOODLE:
        document = read_moodle(data, max_questions=MAX_QUESTIONS_PER_FILE)
    else:
        document = read_qti(data, max_questions=MAX_QUESTIONS_PER_FILE)
    if document.errors:
        raise ExchangeError(document.errors, document.notes)
    return document


def gift_text(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ExchangeError([Note(0, _("The file is not UTF-8 text: save it as UTF-8."))]) from None


def quiz_import_file(
    *,
    data: bytes,
    filename: str = "",
    quiz_slug: str | None = None,
    guide: Guide | None = None,
    without_ordering: bool = False,
) -> FileImport:
    """Import a file in any format the site reads (`file_format`): GIFT, Moodle XML, or a QTI
    package. Raises ExchangeError, writing nothing, if the file has any error (or holds
    ordering questions, `without_ordering`: for someone who may not add them)."""
    file_kind = file_format(data)
    if file_kind == GIFT:
        try:
            result = quiz_import_gift(
                text=gift_text(data), filename=filename, quiz_slug=quiz_slug, guide=guide
            )
        except GiftImportError as error:
            notes = error.document.skipped + error.document.warnings if error.document else []
            raise ExchangeError(error.problems, sorted(notes, key=lambda n: n.line)) from None
        return FileImport(
            format=GIFT,
            quizzes=[
                QuizImport(quiz=result.quiz, created=result.created, questions=result.questions)
            ],
            notes=result.notes,
            placeholder_guide=result.placeholder_guide,
        )
    document = read_document(data, file_kind=file_kind)
    if without_ordering and any(q.kind == "ordering" for q in document.questions):
        raise ExchangeError(
            [Note(0, _("The file holds ordering questions, and you may not add them."))],
            document.notes,
        )
    return document_store(document, filename=filename, quiz_slug=quiz_slug, guide=guide)


def file_dry_run(data: bytes) -> tuple[str, list[tuple[str, int]], list]:
    """What importing `data` would do, nothing written: its format, each quiz's title (empty:
    named after the file) with its number of questions, and the notes. ExchangeError if the
    file would be refused."""
    file_kind = file_format(data)
    if file_kind == GIFT:
        document = read_gift(gift_text(data))
        notes = sorted(document.skipped + document.warnings, key=lambda n: n.line)
        if document.errors:
            raise ExchangeError(document.errors, notes)
        return GIFT, [(document.title.en, len(document.questions))], notes
    exchange = read_document(data, file_kind=file_kind)
    counts = [(part.title.en, len(part.questions)) for part in exchange.quizzes]
    return file_kind, counts, exchange.notes
