from __future__ import annotations

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.forms.models import BaseInlineFormSet
from django.urls import path
from django.utils.translation import gettext_lazy as _
from modeltranslation.admin import TranslationAdmin, TranslationStackedInline

from . import admin_views, exports
from .imports import PLACEHOLDER_GUIDE_SLUG
from .models import Answer, Attempt, Choice, Guide, Question, Quiz, validate_choice_set

# Rows for the translated text areas: enough to read a prompt or an explanation whole.
TEXTAREA_ROWS = {"prompt": 3, "explanation": 5, "description": 3, "feedback": 2}


class BilingualFieldsMixin:
    """Pair each translated field's languages side by side, Arabic typed right to left."""

    class Media:
        css = {"all": ["admin/daleel-admin.css"]}

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if field is not None:
            base, _sep, language = db_field.name.rpartition("_")
            if language == "ar":
                field.widget.attrs.update({"lang": "ar", "dir": "rtl"})
            elif language == "en":
                field.widget.attrs.update({"lang": "en", "dir": "ltr"})
            if language in {"ar", "en"} and base in TEXTAREA_ROWS:
                field.widget.attrs["rows"] = TEXTAREA_ROWS[base]
        return field


def _live_forms(formset):
    return [
        form
        for form in formset.forms
        if form.has_changed() or form.instance.pk
        if not (formset.can_delete and formset._should_delete_form(form))
        if hasattr(form, "cleaned_data")
    ]


def _has_field(model, name: str) -> bool:
    return any(field.name == name for field in model._meta.fields)


# The largest value a PositiveSmallIntegerField holds on every database Django supports.
POSITION_MAX = 32767


class InlineRowForm(forms.ModelForm):
    """A row of a set (a quiz's questions, a question's choices) edited as a whole.

    Django checks each row's unique constraints against the rows as they are stored, before
    this save, which would refuse two rows trading places (or the correct mark moving from
    one choice to another). The fields of `checked_across_rows` are checked by the formset
    across the rows as they will be instead, and `ReorderableInlineFormSet` saves the rows
    in an order the database accepts.
    """

    checked_across_rows = ("position", "is_correct")

    def _exclusions(self) -> set[str]:
        exclude = {
            field.name for field in self.instance._meta.fields if field.name not in self.fields
        }
        return exclude | set(self.errors) | set(self.checked_across_rows)

    def validate_unique(self) -> None:
        try:
            self.instance.validate_unique(exclude=self._exclusions())
        except ValidationError as error:
            self.add_error(None, error)

    def validate_constraints(self) -> None:
        try:
            self.instance.validate_constraints(exclude=self._exclusions())
        except ValidationError as error:
            self.add_error(None, error)


class ReorderableInlineFormSet(BaseInlineFormSet):
    """Rows may trade positions (and choices the correct mark) in one save.

    `clean` refuses a position (or a correct mark) that another instructor took since the
    page was opened: the page does not show that row, so nothing else would notice it before
    the database refused the save. `save_existing_objects` first parks every stored row that
    moves on a free position, so that no statement of the save meets a unique constraint
    half-way. The admin saves in a transaction: a refused save leaves every row as it was.
    """

    # What to tell an instructor whose page missed a row stored since it was opened.
    stale_message = ""

    def _rows_stored_unseen(self):
        """Rows of this parent saved since the page was opened: not among its forms."""
        if self.instance.pk is None:
            return self.model._default_manager.none()
        seen = [form.instance.pk for form in self.initial_forms if form.instance.pk]
        return self.model._default_manager.filter(**{self.fk.name: self.instance}).exclude(
            pk__in=seen
        )

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        unseen = self._rows_stored_unseen()
        forms = _live_forms(self)
        taken = set(unseen.values_list("position", flat=True))
        stale = any(form.cleaned_data.get("position") in taken for form in forms)
        if _has_field(self.model, "is_correct") and any(
            form.cleaned_data.get("is_correct") for form in forms
        ):
            stale = stale or unseen.filter(is_correct=True).exists()
        if stale:
            raise ValidationError(self.stale_message)

    def save_existing_objects(self, commit: bool = True):
        if commit:
            self._park_moving_rows()
        return super().save_existing_objects(commit)

    def _park_moving_rows(self) -> None:
        moving = [
            form.instance.pk
            for form in self.initial_forms
            if form.instance.pk
            and (
                self._should_delete_form(form)
                or set(form.changed_data) & set(InlineRowForm.checked_across_rows)
            )
        ]
        if not moving:
            return
        rows = self.model._default_manager.filter(**{self.fk.name: self.instance})
        used = set(rows.values_list("position", flat=True))
        used |= {form.cleaned_data.get("position") for form in _live_forms(self)}
        # Free positions from the top of the field's range: never one a row holds or takes.
        free = (p for p in range(POSITION_MAX, -1, -1) if p not in used)
        cleared = {"is_correct": False} if _has_field(self.model, "is_correct") else {}
        for pk in moving:
            rows.filter(pk=pk).update(position=next(free), **cleared)


