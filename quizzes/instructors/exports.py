"""Quizzes out of the site: as GIFT, Moodle XML and QTI 2.1 (content) and as CSV (learners'
attempts and answers)."""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterable, Iterator
from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.db.models import Prefetch, QuerySet
from django.db.models.fields.files import FieldFile
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils import timezone

from config.downloads import in_pieces

from ..models import (
    PART_KINDS,
    AcceptedText,
    Attempt,
    Choice,
    MatchPair,
    NumericalAnswer,
    OrderItem,
    Question,
    Quiz,
)
from .exchange.dump import quiz_part
from .exchange.moodle_write import write_moodle
from .exchange.qti_write import write_qti
from .gift.format import (
    Bilingual,
    GiftChoice,
    GiftNumericalAnswer,
    GiftPair,
    GiftQuestion,
    GiftText,
    write_gift,
)


def _bilingual(obj, field: str) -> Bilingual:
    return Bilingual(en=getattr(obj, f"{field}_en") or "", ar=getattr(obj, f"{field}_ar") or "")


def request_origin(request: HttpRequest | None) -> str:
    """Where the exported images' links point: SITE_ORIGIN when it is set, else the
    request's own scheme and host, else nothing (links then stay relative to the site)."""
    if settings.SITE_ORIGIN:
        return settings.SITE_ORIGIN.rstrip("/")
    if request is not None:
        return request.build_absolute_uri("/").rstrip("/")
    return ""


def _markdown_alt(text: str) -> str:
    # Brackets would end the alt text early; a line break would end the image.
    text = " ".join(text.split())
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _with_image(text: Bilingual, obj, name: str, origin: str, *, inline: bool = False) -> Bilingual:
    """`text` followed by `obj`'s image `name` as a Markdown image link (absolute), in each
    language the text has: GIFT has no images of its own, and Moodle reads Markdown."""
    image: FieldFile = getattr(obj, name)
    if not image:
        return text
    url = image.url
    if url.startswith("/"):
        url = origin + url
    alt_en = getattr(obj, f"{name}_alt_en") or ""
    alt_ar = getattr(obj, f"{name}_alt_ar") or alt_en
    gap = " " if inline else "\n\n"
    return Bilingual(
        en=f"{text.en}{gap}![{_markdown_alt(alt_en)}]({url})",
        ar=f"{text.ar}{gap}![{_markdown_alt(alt_ar)}]({url})" if text.ar else "",
    )


def _gift_question(question: Question, origin: str = "") -> GiftQuestion:
    return GiftQuestion(
        prompt=_with_image(_bilingual(question, "prompt"), question, "image", origin),
        explanation=_with_image(
            _bilingual(question, "explanation"), question, "explanation_image", origin
        ),
        choices=[
            GiftChoice(
                text=_with_image(_bilingual(choice, "text"), choice, "image", origin, inline=True),
                fraction=choice.fraction.normalize(),
                feedback=_bilingual(choice, "feedback"),
            )
            for choice in question.choices.all()
        ],
        name=f"Q{question.position}",
        kind=question.kind,
        numerical=[
            GiftNumericalAnswer(
                value=answer.value.normalize(),
                tolerance=answer.tolerance.normalize(),
                fraction=answer.fraction.normalize(),
                feedback=_bilingual(answer, "feedback"),
            )
            for answer in question.numerical_answers.all()
        ],
        texts=[
            GiftText(
                text=_bilingual(accepted, "text"),
                fraction=accepted.fraction.normalize(),
                feedback=_bilingual(accepted, "feedback"),
            )
            for accepted in question.accepted_texts.all()
        ],
        pairs=[
            GiftPair(prompt=_bilingual(pair, "prompt"), match=_bilingual(pair, "match"))
            for pair in question.pairs.all()
        ],
    )


# Kinds GIFT cannot write: left out of the file, which says so (and export_quiz too).
NOT_GIFT = frozenset({Question.Kind.ORDERING})


def unexported_questions(quiz: Quiz) -> list[Question]:
    """The quiz's questions a GIFT file leaves out (ordering questions: GIFT has none)."""
    return list(quiz.questions.filter(kind__in=NOT_GIFT).order_by("position"))


def quiz_to_gift(quiz: Quiz, *, origin: str | None = None) -> str:
    """The quiz as GIFT: title as the category, description as a description item; images as
    Markdown image links to their files, made absolute with `origin` (by default
    `request_origin(None)`: SITE_ORIGIN)."""
    origin = request_origin(None) if origin is None else origin
    questions = quiz.questions.order_by("position").prefetch_related(
        Prefetch("choices", queryset=Choice.objects.order_by("position")),
        Prefetch("numerical_answers", queryset=NumericalAnswer.objects.order_by("position")),
        Prefetch("accepted_texts", queryset=AcceptedText.objects.order_by("position")),
        Prefetch("pairs", queryset=MatchPair.objects.order_by("position")),
    )
    header = f"Daleel quiz: {quiz.slug}\nImport with: python manage.py import_quiz FILE"
    written, left_out = [], []
    for question in questions:
        if question.kind in NOT_GIFT:
            left_out.append(question.position)
        else:
            written.append(_gift_question(question, origin))
    if left_out:
        header += (
            "\nLeft out: GIFT has no ordering questions; question(s) "
            + ", ".join(map(str, left_out))
            + " of the quiz are not in this file."
        )
    return write_gift(
        written,
        title=_bilingual(quiz, "title"),
        description=_bilingual(quiz, "description"),
        header=header,
    )


