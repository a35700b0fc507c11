"""The admin's registrations: which models instructors edit, and how they are laid out.

The forms and their rules are in `quizzes.instructors.forms`, the pages beyond editing in
`quizzes.instructors.tools`.
"""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _
from modeltranslation.admin import TranslationAdmin, TranslationStackedInline

from .instructors import exports
from .instructors.forms import (
    BilingualFieldsMixin,
    ChoiceInlineFormSet,
    QuestionInlineFormSet,
    QuizForm,
    QuizOverrideForm,
)
from .instructors.preview import QuestionPreviewMixin
from .instructors.reordering import InlineRowForm
from .instructors.tools import InstructorToolsMixin
from .instructors.versioning import MovesContentVersionMixin
from .models import Answer, Attempt, Choice, Guide, Question, Quiz, QuizOverride


class ChoiceInline(BilingualFieldsMixin, TranslationStackedInline):
    model = Choice
    form = InlineRowForm
    formset = ChoiceInlineFormSet
    fields = [("position", "is_correct"), ("text_en", "text_ar"), ("feedback_en", "feedback_ar")]
    extra = 0
    min_num = 2
    ordering = ["position"]


class QuestionInline(BilingualFieldsMixin, TranslationStackedInline):
    model = Question
    form = InlineRowForm
    formset = QuestionInlineFormSet
    fields = ["position", ("prompt_en", "prompt_ar"), ("explanation_en", "explanation_ar")]
    extra = 0
    ordering = ["position"]
    show_change_link = True


class QuizOverrideInline(admin.TabularInline):
    """Per-learner extra time and attempts, from that learner's next start."""

    model = QuizOverride
    form = QuizOverrideForm
    fields = ["username", "extra_time", "extra_attempts"]
    extra = 0
    verbose_name = _("learner override")
    verbose_name_plural = _("learner overrides (extra time, extra attempts)")


@admin.register(Guide)
class GuideAdmin(MovesContentVersionMixin, BilingualFieldsMixin, TranslationAdmin):
    list_display = ["title", "url"]
    search_fields = ["title_en", "title_ar", "url"]
    prepopulated_fields = {"slug": ["title_en"]}
    fields = ["slug", ("title_en", "title_ar"), "url"]


@admin.register(Quiz)
class QuizAdmin(
    InstructorToolsMixin, MovesContentVersionMixin, BilingualFieldsMixin, TranslationAdmin
):
    form = QuizForm
    list_display = [
        "title",
        "difficulty",
        "guide",
        "is_published",
        "feedback",
        "question_count",
        "updated_at",
    ]
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
                    ("difficulty", "guide"),
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
                    "feedback",
                    ("time_limit", "max_attempts"),
                    ("opens_at", "closes_at"),
                    "shuffle_choices",
                ],
            },
        ),
    ]
    inlines = [QuestionInline, QuizOverrideInline]
    # Instructor tools (quizzes.instructors.tools): links on the list and on each quiz's page.
    change_list_template = "admin/quizzes/quiz/change_list.html"
    change_form_template = "admin/quizzes/quiz/change_form.html"
    actions = ["export_gift", "export_attempts_csv"]

    @admin.display(description=_("questions"))
    def question_count(self, quiz: Quiz) -> int:
        return quiz.questions.count()

    @admin.action(description=_("Export selected quizzes as GIFT"), permissions=["view_content"])
    def export_gift(self, request, queryset):
        return exports.gift_download(queryset.order_by("slug"))

    @admin.action(
        description=_("Download attempts and answers of selected quizzes (CSV)"),
        permissions=["view_attempts"],
    )
    def export_attempts_csv(self, request, queryset):
        return exports.attempts_csv_response(queryset)


@admin.register(Question)
class QuestionAdmin(
    QuestionPreviewMixin, MovesContentVersionMixin, BilingualFieldsMixin, TranslationAdmin
):
    list_display = ["__str__", "prompt", "quiz", "position"]
    list_filter = ["quiz"]
    list_select_related = ["quiz"]
    search_fields = ["prompt_en", "prompt_ar", "quiz__title_en", "quiz__slug"]
    fields = ["quiz", "position", ("prompt_en", "prompt_ar"), ("explanation_en", "explanation_ar")]
    ordering = ["quiz", "position"]
    inlines = [ChoiceInline]

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is not None and "quiz" in form.base_fields:
            # A question stays in its quiz: moved, it would take learners' answers and scores
            # with it into another quiz. Disabled rather than read-only, so that the form still
            # checks the position against the quiz's other questions.
            form.base_fields["quiz"].disabled = True
        return form


class AnswerInline(admin.TabularInline):
    model = Answer
    fields = ["question", "choice", "is_correct", "answered_at"]
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
