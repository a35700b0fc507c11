"""The forms of the content admin: bilingual fields side by side, the question and choice
formsets with their rules, and the quiz form."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from ..models import QuizOverride, validate_choice_set
from .imports import PLACEHOLDER_GUIDE_SLUG
from .reordering import ReorderableInlineFormSet, live_forms

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
        forms = live_forms(self)
        validate_choice_set(
            [
                (form.cleaned_data.get("position"), form.cleaned_data.get("is_correct"))
                for form in forms
            ]
        )


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
            self._check_publishable(live_forms(self))

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


class QuizOverrideForm(forms.ModelForm):
    """A learner override, naming the learner by username (instructors cannot browse users)."""

    username = forms.CharField(label=_("learner's username"), max_length=150)

    class Meta:
        model = QuizOverride
        fields = ["extra_time", "extra_attempts"]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["username"].initial = self.instance.user.get_username()

    def clean_username(self) -> str:
        username = self.cleaned_data["username"].strip()
        user = get_user_model().objects.filter(username__iexact=username).first()
        if user is None:
            raise ValidationError(_("No learner has this username."))
        self.instance.user = user
        return username

    def clean_extra_time(self):
        extra_time = self.cleaned_data.get("extra_time")
        if extra_time is not None and extra_time.total_seconds() < 0:
            # "-00:10:00" parses; taken off the limit it could end an attempt as it starts.
            raise ValidationError(_("Extra time cannot be negative."))
        return extra_time

    def clean(self) -> dict:
        cleaned_data = super().clean()
        if not cleaned_data.get("extra_time") and not cleaned_data.get("extra_attempts"):
            raise ValidationError(_("Give this learner extra time, extra attempts or both."))
        return cleaned_data
