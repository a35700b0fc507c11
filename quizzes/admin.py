"""The admin's registrations: which models instructors edit, and how they are laid out.

The forms and their rules are in `quizzes.instructors.forms`, the pages beyond editing in
`quizzes.instructors.tools`.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Count, OuterRef, Subquery
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext, pgettext_lazy
from modeltranslation.admin import TranslationAdmin, TranslationStackedInline

from .instructors import exports
from .instructors.deletion import DeletionWordsMixin, KeepsLastQuestionOfPublishedQuizMixin
from .instructors.duplication import quiz_duplicate
from .instructors.forms import (
    BilingualFieldsMixin,
    QuestionForm,
    QuestionInlineForm,
    QuestionInlineFormSet,
    QuizForm,
    QuizOverrideForm,
    QuizOverrideInlineFormSet,
)
from .instructors.images import (
    AsksForImagesAgainMixin,
    RemovesImageFilesMixin,
)
from .instructors.parts import section_prefetches
from .instructors.preview import QuestionPreviewMixin
from .instructors.regrading import RegradeToolsMixin
from .instructors.sections_admin import QuestionPartsPageMixin, QuestionSectionsMixin
from .instructors.versioning import MovesContentVersionMixin
from .models import (
    Answer,
    Attempt,
    Guide,
    Question,
    QuestionReport,
    Quiz,
    QuizOverride,
)
from .reports import reports_resolve


def open_reports_url(**filters) -> str:
    """The report list, open reports only, filtered (`question__quiz__id__exact=…`)."""
    query = "".join(f"&{key}={value}" for key, value in filters.items())
    return f"{reverse('admin:quizzes_questionreport_changelist')}?status=open{query}"


class QuestionInline(QuestionSectionsMixin, BilingualFieldsMixin, TranslationStackedInline):
    """A quiz's questions on its own page, each with the parts its kind uses (its choices,
    accepted numbers or answers, pairs or items): the whole quiz is one page and one save.
    Questions and parts move by dragging their heading, or by typing positions (the
    keyboard's way)."""

    model = Question
    form = QuestionInlineForm
    formset = QuestionInlineFormSet
    # Django's stacked inline with each question's sections (pinned by
    # tests/test_library_templates.py).
    template = "admin/quizzes/quiz/questions.html"
    fields = [
        ("position", "kind"),
        ("prompt_en", "prompt_ar"),
        "image",
        ("image_alt_en", "image_alt_ar"),
        ("explanation_en", "explanation_ar"),
        "explanation_image",
        ("explanation_image_alt_en", "explanation_image_alt_ar"),
    ]
    extra = 0
    ordering = ["position"]
    show_change_link = True

    def get_queryset(self, request):
        # Each question's sections read once for the whole page, not once per question.
        queryset = super().get_queryset(request).select_related("quiz")
        return queryset.prefetch_related(*section_prefetches())

    def get_formset(self, request, obj=None, **kwargs):
        kwargs["form"] = self.question_form(request, kwargs.get("form", self.form))
        return super().get_formset(request, obj, **kwargs)


class GuideQuizInline(admin.TabularInline):
    """The guide's quizzes in the order learners see them on the guide's page; only their
    position is edited here."""

    model = Quiz
    fields = ["guide_position", "title", "difficulty", "is_published"]
    readonly_fields = ["title", "difficulty", "is_published"]
    ordering = ["guide_position", "title_en"]
    extra = 0
    can_delete = False
    show_change_link = True
    verbose_name_plural = _("quizzes, in the guide's order")

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class QuizOverrideInline(admin.StackedInline):
    """Per-learner extra time and attempts, from that learner's next start."""

    model = QuizOverride
    form = QuizOverrideForm
    formset = QuizOverrideInlineFormSet
    fields = ["username", "extra_time", "extra_attempts"]
    extra = 0
    verbose_name = _("learner override")
    verbose_name_plural = _("learner overrides (extra time, extra attempts)")


@admin.register(Guide)
class GuideAdmin(
    DeletionWordsMixin, MovesContentVersionMixin, BilingualFieldsMixin, TranslationAdmin
):
    delete_selected_description = _("Delete selected guides")
    list_display = ["title", "url"]
    search_fields = ["title_en", "title_ar", "url"]
    prepopulated_fields = {"slug": ["title_en"]}
    fields = ["slug", ("title_en", "title_ar"), "url"]
    inlines = [GuideQuizInline]


@admin.register(Quiz)
class QuizAdmin(
    DeletionWordsMixin,
    RegradeToolsMixin,
    AsksForImagesAgainMixin,
    RemovesImageFilesMixin,
    QuestionPartsPageMixin,
    MovesContentVersionMixin,
    BilingualFieldsMixin,
    TranslationAdmin,
):
    form = QuizForm
    delete_selected_description = _("Delete selected quizzes")
    # Fits a 1280-pixel screen beside the admin's sidebars: the guide with the quiz's place in
    # it in one column, difficulty and mode left to the filters, the Grades link first for
    # those who may see grades (quizzes.instructors.tools); the title opens the quiz.
    list_display = [
        "title",
        "in_guide",
        "is_published",
        "question_count",
        "open_reports",
    ]
    list_display_links = ["title"]
    list_filter = ["difficulty", "is_published", "feedback", "guide"]
    search_fields = ["title_en", "title_ar", "description_en", "description_ar", "slug"]
    prepopulated_fields = {"slug": ["title_en"]}
    list_select_related = ["guide"]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    ("title_en", "title_ar"),
                    "slug",
                    ("description_en", "description_ar"),
                    ("difficulty", "guide", "guide_position"),
                    "is_published",
                ]
            },
        ),
        (
            _("Settings"),
            {
                "description": _(
                    "How learners take this quiz. A change applies from each learner's next "
                    "start: attempts in progress keep the mode, deadline and order of choices "
                    "they started with."
                ),
                "fields": [
                    ("feedback", "confidence"),
                    ("time_limit", "max_attempts"),
                    ("opens_at", "closes_at"),
                    ("questions_per_attempt", "shuffle_questions"),
                    "shuffle_choices",
                ],
            },
        ),
    ]
    inlines = [QuestionInline, QuizOverrideInline]
    # Instructor tools (quizzes.instructors.tools): links on the list and on each quiz's page.
    change_list_template = "admin/quizzes/quiz/change_list.html"
    change_form_template = "admin/quizzes/quiz/change_form.html"
    actions = ["export_gift", "export_moodle", "export_qti", "export_attempts_csv", "duplicate"]

    def render_change_form(self, request, context, *args, **kwargs):
        # What keeps the questions from being saved as a whole (publishing a quiz whose
        # questions lack explanations, two questions at one place): said at the top of the
        # page too, not only above the questions far down it.
        context["questions_problems"] = [
            problem
            for inline in context.get("inline_admin_formsets") or []
            if isinstance(inline.opts, QuestionInline) and inline.formset.is_bound
            for problem in inline.formset.non_form_errors()
        ]
        return super().render_change_form(request, context, *args, **kwargs)

    @admin.display(description=pgettext_lazy("a quiz's field", "guide"), ordering="guide__title")
    def in_guide(self, quiz: Quiz):
        # "Guide title · 3": the quiz's place among the guide's quizzes, when it was given one
        # (0 is none: the guide lists it by title).
        if not quiz.guide_position:
            return str(quiz.guide)
        return format_html("{} · {}", quiz.guide, quiz.guide_position)

    @admin.display(description=_("questions"), ordering="question_count")
    def question_count(self, quiz: Quiz) -> int:
        return quiz.question_count or 0

    def get_queryset(self, request):
        # Counts as subqueries of the list's one statement, not a statement per row.
        open_reports = (
            QuestionReport.objects.open()
            .filter(question__quiz=OuterRef("pk"))
            .order_by()
            .values("question__quiz")
            .annotate(count=Count("pk"))
            .values("count")
        )
        return (
            super()
            .get_queryset(request)
            .with_question_count()
            .annotate(open_report_count=Subquery(open_reports))
        )

    @admin.display(description=_("open reports"), ordering="open_report_count")
    def open_reports(self, quiz: Quiz):
        count = quiz.open_report_count or 0
        if not count:
            return 0
        return format_html(
            '<a href="{}">{}</a>', open_reports_url(question__quiz__id__exact=quiz.pk), count
        )

    @admin.action(description=_("Export selected quizzes as GIFT"), permissions=["view_content"])
    def export_gift(self, request, queryset):
        return exports.gift_download(queryset.order_by("slug"), request=request)

    @admin.action(
        description=_("Export selected quizzes as Moodle XML"), permissions=["exchange_export"]
    )
    def export_moodle(self, request, queryset):
        return exports.exchange_download(queryset.order_by("slug"), "moodle")

    @admin.action(
        description=_("Export selected quizzes as a QTI package"), permissions=["exchange_export"]
    )
    def export_qti(self, request, queryset):
        return exports.exchange_download(queryset.order_by("slug"), "qti")

    def has_duplicate_permission(self, request) -> bool:
        """A copy adds a quiz with its questions and every part of them."""
        return self.has_add_permission(request) and request.user.has_perms(
            [
                "quizzes.add_question",
                "quizzes.add_choice",
                "quizzes.add_numericalanswer",
                "quizzes.add_acceptedtext",
                "quizzes.add_matchpair",
                "quizzes.add_orderitem",
            ]
        )

    @admin.action(
        description=_("Duplicate selected quizzes (unpublished copies)"),
        permissions=["duplicate"],
    )
    def duplicate(self, request, queryset):
        copies = [quiz_duplicate(quiz=quiz) for quiz in queryset.select_related("guide")]
        for copy in copies:
            link = format_html(
                '<a href="{}">{}</a>', reverse("admin:quizzes_quiz_change", args=[copy.pk]), copy
            )
            # The sentence is ours and the link is escaped by format_html.
            message = _("Copied as %(link)s, unpublished: check it, then publish it.")
            self.message_user(request, mark_safe(message % {"link": link}), messages.SUCCESS)

    @admin.action(
        description=_("Download attempts and answers of selected quizzes (CSV)"),
        permissions=["view_attempts"],
    )
    def export_attempts_csv(self, request, queryset):
        return exports.attempts_csv_response(queryset)


