"""The instructors' pages in the admin: import (GIFT, Moodle XML, QTI) and export, item
analysis, the attempts CSV, translation coverage, and the grades report with a learner's record
and an attempt's review, as views of the quiz admin (`InstructorToolsMixin`).

`get_urls` routes them through `admin_site.admin_view` (staff only, never cached,
CSRF-protected); each view then checks the model permissions it needs.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.decorators import method_decorator
from django.utils.html import format_html
from django.utils.translation import get_language_bidi, gettext_lazy, ngettext, pgettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from .. import history
from ..attempts.responses import RecordedAnswer
from ..attempts.state import attempt_state, parts_in_order
from ..content import quiz_content
from ..forms import AnswerForm
from ..grading import Unanswerable, grade_response
from ..models import PART_KINDS, Attempt, Guide, Quiz
from ..views.common import answer_data
from .coverage import translation_coverage
from .exchange.content import ExchangeError
from .exchange.safety import MAX_FILE_BYTES
from .exports import attempts_csv_response, csv_stream, exchange_download, gift_download
from .grades import (
    NOT_DRAWN,
    PER_PAGE,
    ReportFilters,
    grades_csv_rows,
    grades_report,
    learner_attempts,
)
from .imports import GIFT, file_format, quiz_import_file
from .item_analysis import DISCRIMINATION_THRESHOLD, item_analysis

# A GIFT file is text: 2 MB is far more than 1,000 questions. Moodle XML carries its images in
# the file and a QTI package beside its items: up to MAX_FILE_BYTES (20 MB).
MAX_UPLOAD_BYTES = 2 * 1024 * 1024


class QuizImportForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("File"),
        help_text=gettext_lazy(
            "A Moodle GIFT text file (UTF-8), a Moodle XML file, or a QTI package (a .zip, "
            "from Canvas, Blackboard or an item bank)."
        ),
    )
    quiz = forms.ModelChoiceField(
        Quiz.objects.order_by("title_en"),
        required=False,
        label=gettext_lazy("Add to quiz"),
        help_text=gettext_lazy(
            "Leave empty to create a new, unpublished quiz for each category of the file (GIFT's "
            "$CATEGORY, Moodle's categories) or QTI test, titled after it (or after the file's "
            "name)."
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

    def clean_file(self) -> bytes:
        upload = self.cleaned_data["file"]
        if upload.size > MAX_FILE_BYTES:
            raise forms.ValidationError(
                _("The file is larger than %(size)d MB.") % {"size": MAX_FILE_BYTES // 2**20}
            )
        data = upload.read()
        if file_format(data) == GIFT and len(data) > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(
                _("The file is larger than %(size)d MB.") % {"size": MAX_UPLOAD_BYTES // 2**20}
            )
        return data


class InstructorToolsMixin:
    """The quiz admin's own pages beyond editing: mixed into `QuizAdmin`.

    Each view checks the model permissions it needs before it looks anything up, so that a
    staff member without them learns nothing, not even which quiz ids exist.
    """

    # (route, view method, URL name's suffix). Before the default URLs, whose
    # "<object_id>/" would catch "import/".
    TOOL_URLS = [
        ("import/", "import_view", "import"),
        ("translations/", "translation_coverage_view", "translations"),
        ("learners/<int:user_id>/", "learner_record_view", "learner"),
        ("<path:object_id>/results/", "grades_view", "results"),
        ("<path:object_id>/results.csv", "grades_csv_view", "results_csv"),
        ("<path:object_id>/results/<int:attempt_id>/", "attempt_review_view", "attempt_review"),
        ("<path:object_id>/item-analysis/", "item_analysis_view", "item_analysis"),
        ("<path:object_id>/export.gift.txt", "export_gift_view", "export_gift"),
        ("<path:object_id>/export.moodle.xml", "export_moodle_view", "export_moodle"),
        ("<path:object_id>/export.qti.zip", "export_qti_view", "export_qti"),
        ("<path:object_id>/attempts.csv", "attempts_csv_view", "attempts_csv"),
        ("<path:object_id>/preview/<int:number>/", "preview_view", "preview"),
    ]

    def get_urls(self):
        view = self.admin_site.admin_view
        name = f"{self.opts.app_label}_{self.opts.model_name}"
        tools = [
            path(route, view(getattr(self, method)), name=f"{name}_{suffix}")
            for route, method, suffix in self.TOOL_URLS
        ]
        return [*tools, *super().get_urls()]

    def has_view_attempts_permission(self, request) -> bool:
        """Learners' attempts and answers: item analysis and the CSV export need both."""
        return request.user.has_perms(["quizzes.view_attempt", "quizzes.view_answer"])

    def get_list_display(self, request):
        columns = list(super().get_list_display(request))
        if self.has_view_attempts_permission(request):
            # First: the link instructors come to the list for (the title opens the quiz).
            columns.insert(0, "results_link")
        return columns

    @admin.display(description=gettext_lazy("results"))
    def results_link(self, quiz: Quiz) -> str:
        url = reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_results", args=[quiz.pk])
        return format_html('<a href="{}">{}</a>', url, _("Grades"))

    def has_regrade_permission(self, request) -> bool:
        """Regrading answers after a key was fixed (quizzes/instructors/regrading.py)."""
        return request.user.has_perms(
            [
                "quizzes.change_question",
                "quizzes.view_attempt",
                "quizzes.view_answer",
                "quizzes.add_regrade",
            ]
        )

    def has_view_content_permission(self, request) -> bool:
        """Questions and choices, the answer key with them: a GIFT export holds all of it."""
        return request.user.has_perms(
            ["quizzes.view_quiz", "quizzes.view_question", "quizzes.view_choice"]
        )

    def has_export_permission(self, request) -> bool:
        """Everything a GIFT export holds: the questions and their keys, the accepted numbers,
        accepted answers and pairs of the numerical, short-answer and matching questions
        among them."""
        return self.has_view_content_permission(request) and request.user.has_perms(
            [
                "quizzes.view_numericalanswer",
                "quizzes.view_acceptedtext",
                "quizzes.view_matchpair",
            ]
        )

    def has_exchange_export_permission(self, request) -> bool:
        """Everything a Moodle XML or QTI export holds: a GIFT export's, and the items of the
        ordering questions."""
        return self.has_export_permission(request) and request.user.has_perm(
            "quizzes.view_orderitem"
        )

    def tool_context(self, request: HttpRequest, title: str, **extra) -> dict:
        return {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": title,
            **extra,
        }

    def quiz_or_404(self, request: HttpRequest, object_id: str) -> Quiz:
        quiz = self.get_object(request, unquote(object_id))
        if quiz is None:
            raise Http404(_("No such quiz."))
        return quiz

    def require_attempts_permission(self, request: HttpRequest, quiz: Quiz | None = None) -> None:
        if not (
            self.has_view_permission(request, quiz) and self.has_view_attempts_permission(request)
        ):
            raise PermissionDenied

    def quiz_with_results(self, request: HttpRequest, object_id: str) -> Quiz:
        """The quiz whose learners' results a tool shows, or 403 (before anything is looked
        up: a refused user learns nothing of which quizzes exist) or 404."""
        self.require_attempts_permission(request)
        quiz = self.quiz_or_404(request, object_id)
        self.require_attempts_permission(request, quiz)
        return quiz

    @method_decorator(require_http_methods(["GET", "POST"]))
    def import_view(self, request: HttpRequest) -> HttpResponse:
        """One page for every format (`imports.quiz_import_file` tells them apart)."""
        can_add = self.has_add_permission(request) and request.user.has_perms(
            [
                "quizzes.add_question",
                "quizzes.add_choice",
                "quizzes.add_numericalanswer",
                "quizzes.add_acceptedtext",
                "quizzes.add_matchpair",
            ]
        )
        if not can_add:
            raise PermissionDenied
        # GIFT has no ordering questions: a file with some needs the permission to add items.
        may_order = request.user.has_perm("quizzes.add_orderitem")
        is_post = request.method == "POST"
        form = QuizImportForm(request.POST, request.FILES) if is_post else QuizImportForm()
        problems, notes = [], []
        if is_post and form.is_valid():
            quiz = form.cleaned_data["quiz"]
            if quiz is not None and not self.has_change_permission(request, quiz):
                raise PermissionDenied
            try:
                result = quiz_import_file(
                    data=form.cleaned_data["file"],
                    filename=request.FILES["file"].name,
                    quiz_slug=quiz.slug if quiz else None,
                    guide=form.cleaned_data["guide"],
                    without_ordering=not may_order,
                )
            except ExchangeError as error:
                problems, notes = error.problems, error.notes
            else:
                _report_import(request, result)
                if len(result.quizzes) == 1:
                    target = reverse("admin:quizzes_quiz_change", args=[result.quizzes[0].quiz.pk])
                else:
                    target = reverse("admin:quizzes_quiz_changelist")
                return HttpResponseRedirect(target)
        return TemplateResponse(
            request,
            "admin/quizzes/import_gift.html",
            self.tool_context(
                request,
                _("Import questions"),
                form=form,
                problems=problems,
                notes=notes,
                media=self.media + form.media,
            ),
        )

    @method_decorator(require_safe)
    def item_analysis_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        quiz = self.quiz_with_results(request, object_id)
        first_only = request.GET.get("attempts") != "all"
        analysis = item_analysis(quiz, first_attempts_only=first_only)
        return TemplateResponse(
            request,
            "admin/quizzes/item_analysis.html",
            self.tool_context(
                request,
                _("Item analysis: %(quiz)s") % {"quiz": quiz},
                original=quiz,
                analysis=analysis,
                can_regrade=self.has_regrade_permission(request),
                threshold=DISCRIMINATION_THRESHOLD,
                threshold_percent=round(100 * DISCRIMINATION_THRESHOLD),
            ),
        )

    @method_decorator(require_safe)
    def translation_coverage_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_view_content_permission(request):
            raise PermissionDenied
        quizzes = Quiz.objects.all()
        only = request.GET.get("quiz", "")
        if only:
            quizzes = quizzes.filter(pk=self.quiz_or_404(request, only).pk)
        coverage = translation_coverage(quizzes)
        return TemplateResponse(
            request,
            "admin/quizzes/translation_coverage.html",
            self.tool_context(
                request,
                _("Translation coverage"),
                coverage=coverage,
                filtered=bool(only),
                missing_total=sum(len(entry.missing) for entry in coverage),
            ),
        )

    @method_decorator(require_safe)
    def export_gift_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        if not self.has_export_permission(request):
            raise PermissionDenied
        quiz = self.quiz_or_404(request, object_id)
        return gift_download([quiz], request=request)

    @method_decorator(require_safe)
    def export_moodle_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        if not self.has_exchange_export_permission(request):
            raise PermissionDenied
        return exchange_download([self.quiz_or_404(request, object_id)], "moodle")

    @method_decorator(require_safe)
    def export_qti_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        if not self.has_exchange_export_permission(request):
            raise PermissionDenied
        return exchange_download([self.quiz_or_404(request, object_id)], "qti")

    @method_decorator(require_http_methods(["GET", "HEAD", "POST"]))
    def preview_view(self, request: HttpRequest, object_id: str, number: int) -> HttpResponse:
        """Question `number` of the quiz as a learner sees it, in the page's language; an
        answer sent gets its feedback. Nothing is recorded: no attempt, no answer, no card."""
        if not self.has_view_content_permission(request):
            raise PermissionDenied
        quiz = self.quiz_or_404(request, object_id)
        content = quiz_content(quiz)
        question = content.at(number)
        if question is None:
            raise Http404(_("No such question."))
        choices = question.choices
        # Matches or items in an order of the preview's own, the same at each showing.
        parts = (
            parts_in_order(question, None, seed=f"preview:{question.pk}")
            if question.kind in PART_KINDS
            else ()
        )
        context = {
            "quiz": quiz,
            "question": question,
            "choices": choices,
            "parts": parts,
            "number": number,
            "total": content.count,
            "next_url": (
                reverse("admin:quizzes_quiz_preview", args=[quiz.pk, number + 1])
                if number < content.count
                else ""
            ),
            "form": None,
            "feedback": None,
        }
        status = 200
        if request.method == "POST":
            form = AnswerForm(answer_data(request))
            response = form.response_for(question, shown=parts or None) if form.is_valid() else None
            if response is None:
                context["form"], status = form, 422
            else:
                try:
                    feedback = RecordedAnswer.graded(grade_response(question, response), question)
                except Unanswerable as refusal:
                    context["error"], status = str(refusal.message), 422
                else:
                    context["feedback"] = feedback
                    context["verdicts"] = feedback.choice_verdicts(choices)
        return TemplateResponse(request, "quizzes/preview.html", context, status=status)

    @method_decorator(require_safe)
    def attempts_csv_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        quiz = self.quiz_with_results(request, object_id)
        return attempts_csv_response(
            Quiz.objects.filter(pk=quiz.pk), filename=f"attempts-{quiz.slug}.csv"
        )

    @method_decorator(require_safe)
    def grades_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        quiz = self.quiz_with_results(request, object_id)
        filters = ReportFilters.from_query(request.GET)
        report = grades_report(
            quiz, filters, page_number=request.GET.get("p"), rtl=get_language_bidi()
        )
        return TemplateResponse(
            request,
            "admin/quizzes/grades.html",
            self.tool_context(
                request,
                _("Grades: %(quiz)s") % {"quiz": quiz},
                original=quiz,
                report=report,
                filters=filters,
                choices=_filter_choices(filters),
                not_answered=_("Not answered"),
                not_drawn=NOT_DRAWN,
                not_drawn_label=_("Not drawn"),
            ),
        )

    @method_decorator(require_safe)
    def grades_csv_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        quiz = self.quiz_with_results(request, object_id)
        filters = ReportFilters.from_query(request.GET)
        return csv_stream(
            grades_csv_rows(quiz, filters), filename=f"grades-{quiz.slug}-{filters.which}.csv"
        )

    @method_decorator(require_safe)
    def attempt_review_view(
        self, request: HttpRequest, object_id: str, attempt_id: int
    ) -> HttpResponse:
        """The attempt's review as its learner sees it on their result page; read-only."""
        quiz = self.quiz_with_results(request, object_id)
        attempt = get_object_or_404(
            Attempt.objects.select_related("user", "quiz__guide"), pk=attempt_id, quiz=quiz
        )
        state = attempt_state(attempt)
        return TemplateResponse(
            request,
            "admin/quizzes/attempt_review.html",
            self.tool_context(
                request,
                _("Attempt by %(learner)s") % {"learner": attempt.user.get_username()},
                original=quiz,
                attempt=attempt,
                quiz=quiz,
                review=state.review(),
                # The review speaks of the learner («إجابة المتعلّم»), not to the reader.
                of_learner=True,
            ),
        )

    @method_decorator(require_safe)
    def learner_record_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        """A learner's attempts on every quiz, as their own history lists them; read-only."""
        if not (self.has_view_permission(request) and self.has_view_attempts_permission(request)):
            raise PermissionDenied
        learner = get_object_or_404(get_user_model(), pk=user_id)
        page = Paginator(learner_attempts(learner), PER_PAGE).get_page(request.GET.get("p"))
        return TemplateResponse(
            request,
            "admin/quizzes/learner_record.html",
            self.tool_context(
                request,
                _("Record of %(learner)s") % {"learner": learner.get_username()},
                learner=learner,
                page=page,
                summaries=history.per_quiz(learner),
            ),
        )


