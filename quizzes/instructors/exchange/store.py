"""A read file's quizzes written to the database: all of it in one transaction, or nothing
(and no image file left behind)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.core.validators import validate_slug
from django.db import transaction
from django.db.backends.base.operations import BaseDatabaseOperations
from django.db.models import Max
from django.utils.translation import gettext as _

from ...content import content_changed
from ...models import (
    AcceptedText,
    Choice,
    Guide,
    MatchPair,
    NumericalAnswer,
    OrderItem,
    Quiz,
)
from ...models import Question as QuestionRow
from .content import Bilingual, Document, ExchangeError, Image, Note, Question, QuizPart


@dataclass
class QuizImport:
    quiz: Quiz
    created: bool
    questions: list[QuestionRow]


@dataclass
class FileImport:
    """What an import did: the quizzes written to (each created or added to), the notes on the
    file (skipped questions, what was left out), and whether a placeholder guide was used."""

    format: str
    quizzes: list[QuizImport] = field(default_factory=list)
    notes: list = field(default_factory=list)
    placeholder_guide: bool = False

    @property
    def question_count(self) -> int:
        return sum(len(part.questions) for part in self.quizzes)


def check_slug(slug: str) -> None:
    try:
        validate_slug(slug)
        Quiz._meta.get_field("slug").run_validators(slug)
    except ValidationError as invalid:
        raise ExchangeError([Note(0, " ".join(invalid.messages))]) from None


def document_store(
    document: Document,
    *,
    filename: str,
    quiz_slug: str | None,
    guide: Guide | None,
) -> FileImport:
    """Write `document`'s quizzes: each as a new, unpublished quiz of `guide` (or the
    placeholder guide), or every question into the quiz `quiz_slug` (created if missing)."""
    from .. import imports  # the GIFT import's helpers: slugs, titles, the placeholder guide

    if quiz_slug:
        check_slug(quiz_slug)
    result = FileImport(format=document.format, notes=list(document.notes))
    parts = document.quizzes
    if quiz_slug:
        merged = QuizPart(title=parts[0].title, description=parts[0].description)
        merged.questions = [question for part in parts for question in part.questions]
        parts = [merged]
    saved: list[str] = []
    try:
        with transaction.atomic():
            for part in parts:
                quiz = None
                if quiz_slug:
                    quiz = Quiz.objects.select_for_update().filter(slug=quiz_slug).first()
                created = quiz is None
                if quiz is None:
                    if guide is None:
                        guide = imports.placeholder_guide()
                        result.placeholder_guide = True
                    quiz = _new_quiz(part, filename=filename, slug=quiz_slug, guide=guide)
                else:
                    result.notes.extend(_existing_quiz_notes(quiz, part))
                rows = _append(quiz, part, saved)
                result.quizzes.append(QuizImport(quiz=quiz, created=created, questions=rows))
    except BaseException:
        for name in saved:
            default_storage.delete(name)
        raise
    return result


def _new_quiz(part: QuizPart, *, filename: str, slug: str | None, guide: Guide) -> Quiz:
    from .. import imports

    title = part.title
    if not title.en:
        title = Bilingual(en=imports._title_from_filename(filename), ar=title.ar)
    return Quiz.objects.create(
        slug=slug or imports._unique_slug(title.en),
        title_en=title.en,
        title_ar=title.ar,
        description_en=part.description.en,
        description_ar=part.description.ar,
        guide=guide,
        shuffle_choices=_shuffles(part) or False,
        # An instructor reviews an imported quiz before learners see it.
        is_published=False,
    )


def _shuffles(part: QuizPart) -> bool | None:
    """Whether the file shuffles its choice questions' answers (None: it does not say).
    Daleel shuffles a whole quiz's or none: all of them must."""
    said = [q.shuffle for q in part.questions if q.shuffle is not None]
    return all(said) if said else None


