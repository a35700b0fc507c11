"""Admin edits move the content version of the quizzes they change (`content_changed`)."""

from __future__ import annotations

from django.db.models import QuerySet

from ..content import content_changed
from ..models import Guide, Question, Quiz


def quizzes_of(obj: Quiz | Question | Guide) -> QuerySet[Quiz]:
    """The quizzes whose learner-visible content includes `obj`."""
    if isinstance(obj, Quiz):
        return Quiz.objects.filter(pk=obj.pk)
    if isinstance(obj, Question):
        return Quiz.objects.filter(pk=obj.quiz_id)
    return Quiz.objects.filter(guide=obj)


class MovesContentVersionMixin:
    """For the admins of quizzes, questions (with their choices) and guides: after a save
    (the object and its inlines) or a delete, the quizzes concerned get a new version."""

    def save_related(self, request, form, formsets, change) -> None:
        super().save_related(request, form, formsets, change)
        content_changed(quiz=quizzes_of(form.instance))

    def delete_model(self, request, obj) -> None:
        quiz_ids = list(quizzes_of(obj).values_list("pk", flat=True))
        super().delete_model(request, obj)
        content_changed(quiz=Quiz.objects.filter(pk__in=quiz_ids))

    def delete_queryset(self, request, queryset) -> None:
        quiz_ids = set()
        for obj in queryset:
            quiz_ids.update(quizzes_of(obj).values_list("pk", flat=True))
        super().delete_queryset(request, queryset)
        content_changed(quiz=Quiz.objects.filter(pk__in=quiz_ids))