def _filter_choices(filters: ReportFilters) -> dict:
    """The report's links: filters as (label, query string, whether it is the current one),
    and per sortable column the query that sorts by it and how it is sorted now."""
    which = {
        "all": _("All attempts"),
        "first": _("First attempt"),
        "best": _("Best attempt"),
        "last": _("Last attempt"),
    }
    states = {
        "all": _("Any state"),
        "finished": pgettext("attempts, as a filter of the grades", "Finished"),
        "in_progress": _("In progress"),
    }
    sort = {}
    for key in ("started", "score"):
        aria = {key: "ascending", f"-{key}": "descending"}.get(filters.order)
        # A first click sorts from the latest or the highest; a second one reverses.
        order = key if aria == "descending" else f"-{key}"
        sort[key] = {"query": filters.query(order=order), "aria": aria}
    return {
        "sort": sort,
        "which": [
            (label, filters.query(which=key), key == filters.which) for key, label in which.items()
        ],
        "state": [
            (label, filters.query(state=key), key == filters.state) for key, label in states.items()
        ],
    }


def _report_import(request: HttpRequest, result) -> None:
    for part in result.quizzes:
        count = len(part.questions)
        if part.created:
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
        messages.success(request, message % {"count": count, "quiz": part.quiz})
    if result.placeholder_guide:
        messages.warning(
            request, _("The quiz has a placeholder guide: choose its guide before publishing.")
        )
    for note in result.notes:
        messages.warning(request, str(note))