def _existing_quiz_notes(quiz: Quiz, part: QuizPart) -> list[Note]:
    notes = []
    if quiz.is_published:
        notes.append(Note(0, _("The quiz is published: learners see the new questions at once.")))
    if part.description:
        notes.append(
            Note(
                part.line,
                _(
                    "The file's description was not used: importing into an existing quiz "
                    "leaves its description as it is."
                ),
            )
        )
    shuffles = _shuffles(part)
    if shuffles is not None and shuffles != quiz.shuffle_choices:
        notes.append(
            Note(
                0,
                _(
                    "The file's questions shuffle their answers and this quiz does not, or the "
                    "other way round: the quiz's setting was left as it is."
                ),
            )
        )
    return notes


def _highest_position() -> int:
    field_type = QuestionRow._meta.get_field("position").get_internal_type()
    return BaseDatabaseOperations.integer_field_ranges[field_type][1]


def _save_image(row, name: str, image: Image | None, saved: list[str]) -> None:
    if image is None:
        return
    image.content.seek(0)
    getattr(row, name).save(image.content.name, image.content, save=False)
    saved.append(getattr(row, name).name)
    setattr(row, f"{name}_alt_en", image.alt.en)
    setattr(row, f"{name}_alt_ar", image.alt.ar)


def _append(quiz: Quiz, part: QuizPart, saved: list[str]) -> list[QuestionRow]:
    last = quiz.questions.aggregate(last=Max("position"))["last"] or 0
    highest = _highest_position()
    if last + len(part.questions) > highest:
        raise ExchangeError(
            [
                Note(
                    0,
                    _(
                        "The quiz's questions already reach position %(last)d; %(count)d more "
                        "would pass the highest position, %(highest)d."
                    )
                    % {"last": last, "count": len(part.questions), "highest": highest},
                )
            ]
        )
    rows: list[QuestionRow] = []
    parts: dict[type, list] = {
        Choice: [],
        NumericalAnswer: [],
        AcceptedText: [],
        MatchPair: [],
        OrderItem: [],
    }
    for offset, question in enumerate(part.questions, start=1):
        row = QuestionRow(
            quiz=quiz,
            position=last + offset,
            kind=question.kind,
            prompt_en=question.prompt.en,
            prompt_ar=question.prompt.ar,
            explanation_en=question.explanation.en,
            explanation_ar=question.explanation.ar,
        )
        _save_image(row, "image", question.image, saved)
        _save_image(row, "explanation_image", question.explanation_image, saved)
        row.save()
        rows.append(row)
        _parts(row, question, parts, saved)
    for model, objects in parts.items():
        model.objects.bulk_create(objects)
    content_changed(quiz=quiz)
    return rows


def _parts(row: QuestionRow, question: Question, parts: dict[type, list], saved: list[str]):
    for position, part in enumerate(question.parts, start=1):
        if question.kind == "numerical":
            parts[NumericalAnswer].append(
                NumericalAnswer(
                    question=row,
                    position=position,
                    value=part.value,
                    tolerance=part.tolerance,
                    fraction=part.fraction,
                    feedback_en=part.feedback.en,
                    feedback_ar=part.feedback.ar,
                )
            )
        elif question.kind == "short":
            parts[AcceptedText].append(
                AcceptedText(
                    question=row,
                    position=position,
                    text_en=part.text.en,
                    text_ar=part.text.ar,
                    fraction=part.fraction,
                    feedback_en=part.feedback.en,
                    feedback_ar=part.feedback.ar,
                    exact=part.exact,
                )
            )
        elif question.kind == "ordering":
            parts[OrderItem].append(
                OrderItem(
                    question=row, position=position, text_en=part.text.en, text_ar=part.text.ar
                )
            )
        else:
            choice = Choice(
                question=row,
                position=position,
                text_en=part.text.en,
                text_ar=part.text.ar,
                feedback_en=part.feedback.en,
                feedback_ar=part.feedback.ar,
                is_correct=part.fraction > 0,
                fraction=part.fraction,
            )
            _save_image(choice, "image", part.image, saved)
            parts[Choice].append(choice)
    parts[MatchPair].extend(
        MatchPair(
            question=row,
            position=position,
            prompt_en=pair.prompt.en,
            prompt_ar=pair.prompt.ar,
            match_en=pair.match.en,
            match_ar=pair.match.ar,
        )
        for position, pair in enumerate(question.pairs, start=1)
    )