class ChoiceInlineFormSet(ReorderableInlineFormSet):
    stale_message = _(
        "Someone else added or marked a choice of this question since you opened this page. "
        "Reload the page to see it, then make your changes again."
    )

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
    form = InlineRowForm
    formset = ChoiceInlineFormSet
    fields = [("position", "is_correct"), ("text_en", "text_ar"), ("feedback_en", "feedback_ar")]
    extra = 0
    min_num = 2
    ordering = ["position"]


class QuestionInlineFormSet(ReorderableInlineFormSet):
    stale_message = _(
        "Someone else added a question at one of these positions since you opened this page. "
        "Reload the page to see it, then make your changes again."
    )

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
    form = InlineRowForm
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


class QuizForm(forms.ModelForm):
    def clean(self) -> dict:
        cleaned_data = super().clean()
        guide = cleaned_data.get("guide")
        if cleaned_data.get("is_published") and guide and guide.slug == PLACEHOLDER_GUIDE_SLUG:
            # Learners would follow a link to the placeholder's address, which is no guide.
            self.add_error(
                "guide",
                _(
                    "Choose the guide this quiz belongs to before publishing it: this one only "
                    "holds imported quizzes."
                ),
            )
        return cleaned_data


@admin.register(Quiz)
class QuizAdmin(BilingualFieldsMixin, TranslationAdmin):
    form = QuizForm
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
    # Instructor tools (quizzes.admin_views): links on the list and on each quiz's page.
    change_list_template = "admin/quizzes/quiz/change_list.html"
    change_form_template = "admin/quizzes/quiz/change_form.html"
    actions = ["export_gift", "export_attempts_csv"]

    @admin.display(description=_("questions"))
    def question_count(self, quiz: Quiz) -> int:
        return quiz.questions.count()

    def has_view_attempts_permission(self, request) -> bool:
        """Learners' attempts and answers: item analysis and the CSV export need both."""
        return request.user.has_perms(["quizzes.view_attempt", "quizzes.view_answer"])

    def has_view_content_permission(self, request) -> bool:
        """Questions and choices, the answer key with them: a GIFT export holds all of it."""
        return request.user.has_perms(
            ["quizzes.view_quiz", "quizzes.view_question", "quizzes.view_choice"]
        )

    @admin.action(description=_("Export selected quizzes as GIFT"), permissions=["view_content"])
    def export_gift(self, request, queryset):
        return exports.gift_download(queryset.order_by("slug"))

    @admin.action(
        description=_("Download attempts and answers of selected quizzes (CSV)"),
        permissions=["view_attempts"],
    )
    def export_attempts_csv(self, request, queryset):
        return exports.attempts_csv_response(queryset)

    def get_urls(self):
        view = self.admin_site.admin_view
        name = f"{self.opts.app_label}_{self.opts.model_name}"
        # Before the default URLs, whose "<object_id>/" would catch "import/".
        return [
            path("import/", view(self.import_gift_view), name=f"{name}_import"),
            path(
                "translations/",
                view(self.translation_coverage_view),
                name=f"{name}_translations",
            ),
            path(
                "<path:object_id>/item-analysis/",
                view(self.item_analysis_view),
                name=f"{name}_item_analysis",
            ),
            path(
                "<path:object_id>/export.gift.txt",
                view(self.export_gift_view),
                name=f"{name}_export_gift",
            ),
            path(
                "<path:object_id>/attempts.csv",
                view(self.attempts_csv_view),
                name=f"{name}_attempts_csv",
            ),
            *super().get_urls(),
        ]

    def import_gift_view(self, request):
        return admin_views.import_gift(request, self)

    def translation_coverage_view(self, request):
        return admin_views.translation_coverage_view(request, self)

    def item_analysis_view(self, request, object_id):
        return admin_views.item_analysis_view(request, self, object_id)

    def export_gift_view(self, request, object_id):
        return admin_views.export_gift_view(request, self, object_id)

    def attempts_csv_view(self, request, object_id):
        return admin_views.attempts_csv_view(request, self, object_id)


@admin.register(Question)
class QuestionAdmin(BilingualFieldsMixin, TranslationAdmin):
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
