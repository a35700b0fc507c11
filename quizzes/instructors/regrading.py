"""Regrading in the admin, as views of the quiz admin (`RegradeToolsMixin`): the preview of a
regrade (the whole quiz, or one question), its confirmation (queued for the worker, then its
progress), and "Accept this answer" from the item analysis (a typed answer or a number made
an accepted one, then the preview of that question's regrade).

Who may: staff who may change questions, view attempts and answers, and add a regrade
(`InstructorToolsMixin.has_regrade_permission`); instructors have all four through their
group (migration 0026).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Max
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from ..attempts.regrade import regrade_preview
from ..content import content_changed
from ..grading import NumberError, parse_number
from ..models import (
    AcceptedText,
    NumericalAnswer,
    Question,
    Quiz,
    Regrade,
    RegradedAnswer,
    RegradedAttempt,
)
from ..regrading import regrade_queue
from .tools import InstructorToolsMixin

_ARABIC = re.compile("[\u0600-\u06ff]")
# How many changed attempts the preview lists on its page (the counts are of all of them).
PREVIEW_ROWS = 500


class AcceptForm(forms.Form):
    """An answer made an accepted one, from the item analysis: a short answer's text or a
    number, with its weight (a share of the mark, 100 % by default)."""

    question = forms.IntegerField(min_value=1)
    text = forms.CharField(required=False, max_length=500, strip=False)
    number = forms.CharField(required=False, max_length=40)
    weight = forms.TypedChoiceField(
        label=gettext_lazy("Weight"),
        coerce=Decimal,
        choices=[("1", "100 %"), ("0.5", "50 %"), ("0.3333333", "33 %"), ("0.25", "25 %")],
        initial="1",
    )

    def clean_number(self) -> Decimal | None:
        typed = self.cleaned_data.get("number") or ""
        if not typed.strip():
            return None
        try:
            return parse_number(typed)
        except NumberError as error:
            raise forms.ValidationError(str(error.message)) from None


class RegradeToolsMixin(InstructorToolsMixin):
    """The quiz admin's regrade pages, beside its other tools (routed by
    `InstructorToolsMixin.get_urls`)."""

    TOOL_URLS = [
        ("<path:object_id>/regrade/", "regrade_view", "regrade"),
        ("<path:object_id>/regrade/accept/", "accept_answer_view", "accept_answer"),
        ("regrades/<int:regrade_id>/", "regrade_progress_view", "regrade_progress"),
        *InstructorToolsMixin.TOOL_URLS,
    ]

    def quiz_to_regrade(self, request: HttpRequest, object_id: str) -> Quiz:
        """The quiz, or 403 before anything is looked up for those who may not regrade."""
        if not self.has_regrade_permission(request):
            raise PermissionDenied
        quiz = self.quiz_or_404(request, object_id)
        if not self.has_change_permission(request, quiz):
            raise PermissionDenied
        return quiz

    def _question_of(self, request: HttpRequest, quiz: Quiz) -> Question | None:
        raw = request.GET.get("question") or request.POST.get("question") or ""
        if not raw:
            return None
        if not raw.isdigit() or len(raw) > 18:
            raise Http404(_("No such question in this quiz."))
        return get_object_or_404(Question, pk=int(raw), quiz=quiz)

    @method_decorator(require_http_methods(["GET", "HEAD", "POST"]))
    def regrade_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """GET: the preview (nothing changes). POST: its confirmation, applied by the worker
        if the answers are still as previewed (the form carries the preview's digest)."""
        quiz = self.quiz_to_regrade(request, object_id)
        question = self._question_of(request, quiz)
        preview = regrade_preview(quiz=quiz, question=question)
        status = 200
        if request.method == "POST":
            if request.POST.get("digest") == preview.digest and preview.attempts:
                with transaction.atomic():
                    regrade = regrade_queue(preview=preview, by=request.user)
                return HttpResponseRedirect(
                    reverse("admin:quizzes_quiz_regrade_progress", args=[regrade.pk])
                )
            messages.warning(
                request,
                _(
                    "The answers changed since the preview you confirmed: nothing was "
                    "regraded. Check this preview, then confirm again."
                ),
            )
            status = 409
        attempts = preview.attempts[:PREVIEW_ROWS]
        positions = {c.question_id: c.position for a in attempts for c in a.answers}
        return TemplateResponse(
            request,
            "admin/quizzes/regrade_preview.html",
            self.tool_context(
                request,
                _("Regrade answers: %(quiz)s") % {"quiz": quiz},
                original=quiz,
                question=question,
                preview=preview,
                attempts=attempts,
                more=len(preview.attempts) - len(attempts),
                positions=positions,
            ),
            status=status,
        )

    @method_decorator(require_safe)
    def regrade_progress_view(self, request: HttpRequest, regrade_id: int) -> HttpResponse:
        """A queued regrade's progress (the page reloads itself until it is done)."""
        if not self.has_regrade_permission(request):
            raise PermissionDenied
        regrade = get_object_or_404(
            Regrade.objects.select_related("quiz", "question", "by"), pk=regrade_id
        )
        running = regrade.status in {Regrade.Status.QUEUED, Regrade.Status.RUNNING}
        return TemplateResponse(
            request,
            "admin/quizzes/regrade_progress.html",
            self.tool_context(
                request,
                _("Regrade of %(quiz)s") % {"quiz": regrade.quiz},
                original=regrade.quiz,
                regrade=regrade,
                running=running,
            ),
        )

    @method_decorator(require_POST)
    def accept_answer_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """Make a common wrong answer (a short answer's text, or a number) an accepted one
        of its question, then open that question's regrade preview."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        quiz = self.quiz_to_regrade(request, object_id)
        needed = ["quizzes.add_acceptedtext", "quizzes.add_numericalanswer"]
        if not request.user.has_perms(needed):
            raise PermissionDenied
        form = AcceptForm(request.POST)
        if not form.is_valid():
            return HttpResponse(_("This answer cannot be accepted."), status=422)
        question = get_object_or_404(Question, pk=form.cleaned_data["question"], quiz=quiz)
        weight = form.cleaned_data["weight"]
        text, number = form.cleaned_data["text"].strip(), form.cleaned_data["number"]
        with transaction.atomic():
            if question.kind == Question.Kind.SHORT and text:
                position = question.accepted_texts.aggregate(last=Max("position"))["last"] or 0
                # In the language it is written in (either one is matched).
                language = "ar" if _ARABIC.search(text) else "en"
                AcceptedText.objects.create(
                    question=question,
                    position=position + 1,
                    fraction=weight,
                    **{f"text_{language}": text},
                )
            elif question.kind == Question.Kind.NUMERICAL and number is not None:
                position = question.numerical_answers.aggregate(last=Max("position"))["last"] or 0
                NumericalAnswer.objects.create(
                    question=question,
                    position=position + 1,
                    value=number,
                    tolerance=Decimal(0),
                    fraction=weight,
                )
            else:
                return HttpResponse(_("This answer cannot be accepted."), status=422)
            content_changed(quiz=quiz)
        messages.success(
            request,
            _("“%(answer)s” is accepted now. Here is what a regrade of the question changes.")
            % {"answer": text or _number_text(number)},
        )
        url = reverse("admin:quizzes_quiz_regrade", args=[quiz.pk])
        return HttpResponseRedirect(f"{url}?question={question.pk}")


def _number_text(number: Decimal | None) -> str:
    try:
        return f"{(number or Decimal(0)).normalize():f}"
    except InvalidOperation:  # pragma: no cover - parse_number gives finite decimals
        return str(number)


# --- The trail, read-only in the admin ------------------------------------------------------


class ReadOnlyAdmin(admin.ModelAdmin):
    """A record nobody edits: staff with the view permission read it."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class RegradedAttemptInline(admin.TabularInline):
    model = RegradedAttempt
    fields = ["attempt", "user", "old_score", "new_score", "total"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Regrade)
class RegradeAdmin(ReadOnlyAdmin):
    list_display = ["requested_at", "quiz", "question", "by", "status", "answers_changed"]
    list_filter = ["status", "quiz"]
    list_select_related = ["quiz", "question", "by"]
    fields = [
        "quiz",
        "question",
        "by",
        ("requested_at", "finished_at"),
        "status",
        ("planned_answers", "done_answers"),
        ("answers_changed", "attempts_changed"),
        "changed_answers",
    ]
    readonly_fields = fields[:3] + [
        "requested_at",
        "finished_at",
        "status",
        "planned_answers",
        "done_answers",
        "answers_changed",
        "attempts_changed",
        "changed_answers",
    ]
    inlines = [RegradedAttemptInline]

    @admin.display(description=gettext_lazy("answers changed, one by one"))
    def changed_answers(self, regrade: Regrade) -> str:
        url = reverse("admin:quizzes_regradedanswer_changelist")
        return format_html(
            '<a href="{}?regrade__id__exact={}">{}</a>', url, regrade.pk, _("Regraded answers")
        )


@admin.register(RegradedAnswer)
class RegradedAnswerAdmin(ReadOnlyAdmin):
    list_display = ["regrade_at", "user", "attempt", "question", "old_fraction", "new_fraction"]
    list_filter = ["regrade__quiz"]
    list_select_related = ["regrade", "user", "question__quiz"]
    search_fields = ["user__username"]
    fields = [
        "regrade",
        "user",
        "attempt",
        "question",
        ("old_fraction", "new_fraction"),
        ("old_key", "new_key"),
        ("old_correct_choice_id", "new_correct_choice_id"),
    ]
    readonly_fields = [
        "regrade",
        "user",
        "attempt",
        "question",
        "old_fraction",
        "new_fraction",
        "old_key",
        "new_key",
        "old_correct_choice_id",
        "new_correct_choice_id",
    ]

    @admin.display(description=gettext_lazy("regraded"), ordering="regrade__requested_at")
    def regrade_at(self, row: RegradedAnswer):
        return row.regrade.requested_at
