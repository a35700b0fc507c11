from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.forms.models import BaseInlineFormSet
from django.utils.translation import gettext_lazy as _
from modeltranslation.admin import TranslationAdmin, TranslationStackedInline

from .models import Answer, Attempt, Choice, Guide, Question, Quiz, validate_choice_set


class BilingualFieldsMixin:
    """Mark each translated field with its language and direction, so Arabic is typed RTL."""

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if field is not None:
            if db_field.name.endswith("_ar"):
                field.widget.attrs.update({"lang": "ar", "dir": "rtl"})
            elif db_field.name.endswith("_en"):
                field.widget.attrs.update({"lang": "en", "dir": "ltr"})
        return field


def _live_forms(formset):
    return [
        form
        for form in formset.forms
        if form.has_changed() or form.instance.pk
        if not (formset.can_delete and formset._should_delete_form(form))
        if hasattr(form, "cleaned_data")
    ]


class ChoiceInlineFormSet(BaseInlineFormSet):
    def get_unique_error_message(self, unique_check) -> str:
        return _("Two choices share a position; give each choice its own position.")

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        forms = _live_forms(self)
        validate_choice_set(
            [
                (form.cleaned_data.get("position"), form.cleaned_data.get("is_correct"))
                for form in forms
            ]
        )


class ChoiceInline(BilingualFieldsMixin, TranslationStackedInline):
    model = Choice
    formset = ChoiceInlineFormSet
    fields = [("position", "is_correct"), ("text_en", "text_ar")]
    extra = 0
    min_num = 2
    ordering = ["position"]


class QuestionInlineFormSet(BaseInlineFormSet):
    def get_unique_error_message(self, unique_check) -> str:
        return _("Two questions share a position; give each question its own position.")

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        if getattr(self.instance, "is_published", False):
            self._check_publishable(_live_forms(self))

    def _check_publishable(self, forms) -> None:
        if not forms:
            raise ValidationError(_("A published quiz needs at least one question."))
        problems = []
        for form in forms:
            question = form.instance
            choices = list(question.choices.all()) if question.pk else []
            try:
                validate_choice_set([(c.position, c.is_correct) for c in choices])
            except ValidationError as error:
                problems.append(
                    _("Question %(position)s: %(problem)s")
                    % {
                        "position": form.cleaned_data.get("position"),
                        "problem": " ".join(error.messages),
                    }
                )
        if problems:
            problems.insert(0, _("Unpublish the quiz, or complete these questions' choices first."))
            raise ValidationError(problems)


class QuestionInline(BilingualFieldsMixin, TranslationStackedInline):
    model = Question
    formset = QuestionInlineFormSet
    fields = ["position", ("prompt_en", "prompt_ar"), ("explanation_en", "explanation_ar")]
    extra = 0
    ordering = ["position"]
    show_change_link = True


@admin.register(Guide)
class GuideAdmin(BilingualFieldsMixin, TranslationAdmin):
    list_display = ["title", "url"]
    search_fields = ["title_en", "title_ar", "url"]
    prepopulated_fields = {"slug": ["title_en"]}
    fields = ["slug", ("title_en", "title_ar"), "url"]


@admin.register(Quiz)
class QuizAdmin(BilingualFieldsMixin, TranslationAdmin):
    list_display = ["title", "difficulty", "guide", "is_published", "question_count", "updated_at"]
    list_filter = ["difficulty", "is_published", "guide"]
    search_fields = ["title_en", "title_ar", "description_en", "description_ar", "slug"]
    prepopulated_fields = {"slug": ["title_en"]}
    list_select_related = ["guide"]
    fields = [
        ("title_en", "title_ar"),
        "slug",
        ("description_en", "description_ar"),
        ("difficulty", "guide"),
        "is_published",
    ]
    inlines = [QuestionInline]

    @admin.display(description=_("questions"))
    def question_count(self, quiz: Quiz) -> int:
        return quiz.questions.count()


@admin.register(Question)
class QuestionAdmin(BilingualFieldsMixin, TranslationAdmin):
    list_display = ["__str__", "prompt", "quiz", "position"]
    list_filter = ["quiz"]
    list_select_related = ["quiz"]
    search_fields = ["prompt_en", "prompt_ar", "quiz__title_en", "quiz__slug"]
    fields = ["quiz", "position", ("prompt_en", "prompt_ar"), ("explanation_en", "explanation_ar")]
    ordering = ["quiz", "position"]
    inlines = [ChoiceInline]


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