def gift_filename(quiz: Quiz) -> str:
    return f"{quiz.slug}.gift.txt"


def gift_download(quizzes: Iterable[Quiz], *, request: HttpRequest | None = None) -> HttpResponse:
    """One quiz as a GIFT file; several as a zip of GIFT files, one per quiz. Images link to
    the request's origin (or SITE_ORIGIN)."""
    quizzes = list(quizzes)
    origin = request_origin(request)
    if len(quizzes) == 1:
        response = HttpResponse(
            quiz_to_gift(quizzes[0], origin=origin), content_type="text/plain; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="{gift_filename(quizzes[0])}"'
        return response
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for quiz in quizzes:
            archive.writestr(gift_filename(quiz), quiz_to_gift(quiz, origin=origin))
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = 'attachment; filename="quizzes-gift.zip"'
    return response


# --- Moodle XML and QTI ----------------------------------------------------------------------

# Each format: its file's extension, its content type, and its writer.
EXCHANGE_FORMATS = {
    "moodle": ("moodle.xml", "application/xml"),
    "qti": ("qti.zip", "application/zip"),
}


def quiz_export(quizzes: Iterable[Quiz], export_format: str) -> tuple[bytes, list[str]]:
    """`quizzes` as one Moodle XML file (a category each) or one QTI 2.1 package (a test
    each), with every kind, both languages and the images in the file; and what the format
    could not say."""
    quizzes = list(quizzes)
    parts = [quiz_part(quiz) for quiz in quizzes]
    if export_format == "moodle":
        slugs = ", ".join(quiz.slug for quiz in quizzes)
        comment = f"Daleel quiz: {slugs}. Import with: python manage.py import_quiz FILE"
        return write_moodle(parts, comment=comment)
    identifier = "-".join(quiz.slug for quiz in quizzes)
    return write_qti(parts, identifier=f"daleel-{identifier}")


def exchange_filename(quizzes: list[Quiz], export_format: str) -> str:
    extension = EXCHANGE_FORMATS[export_format][0]
    stem = quizzes[0].slug if len(quizzes) == 1 else "quizzes"
    return f"{stem}.{extension}"


def exchange_download(quizzes: Iterable[Quiz], export_format: str) -> HttpResponse:
    quizzes = list(quizzes)
    data, _notes = quiz_export(quizzes, export_format)
    response = HttpResponse(data, content_type=EXCHANGE_FORMATS[export_format][1])
    filename = exchange_filename(quizzes, export_format)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


# --- Attempts as CSV -----------------------------------------------------------------------

CSV_HEADER = [
    "quiz",
    "attempt_id",
    "learner",
    "started_at",
    "finished_at",
    "score",
    "total",
    "question_position",
    "question_id",
    "question_prompt",
    "choice_position",
    "choice_text",
    "correct_choice_position",
    "is_correct",
    "answered_at",
    # Kinds beyond one answer: the boxes ticked (positions, space-separated), the number
    # typed, and the share of the question's mark earned (0 to 1) for every answer.
    "question_kind",
    "choices_ticked",
    "number",
    "mark",
    # The positions of the question's choices in the order this attempt showed them
    # ("3 1 4 2"), for a quiz that shuffles them; empty: the quiz's own order. A matching
    # question's matches and an ordering question's items, as they were shown.
    "choice_order_shown",
    # A short answer as the learner typed it; a matching answer as "prompt → match" per
    # prompt, an ordering answer as the items in the learner's order (English, "; " apart).
    "text_typed",
    "arrangement",
]

# A spreadsheet runs a cell starting with one of these as a formula, after any leading
# whitespace (" =1+1" is a formula too); a learner chooses their own username and types their
# short answers, so such cells are prefixed with a quote (OWASP's advice).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value) -> str | int:
    if value is None:
        return ""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, datetime) and timezone.is_aware(value):
        # In the instructor's time zone (activated for the request), with its offset.
        return timezone.localtime(value).isoformat()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, Decimal):
        # A mark or a score: 1, 0.5, 3.5 (no padding zeros; whole ones as integers).
        return int(value) if value == value.to_integral_value() else f"{value.normalize():f}"
    if isinstance(value, str) and (
        value.startswith(_FORMULA_STARTS) or value.lstrip().startswith(_FORMULA_STARTS)
    ):
        return "'" + value
    return value