@admin.register(Question)
class QuestionAdmin(
    KeepsLastQuestionOfPublishedQuizMixin,
    DeletionWordsMixin,
    QuestionPreviewMixin,
    AsksForImagesAgainMixin,
    RemovesImageFilesMixin,
    QuestionPartsPageMixin,
    QuestionSectionsMixin,
    MovesContentVersionMixin,
    BilingualFieldsMixin,
    TranslationAdmin,
):
    form = QuestionForm
    delete_selected_description = _("Delete selected questions")
    # A question's name holds its number and its prompt (Question.__str__).
    list_display = ["__str__", "kind", "quiz", "position"]
    list_filter = ["quiz", "kind"]
    list_select_related = ["quiz"]
    search_fields = ["prompt_en", "prompt_ar", "quiz__title_en", "quiz__slug"]
    fields = [
        "quiz",
        ("position", "kind"),
        ("prompt_en", "prompt_ar"),
        "image",
        ("image_alt_en", "image_alt_ar"),
        ("explanation_en", "explanation_ar"),
        "explanation_image",
        ("explanation_image_alt_en", "explanation_image_alt_ar"),
    ]
    ordering = ["quiz", "position"]

    def save_related(self, request, form, formsets, change) -> None:
        form.save_parts()  # before the content version moves (MovesContentVersionMixin)
        super().save_related(request, form, formsets, change)

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs["form"] = self.question_form(request, kwargs.get("form", self.form))
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is not None and "quiz" in form.base_fields:
            # A question stays in its quiz: moved, it would take learners' answers and scores
            # with it into another quiz. Disabled rather than read-only, so that the form still
            # checks the position against the quiz's other questions.
            form.base_fields["quiz"].disabled = True
        return form


