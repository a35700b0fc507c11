"""The instructors' pages in the admin: GIFT import, item analysis, translation coverage.

`QuizAdmin.get_urls` routes them through `admin_site.admin_view` (staff only, never
cached, CSRF-protected); each view then checks the model permissions it needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django import forms
from django.contrib import messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods, require_safe

from .coverage import translation_coverage
from .exports import attempts_csv_response, gift_download
from .imports import GiftImportError, quiz_import_gift
from .item_analysis import DISCRIMINATION_THRESHOLD, item_analysis
from .models import Guide, Quiz

if TYPE_CHECKING:
    from .admin import QuizAdmin

MAX_UPLOAD_BYTES = 2 * 1024 * 1024


class GiftImportForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("GIFT file"),
        help_text=gettext_lazy("A Moodle GIFT text file, saved as UTF-8."),
    )
    quiz = forms.ModelChoiceField(
        Quiz.objects.order_by("title_en"),
        required=False,
        label=gettext_lazy("Add to quiz"),
        help_text=gettext_lazy(
            "Leave empty to create a new, unpublished quiz, titled after the file's "
            "$CATEGORY (or its name)."
        ),
    )
    guide = forms.ModelChoiceField(
        Guide.objects.order_by("title_en"),
        required=False,
        label=gettext_lazy("Guide of a new quiz"),
        help_text=gettext_lazy(
            "Leave empty to use a placeholder guide, and choose the real one before publishing."
        ),
    )

    def clean_file(self) -> str:
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(
                _("The file is larger than %(size)d MB.") % {"size": MAX_UPLOAD_BYTES // 2**20}
            )
        try:
            return upload.read().decode("utf-8-sig")
        except UnicodeDecodeError:
            raise forms.ValidationError(
                _("The file is not UTF-8 text: save it as UTF-8.")
            ) from None


def _context(request: HttpRequest, model_admin: QuizAdmin, title: str, **extra) -> dict:
    return {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "title": title,
        **extra,
    }


def _quiz_or_404(request: HttpRequest, model_admin: QuizAdmin, object_id: str) -> Quiz:
    quiz = model_admin.get_object(request, unquote(object_id))
    if quiz is None:
        raise Http404(_("No such quiz."))
    return quiz


def _require_attempts_permission(request: HttpRequest, model_admin: QuizAdmin, quiz: Quiz) -> None:
    if not (
        model_admin.has_view_permission(request, quiz)
        and model_admin.has_view_attempts_permission(request)
    ):
        raise PermissionDenied


@require_http_methods(["GET", "POST"])
def import_gift(request: HttpRequest, model_admin: QuizAdmin) -> HttpResponse:
    can_add = model_admin.has_add_permission(request) and request.user.has_perms(
        ["quizzes.add_question", "quizzes.add_choice"]
    )
    if not can_add:
        raise PermissionDenied
    is_post = request.method == "POST"
    form = GiftImportForm(request.POST, request.FILES) if is_post else GiftImportForm()
    problems, notes = [], []
    if is_post and form.is_valid():
        quiz = form.cleaned_data["quiz"]
        if quiz is not None and not model_admin.has_change_permission(request, quiz):
            raise PermissionDenied
        try:
            result = quiz_import_gift(
                text=form.cleaned_data["file"],
                filename=request.FILES["file"].name,
                quiz_slug=quiz.slug if quiz else None,
                guide=form.cleaned_data["guide"],
            )
        except GiftImportError as error:
            problems = error.problems
            if error.document is not None:
                notes = sorted(error.document.skipped + error.document.warnings, key=_line)
        else:
            _report_import(request, result)
            return HttpResponseRedirect(reverse("admin:quizzes_quiz_change", args=[result.quiz.pk]))
    return TemplateResponse(
        request,
        "admin/quizzes/import_gift.html",
        _context(
            request,
            model_admin,
            _("Import a GIFT file"),
            form=form,
            problems=problems,
            notes=notes,
            media=model_admin.media + form.media,
        ),
    )


def _line(problem) -> int:
    return problem.line


def _report_import(request: HttpRequest, result) -> None:
    count = len(result.questions)
    if result.created:
        message = ngettext(
            "Imported %(count)d question into the new quiz “%(quiz)s”. It is unpublished: "
            "review it, then publish it.",
            "Imported %(count)d questions into the new quiz “%(quiz)s”. It is unpublished: "
            "review it, then publish it.",
            count,
        )
    else:
        message = ngettext(
            "Added %(count)d question to the quiz “%(quiz)s”.",
            "Added %(count)d questions to the quiz “%(quiz)s”.",
            count,
        )
    messages.success(request, message % {"count": count, "quiz": result.quiz})
    if result.placeholder_guide:
        messages.warning(
            request, _("The quiz has a placeholder guide: choose its guide before publishing.")
        )
    for note in result.notes:
        messages.warning(request, str(note))


@require_safe
def item_analysis_view(request: HttpRequest, model_admin: QuizAdmin, object_id: str):
    quiz = _quiz_or_404(request, model_admin, object_id)
    _require_attempts_permission(request, model_admin, quiz)
    first_only = request.GET.get("attempts") != "all"
    analysis = item_analysis(quiz, first_attempts_only=first_only)
    return TemplateResponse(
        request,
        "admin/quizzes/item_analysis.html",
        _context(
            request,
            model_admin,
            _("Item analysis: %(quiz)s") % {"quiz": quiz},
            original=quiz,
            analysis=analysis,
            threshold=DISCRIMINATION_THRESHOLD,
        ),
    )


@require_safe
def translation_coverage_view(request: HttpRequest, model_admin: QuizAdmin) -> HttpResponse:
    if not model_admin.has_view_content_permission(request):
        raise PermissionDenied
    quizzes = Quiz.objects.all()
    only = request.GET.get("quiz", "")
    if only:
        quizzes = quizzes.filter(pk=_quiz_or_404(request, model_admin, only).pk)
    coverage = translation_coverage(quizzes)
    return TemplateResponse(
        request,
        "admin/quizzes/translation_coverage.html",
        _context(
            request,
            model_admin,
            _("Translation coverage"),
            coverage=coverage,
            filtered=bool(only),
            missing_total=sum(len(entry.missing) for entry in coverage),
        ),
    )


@require_safe
def export_gift_view(request: HttpRequest, model_admin: QuizAdmin, object_id: str):
    quiz = _quiz_or_404(request, model_admin, object_id)
    if not model_admin.has_view_content_permission(request):
        raise PermissionDenied
    return gift_download([quiz])


@require_safe
def attempts_csv_view(request: HttpRequest, model_admin: QuizAdmin, object_id: str):
    quiz = _quiz_or_404(request, model_admin, object_id)
    _require_attempts_permission(request, model_admin, quiz)
    return attempts_csv_response(
        Quiz.objects.filter(pk=quiz.pk), filename=f"attempts-{quiz.slug}.csv"
    )
