"""Deleting content in the admin: the questions' admin keeps a published quiz answerable
(its last question is not deleted), and the content's delete pages and actions are worded as
the rest of their page.

The quiz's own page refuses to save a published quiz without questions
(`QuestionInlineFormSet`); deleting its last question from the questions' list or page would
otherwise take the quiz off the catalog without a word.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from django.apps import apps
from django.contrib import messages
from django.contrib.admin import ActionLocation
from django.contrib.admin.utils import unquote
from django.db.models import Count
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import ngettext, pgettext

from ..models import Question, Quiz


def quizzes_emptied(question_ids: Iterable[int]) -> list[Quiz]:
    """The published quizzes that deleting these questions would leave with none."""
    doomed = Question.objects.filter(pk__in=list(question_ids)).counts_by_quiz()
    published = Quiz.objects.filter(pk__in=doomed, is_published=True).annotate(
        total=Count("questions")
    )
    return [quiz for quiz in published.order_by("title_en") if quiz.total <= doomed[quiz.pk]]


def _refusal(quizzes: list[Quiz]) -> str:
    titles = pgettext("between quoted titles", ", ").join(
        pgettext("a quoted title", "“%(title)s”") % {"title": quiz.title} for quiz in quizzes
    )
    return ngettext(
        "%(titles)s is published and needs at least one question: add another question or "
        "unpublish the quiz first. Nothing was deleted.",
        "These %(count)d quizzes are published and each needs at least one question: "
        "%(titles)s. Add other questions or unpublish them first. Nothing was deleted.",
        len(quizzes),
    ) % {"count": len(quizzes), "titles": titles}


class KeepsLastQuestionOfPublishedQuizMixin:
    """For the questions' admin: deleting the last question of a published quiz, on its own
    page or from the list, is refused with a message that says what to do instead."""

    def delete_view(self, request, object_id, extra_context=None):
        question = self.get_object(request, unquote(object_id))
        emptied = quizzes_emptied([question.pk]) if question is not None else []
        if emptied:
            self.message_user(request, _refusal(emptied), messages.ERROR)
            return HttpResponseRedirect(
                reverse("admin:quizzes_question_change", args=[question.pk])
            )
        return super().delete_view(request, object_id, extra_context)

    def get_actions(self, request, action_location=ActionLocation.CHANGE_LIST):
        actions = super().get_actions(request, action_location)
        action = actions.get("delete_selected")
        if action is not None:
            delete = action.func

            def delete_selected(modeladmin, request, queryset):
                emptied = quizzes_emptied(queryset.values_list("pk", flat=True))
                if emptied:
                    modeladmin.message_user(request, _refusal(emptied), messages.ERROR)
                    return None  # back to the list
                return delete(modeladmin, request, queryset)

            actions["delete_selected"] = dataclasses.replace(action, func=delete_selected)
        return actions


class DeletionWordsMixin:
    """For the content's admins: the list's delete action in the model's own words, as the
    other actions are («حذف الاختبارات المحدَّدة», not the admin's «حذف المحدَّد من
    الاختبارات»); and, on a delete page the account may not complete, the kinds of rows it
    may not delete named in the plural («المحاولات», not «محاولة»)."""

    # The action's description, such as _("Delete selected quizzes").
    delete_selected_description = ""

    def get_actions(self, request, action_location=ActionLocation.CHANGE_LIST):
        actions = super().get_actions(request, action_location)  # type: ignore[misc]
        action = actions.get("delete_selected")
        if action is not None and self.delete_selected_description:
            actions["delete_selected"] = dataclasses.replace(
                action,
                description=self.delete_selected_description,
                plural_description=self.delete_selected_description,
            )
        return actions

    def get_deleted_objects(self, objs, request):
        deleted, counts, perms_needed, protected = super().get_deleted_objects(  # type: ignore[misc]
            objs, request
        )
        plurals = {
            str(model._meta.verbose_name): model._meta.verbose_name_plural
            for model in apps.get_models()
        }
        return deleted, counts, {plurals.get(str(name), name) for name in perms_needed}, protected