class AnswerInline(admin.TabularInline):
    model = Answer
    fields = ["question", "choice", "choice_ids", "number", "fraction", "answered_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    """Attempts are the learners' record: instructors may look, nobody edits them here."""

    list_display = ["user", "quiz", "started_at", "finished_at", "score", "total"]
    list_filter = ["quiz", ("finished_at", admin.EmptyFieldListFilter)]
    list_select_related = ["user", "quiz"]
    search_fields = ["user__username", "quiz__slug"]
    date_hierarchy = "started_at"
    readonly_fields = ["user", "quiz", "started_at", "finished_at", "score", "total"]
    inlines = [AnswerInline]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class ReportStatusFilter(admin.SimpleListFilter):
    title = _("status")
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [("open", _("Open")), ("resolved", _("Resolved"))]

    def queryset(self, request, queryset):
        if self.value() == "open":
            return queryset.filter(resolved_at__isnull=True)
        if self.value() == "resolved":
            return queryset.filter(resolved_at__isnull=False)
        return queryset


@admin.register(QuestionReport)
class QuestionReportAdmin(admin.ModelAdmin):
    """Learners' reports of problems with questions; instructors read them and mark them
    resolved. Everything a learner wrote is shown escaped, as the admin does by default."""

    list_display = ["question_link", "quiz", "reason", "details", "user", "created_at", "is_open"]
    # The first column links to the question itself: the report opens from its reason.
    list_display_links = ["reason"]
    list_filter = [
        ReportStatusFilter,
        "reason",
        "question__quiz",
    ]
    list_select_related = ["question__quiz", "user"]
    search_fields = ["text", "user__username", "question__quiz__slug"]
    date_hierarchy = "created_at"
    fields = [
        "question_link",
        "user",
        "reason",
        "text",
        "created_at",
        "resolved_at",
        "resolved_by",
    ]
    readonly_fields = fields
    actions = ["mark_resolved"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        # A report is resolved, not deleted: it goes only with its learner's account.
        return False

    @admin.display(description=_("question"), ordering="question__position")
    def question_link(self, report: QuestionReport):
        url = reverse("admin:quizzes_question_change", args=[report.question_id])
        return format_html(
            '<a href="{}">{} #{}</a>', url, report.question.quiz, report.question.position
        )

    @admin.display(description=_("quiz"), ordering="question__quiz__title")
    def quiz(self, report: QuestionReport):
        return report.question.quiz

    @admin.display(description=_("details"))
    def details(self, report: QuestionReport) -> str:
        return report.text[:140] + ("…" if len(report.text) > 140 else "")

    @admin.display(description=_("open"), boolean=True, ordering="resolved_at")
    def is_open(self, report: QuestionReport) -> bool:
        return report.is_open

    @admin.action(description=_("Mark selected reports resolved"), permissions=["change"])
    def mark_resolved(self, request, queryset):
        count = reports_resolve(reports=queryset, by=request.user)
        messages.success(
            request,
            ngettext(
                "%(count)d report marked resolved.", "%(count)d reports marked resolved.", count
            )
            % {"count": count},
        )