def attempt_rows(quizzes: QuerySet[Quiz]) -> Iterator[list]:
    """One row per answer (an attempt with no answer yet has one row of its own).

    Read in chunks straight from the database cursor: a large export never sits in memory.
    The choices' positions are read once, when the first boxes ticked or the first attempt
    with its own order of choices (a shuffled quiz) comes.
    """
    yield CSV_HEADER
    rows = (
        Attempt.objects.filter(quiz__in=quizzes)
        .order_by("quiz__slug", "started_at", "pk", "answers__question__position")
        .values_list(
            "quiz__slug",
            "pk",
            "user__username",
            "started_at",
            "finished_at",
            "score",
            "total",
            "answers__question__position",
            "answers__question_id",
            "answers__question__prompt_en",
            "answers__choice__position",
            "answers__choice__text_en",
            "answers__correct_choice__position",
            "answers__is_correct",
            "answers__answered_at",
            "answers__question__kind",
            "answers__choice_ids",
            "answers__number",
            "answers__fraction",
            "choice_order",
            "answers__text",
            "answers__arrangement",
        )
    )
    ticked = CSV_HEADER.index("choices_ticked")
    kind_at = CSV_HEADER.index("question_kind")
    positions: dict[int, int] | None = None  # choice id → position, read when first needed
    parts = _Parts(quizzes)

    def position_of(pk: int) -> str:
        nonlocal positions
        if positions is None:
            choices = Choice.objects.filter(question__quiz__in=quizzes)
            positions = dict(choices.values_list("pk", "position"))
        return str(positions.get(pk, "?"))

    for *row, choice_order, text, arrangement in rows.iterator(chunk_size=2000):
        kind = row[kind_at]
        row[ticked] = " ".join(position_of(pk) for pk in row[ticked]) if row[ticked] else ""
        shown = choice_order.get(str(row[8])) if row[8] is not None else None
        if shown and kind in parts.KINDS:
            order = " ".join(parts.position(kind, pk) for pk in shown)
        else:
            order = " ".join(position_of(pk) for pk in shown) if shown else ""
        arranged = parts.readable(kind, arrangement) if kind in parts.KINDS else ""
        yield [csv_cell(value) for value in row] + [order, csv_cell(text), csv_cell(arranged)]


class _Parts:
    """The pairs and items of the exported quizzes' matching and ordering questions (id →
    position and English text), read once, when the first answer that needs them comes."""

    KINDS = PART_KINDS

    def __init__(self, quizzes: QuerySet[Quiz]) -> None:
        self.quizzes = quizzes
        self.rows: dict[str, dict[int, tuple[int, str, str]]] | None = None

    def _of(self, kind: str) -> dict[int, tuple[int, str, str]]:
        if self.rows is None:
            pairs = MatchPair.objects.filter(question__quiz__in=self.quizzes)
            items = OrderItem.objects.filter(question__quiz__in=self.quizzes)
            self.rows = {
                Question.Kind.MATCHING: {
                    pk: (position, prompt or "", match or "")
                    for pk, position, prompt, match in pairs.values_list(
                        "pk", "position", "prompt_en", "match_en"
                    )
                },
                Question.Kind.ORDERING: {
                    pk: (position, text or "", "")
                    for pk, position, text in items.values_list("pk", "position", "text_en")
                },
            }
        return self.rows[kind]

    def position(self, kind: str, pk: int) -> str:
        found = self._of(kind).get(pk)
        return str(found[0]) if found else "?"

    def readable(self, kind: str, arrangement) -> str:
        if not arrangement:
            return ""
        rows = self._of(kind)
        if kind == Question.Kind.ORDERING:
            return "; ".join(rows[pk][1] if pk in rows else "?" for pk in arrangement)
        picked = sorted(
            ((rows.get(int(prompt)), rows.get(match)) for prompt, match in arrangement.items()),
            key=lambda pair: pair[0][0] if pair[0] else 0,
        )
        return "; ".join(
            f"{prompt[1] if prompt else '?'} → {match[2] if match else '?'}"
            for prompt, match in picked
        )


# The download is sent in pieces of about this many characters.
CSV_PIECE = 32 * 1024


class _Echo:
    """A file-like object whose write returns the line, for csv.writer in a stream."""

    def write(self, value: str) -> str:
        return value


def csv_stream(rows: Iterable[list], filename: str) -> StreamingHttpResponse:
    """`rows` as a CSV download, written as they come: a large export never sits in memory."""
    writer = csv.writer(_Echo())

    def lines() -> Iterator[str]:
        # A byte order mark, so that spreadsheet programs read the Arabic as UTF-8.
        yield "\ufeff"
        for row in rows:
            yield writer.writerow(row)

    response = StreamingHttpResponse(
        in_pieces(lines(), CSV_PIECE), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def attempts_csv_response(quizzes: QuerySet[Quiz], filename: str = "") -> StreamingHttpResponse:
    filename = filename or f"attempts-{timezone.now():%Y%m%d-%H%M}.csv"
    return csv_stream(attempt_rows(quizzes), filename)
