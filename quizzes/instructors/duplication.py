"""A quiz copied with its questions, choices and accepted numbers: the admin's "Duplicate"."""

from __future__ import annotations

from django.db import models, transaction
from django.utils import timezone

from ..content import content_changed
from ..models import AcceptedText, Choice, MatchPair, NumericalAnswer, OrderItem, Question, Quiz

COPY_SUFFIX = {"en": " (copy)", "ar": " (نسخة)"}


def _copy[M: models.Model](obj: M, **changes) -> M:
    """A new, unsaved row with `obj`'s values (every language's) but its key, and `changes`."""
    values = {
        field.attname: getattr(obj, field.attname)
        for field in type(obj)._meta.get_fields()
        if field.concrete and not field.primary_key
    }
    return type(obj)(**{**values, **changes})


def _free_slug(slug: str) -> str:
    """`slug`-copy, or -copy-2, -copy-3 … : the first no quiz has, within the field's length."""
    longest = Quiz._meta.get_field("slug").max_length
    taken = set(
        Quiz.objects.filter(slug__startswith=slug[: longest - 12]).values_list("slug", flat=True)
    )
    number = 1
    while True:
        suffix = "-copy" if number == 1 else f"-copy-{number}"
        candidate = slug[: longest - len(suffix)] + suffix
        if candidate not in taken:
            return candidate
        number += 1


def quiz_duplicate(*, quiz: Quiz) -> Quiz:
    """A copy of `quiz`, unpublished, under a new slug, its titles marked as a copy, with its
    questions, their choices, accepted numbers and texts, pairs and items to order. Its
    attempts, overrides and reports stay with the original."""
    now = timezone.now()
    with transaction.atomic():
        titles = {
            f"title_{code}": f"{title}{suffix}"
            for code, suffix in COPY_SUFFIX.items()
            if (title := getattr(quiz, f"title_{code}"))
        }
        copy = _copy(
            quiz,
            slug=_free_slug(quiz.slug),
            is_published=False,
            created_at=now,
            updated_at=now,
            guide_position=quiz.guide.next_quiz_position(),
            **titles,
        )
        copy.save()
        questions = list(quiz.questions.order_by("position"))
        copied = Question.objects.bulk_create(_copy(q, quiz_id=copy.pk) for q in questions)
        new_pk = {old.pk: new.pk for old, new in zip(questions, copied, strict=True)}
        Choice.objects.bulk_create(
            _copy(choice, question_id=new_pk[choice.question_id])
            for choice in Choice.objects.filter(question__quiz=quiz).order_by("pk")
        )
        for model in (NumericalAnswer, AcceptedText, MatchPair, OrderItem):
            model.objects.bulk_create(
                _copy(part, question_id=new_pk[part.question_id])
                for part in model.objects.filter(question__quiz=quiz).order_by("pk")
            )
        content_changed(quiz=copy)
    return copy
