"""Which texts still lack their Arabic translation, quiz by quiz, for the admin.

A field lacks Arabic when it has English text and its Arabic is empty (or only spaces); a
field empty in both languages has nothing to translate. The database picks the rows that
lack something; Python then names the fields. Every part of a question is listed as its
choices are: a short answer's accepted answers and a number's feedback (the Arabic page shows
them after an answer), a matching question's pairs and an ordering question's items.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce, Trim
from django.urls import reverse
from django.utils.translation import gettext as _

from ..models import AcceptedText, Choice, MatchPair, NumericalAnswer, OrderItem, Question, Quiz


@dataclass
class Untranslated:
    label: str
    english: str
    url: str  # The admin page where the field is edited.


@dataclass
class QuizCoverage:
    quiz: Quiz
    missing: list[Untranslated] = field(default_factory=list)


def _lacks_arabic(obj, name: str) -> bool:
    english = (getattr(obj, f"{name}_en") or "").strip()
    arabic = (getattr(obj, f"{name}_ar") or "").strip()
    return bool(english) and not arabic


def _untranslated(queryset: QuerySet, names: list[str]) -> QuerySet:
    """Rows with at least one of `names` lacking Arabic."""
    aliases = {}
    condition = Q()
    for name in names:
        aliases[f"_{name}_en"] = Trim(f"{name}_en")
        aliases[f"_{name}_ar"] = Trim(f"{name}_ar")
        has_english = Q(**{f"{name}_en__isnull": False}) & ~Q(**{f"_{name}_en": ""})
        no_arabic = Q(**{f"{name}_ar__isnull": True}) | Q(**{f"_{name}_ar": ""})
        condition |= has_english & no_arabic
    return queryset.alias(**aliases).filter(condition)


def _field_label(model, name: str) -> str:
    return str(model._meta.get_field(name).verbose_name)


def translation_coverage(quizzes: QuerySet[Quiz]) -> list[QuizCoverage]:
    """Per quiz (by title), its untranslated fields in the order an editor meets them."""
    quizzes = list(quizzes.select_related("guide").order_by("title_en", "pk"))
    # (quiz pk, sort key, item): sorted at the end so each question's choices follow it.
    found: list[tuple[int, tuple, Untranslated]] = []

    for quiz in quizzes:
        guide = quiz.guide
        if _lacks_arabic(guide, "title"):
            label = _("Guide: %(field)s") % {"field": _field_label(type(guide), "title")}
            url = reverse("admin:quizzes_guide_change", args=[guide.pk])
            found.append((quiz.pk, (0, 0), Untranslated(label, guide.title_en, url)))
        for order, name in enumerate(("title", "description"), start=1):
            if _lacks_arabic(quiz, name):
                label = _("Quiz: %(field)s") % {"field": _field_label(Quiz, name)}
                url = reverse("admin:quizzes_quiz_change", args=[quiz.pk])
                english = getattr(quiz, f"{name}_en")
                found.append((quiz.pk, (0, order), Untranslated(label, english, url)))

    questions = _untranslated(Question.objects.filter(quiz__in=quizzes), ["prompt", "explanation"])
    for question in questions:
        url = reverse("admin:quizzes_question_change", args=[question.pk])
        for order, name in enumerate(("prompt", "explanation")):
            if _lacks_arabic(question, name):
                label = _("Question %(position)d: %(field)s") % {
                    "position": question.position,
                    "field": _field_label(Question, name),
                }
                english = getattr(question, f"{name}_en")
                key = (1, question.position, 0, order)
                found.append((question.quiz_id, key, Untranslated(label, english, url)))

    # Where the choice's form sits among its question's inline forms (ordered by position),
    # so that the link lands on it.
    earlier = (
        Choice.objects.filter(question=OuterRef("question"), position__lt=OuterRef("position"))
        .order_by()
        .values("question")
        .annotate(count=Count("pk"))
        .values("count")
    )
    choices = (
        _untranslated(Choice.objects.filter(question__quiz__in=quizzes), ["text", "feedback"])
        .annotate(form_index=Coalesce(Subquery(earlier), 0))
        .select_related("question")
    )
    for choice in choices:
        question = choice.question
        url = reverse("admin:quizzes_question_change", args=[question.pk])
        for order, name in enumerate(("text", "feedback")):
            if _lacks_arabic(choice, name):
                label = _("Question %(question)d, choice %(choice)d: %(field)s") % {
                    "question": question.position,
                    "choice": choice.position,
                    "field": _field_label(Choice, name),
                }
                english = getattr(choice, f"{name}_en")
                key = (1, question.position, 1, choice.position, order)
                item = Untranslated(label, english, f"{url}#choices-{choice.form_index}")
                found.append((question.quiz_id, key, item))

    for model, names, prefix, label in (
        (
            AcceptedText,
            ["text", "feedback"],
            "accepted_texts",
            _("Question %(question)d, answer %(part)d: %(field)s"),
        ),
        (
            NumericalAnswer,
            ["feedback"],
            "numerical_answers",
            _("Question %(question)d, accepted number %(part)d: %(field)s"),
        ),
        (
            MatchPair,
            ["prompt", "match"],
            "pairs",
            _("Question %(question)d, pair %(part)d: %(field)s"),
        ),
        (OrderItem, ["text"], "order_items", _("Question %(question)d, item %(part)d: %(field)s")),
    ):
        found += _parts_lacking(model, names, prefix, label, quizzes)

    coverage = {quiz.pk: QuizCoverage(quiz=quiz) for quiz in quizzes}
    for quiz_pk, _key, item in sorted(found, key=lambda entry: entry[:2]):
        coverage[quiz_pk].missing.append(item)
    return list(coverage.values())


def _parts_lacking(model, names: list[str], prefix: str, label: str, quizzes) -> list:
    """The rows of `model` (pairs, items) lacking Arabic, linked to their inline form."""
    earlier = (
        model.objects.filter(question=OuterRef("question"), position__lt=OuterRef("position"))
        .order_by()
        .values("question")
        .annotate(count=Count("pk"))
        .values("count")
    )
    rows = (
        _untranslated(model.objects.filter(question__quiz__in=quizzes), names)
        .annotate(form_index=Coalesce(Subquery(earlier), 0))
        .select_related("question")
    )
    found = []
    for row in rows:
        question = row.question
        url = reverse("admin:quizzes_question_change", args=[question.pk])
        for order, name in enumerate(names):
            if _lacks_arabic(row, name):
                text = label % {
                    "question": question.position,
                    "part": row.position,
                    "field": _field_label(model, name),
                }
                key = (1, question.position, 2, row.position, order)
                item = Untranslated(
                    text, getattr(row, f"{name}_en"), f"{url}#{prefix}-{row.form_index}"
                )
                found.append((question.quiz_id, key, item))
    return found
