"""The forms of the content admin: bilingual fields side by side, the question and choice
formsets with their rules, and the quiz form."""

from __future__ import annotations

from decimal import Decimal

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.db import models
from django.forms.models import BaseInlineFormSet
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

from ..models import (
    AcceptedText,
    Choice,
    MatchPair,
    NumericalAnswer,
    OrderItem,
    Question,
    QuizOverride,
    equal_weights,
    parts_problems,
    shadowed_texts,
    validate_choice_set,
    validate_numerical_answers,
)
from ..text import TEXT_MAX_LENGTH
from .images import ImageFormMixin, InlineImageInput
from .imports import PLACEHOLDER_GUIDE_SLUG
from .parts import PartsFormSetMixin, QuestionPartsFormMixin
from .rendering import ROWS
from .reordering import InlineRowForm, ReorderableInlineFormSet, live_forms

# Rows for the translated text areas: enough to read a prompt or an explanation whole.
TEXTAREA_ROWS = {"prompt": 3, "explanation": 5, "description": 3, "feedback": 2}
# The long Markdown texts, held to quizzes.text.TEXT_MAX_LENGTH (a choice's text has its
# column's max_length). The columns are unbounded: the limit lives in the forms, the preview
# and the GIFT import, which are the ways instructors write them.
LONG_TEXTS = frozenset(TEXTAREA_ROWS)


class ExactNumberInput(forms.NumberInput):
    """A stored number as many decimals as it has («0.5», «-1», not «-1.0000000»), written left
    to right so that its sign stays before it in an Arabic page too («1.0000000-» otherwise)."""

    def __init__(self, attrs=None) -> None:
        super().__init__({"dir": "ltr", **(attrs or {})})

    def format_value(self, value):
        if isinstance(value, Decimal) and value.is_finite():
            value = f"{value.normalize():f}"
            if value == "-0":
                value = "0"
        return super().format_value(value)


class BilingualFieldsMixin:
    """Pair each translated field's languages side by side, Arabic typed right to left; numbers
    typed left to right with no trailing zeros (ExactNumberInput)."""

    class Media:
        css = {"all": ["admin/daleel-admin.css"]}
        js = ["admin/daleel-parts.js"]

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if isinstance(db_field, models.DecimalField):
            kwargs.setdefault("widget", ExactNumberInput)
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if field is not None:
            base, _sep, language = db_field.name.rpartition("_")
            # modeltranslation's classes serve its tabbed fields' script, which these pages do
            # without: the pages of a quiz are lighter without them.
            classes = [c for c in field.widget.attrs.get("class", "").split() if c != "mt"]
            classes = [
                c for c in classes if not c.startswith(("mt-field-", "mt-default", "mt-bidi"))
            ]
            if classes:
                field.widget.attrs["class"] = " ".join(classes)
            else:
                field.widget.attrs.pop("class", None)
            if language == "ar":
                field.widget.attrs.update({"lang": "ar", "dir": "rtl"})
            elif language == "en":
                field.widget.attrs.update({"lang": "en", "dir": "ltr"})
            textarea = isinstance(field.widget, forms.Textarea)
            if textarea:
                # Its width is the column's (daleel-admin.css), never 40 characters.
                field.widget.attrs.pop("cols", None)
            if language in {"ar", "en"} and base in TEXTAREA_ROWS and textarea:
                field.widget.attrs["rows"] = TEXTAREA_ROWS[base]
            long_text = db_field.name in LONG_TEXTS or (
                language in {"ar", "en"} and base in LONG_TEXTS
            )
            # (A quiz's `feedback` is its mode, a choice of two, not a text.)
            if long_text and isinstance(db_field, models.TextField):
                field.validators.append(MaxLengthValidator(TEXT_MAX_LENGTH))
                field.widget.attrs["maxlength"] = str(TEXT_MAX_LENGTH)
        return field


class ChoiceInlineFormSet(PartsFormSetMixin, ReorderableInlineFormSet):
    """A question's choices. "Correct" marks the right ones; a weight left empty is filled
    from the marks (the right ones share the whole mark; for several answers each wrong one
    takes a right one's share away), a weight typed is kept."""

    stale_message = _(
        "Someone else added or marked a choice of this question since you opened this page. "
        "Reload the page to see it, then make your changes again."
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        stored = [form.instance for form in self.initial_forms if form.instance.pk]
        # The weights as stored: the form writes its own into the instance when cleaned.
        self.stored_weights = {choice.pk: choice.fraction for choice in stored}
        kind = self.question_kind
        if stored and [c.fraction for c in stored] == equal_weights(
            [c.is_correct for c in stored], kind=kind
        ):
            # The weights the marks give: shown empty, so that moving a mark moves them too.
            for form in self.initial_forms:
                form.initial["fraction"] = None

    def add_fields(self, form, index) -> None:
        if "fraction" in form.fields:
            # Empty unless typed (not the model's 0): a new choice's weight is derived.
            form.fields["fraction"].initial = None
            form.fields["fraction"].required = False
            form.fields["fraction"].help_text = _(
                "From -1 to 1. Leave empty and the right ones share the mark equally."
            )
        super().add_fields(form, index)

    def get_unique_error_message(self, unique_check) -> str:
        return _("Two choices share a position; give each choice its own position.")

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        forms = live_forms(self)
        if not self.parent_row_stays():
            return
        if not forms and self.rows_stored_unseen():
            # Stored choices this page did not post (saved since it was opened): publishing
            # checks them with the rest (QuestionInlineFormSet).
            return
        # The same rules on the quiz's page as on the question's own: a question of choices
        # saved without any is refused on both.
        kind = self.question_kind
        marks = [bool(form.cleaned_data.get("is_correct")) for form in forms]
        typed = [form.cleaned_data.get("fraction") for form in forms]
        weights = [
            default if fraction is None else fraction
            for fraction, default in zip(typed, equal_weights(marks, kind=kind), strict=True)
        ]
        # Named by their place among the question's choices (1, 2, …), as they will be
        # numbered on save, whatever was typed or set by dragging (which counts from 0).
        places = _places(forms)
        validate_choice_set(
            [
                (places[form], mark, weight)
                for form, mark, weight in zip(forms, marks, weights, strict=True)
            ],
            kind=kind,
        )
        for form, weight in zip(forms, weights, strict=True):
            if form.instance.pk and self.stored_weights.get(form.instance.pk) != weight:
                # Filled here rather than typed: the row must still be saved.
                form.changed_data.append("fraction")
            form.instance.fraction = weight


class NumericalAnswerInlineFormSet(PartsFormSetMixin, ReorderableInlineFormSet):
    stale_message = _(
        "Someone else added an accepted number to this question since you opened this page. "
        "Reload the page to see it, then make your changes again."
    )

    def get_unique_error_message(self, unique_check) -> str:
        return _("Two accepted numbers share a position; give each its own position.")

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        forms = live_forms(self)
        if not self.parent_row_stays():
            return
        if not forms and self.rows_stored_unseen():
            return  # as for choices: publishing checks them
        if self.question_kind != Question.Kind.NUMERICAL:
            if forms:
                raise ValidationError(
                    _("Only a numerical question has accepted numbers; delete them.")
                )
            return
        validate_numerical_answers(
            [
                (form.cleaned_data.get("position"), form.cleaned_data.get("fraction"))
                for form in forms
            ]
        )


class KindPartsInlineFormSet(PartsFormSetMixin, ReorderableInlineFormSet):
    """The parts of a short-answer, matching or ordering question (`kind`): refused on a
    question of another kind, checked together otherwise (models.parts_problems), the same on
    the question's page and the quiz's."""

    kind = ""
    # The keyword `parts_problems` takes these rows as.
    rows_name = ""

    def get_unique_error_message(self, unique_check) -> str:
        return _("Two rows share a position; give each its own position.")

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        forms = live_forms(self)
        if not self.parent_row_stays():
            return
        if not forms and self.rows_stored_unseen():
            return  # as for choices: publishing checks them
        kind = self.question_kind
        if kind != self.kind and not forms:
            return
        rows = [form.instance for form in forms]
        places = _places(forms)
        for form, place in places.items():
            form.instance.position = form.cleaned_data.get("position") or place
        parts_problems(kind, **{self.rows_name: rows})
        if kind == Question.Kind.SHORT:
            # An accepted answer another one always outweighs (short_answers.py's folding).
            texts = sorted(
                (places[form], t.text_en or "", t.text_ar or "", t.fraction, t.exact)
                for form, t in zip(forms, rows, strict=True)
            )
            if problems := shadowed_texts(texts):
                raise ValidationError([message for _number, message in problems])


class AcceptedTextInlineFormSet(KindPartsInlineFormSet):
    kind, rows_name = "short", "texts"
    stale_message = _(
        "Someone else added an accepted answer to this question since you opened this page. "
        "Reload the page to see it, then make your changes again."
    )


class MatchPairInlineFormSet(KindPartsInlineFormSet):
    kind, rows_name = "matching", "pairs"
    stale_message = _(
        "Someone else added a pair to this question since you opened this page. "
        "Reload the page to see it, then make your changes again."
    )


class OrderItemInlineFormSet(KindPartsInlineFormSet):
    kind, rows_name = "ordering", "items"
    stale_message = _(
        "Someone else added an item to this question since you opened this page. "
        "Reload the page to see it, then make your changes again."
    )


class TemplateRowDisabledMixin:
    """For an inline of the admin's pages: the row "Add another" copies (Django's inlines.js)
    has its controls disabled, so that a template is never submitted; the page's script
    enables them once copied (daleel-parts.js)."""

    @property
    def empty_form(self):
        form = super().empty_form  # type: ignore[misc]
        for field in form.fields.values():
            field.widget.attrs["disabled"] = True
        return form


class QuizOverrideInlineFormSet(TemplateRowDisabledMixin, BaseInlineFormSet):
    pass


NO_EXPLANATION = _("it has no explanation (in English), which learners read after answering.")


class QuestionInlineFormSet(TemplateRowDisabledMixin, ReorderableInlineFormSet):
    stale_message = _(
        "Someone else added a question at one of these positions since you opened this page. "
        "Reload the page to see it, then make your changes again."
    )

    def get_unique_error_message(self, unique_check) -> str:
        return _("Two questions share a position; give each question its own position.")

    def save(self, commit: bool = True):
        saved = super().save(commit)
        if commit:
            deleted = set(self.deleted_forms)
            for form in self.forms:
                if form not in deleted and form.instance.pk:
                    form.save_parts()
        return saved

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
        places = _places(forms)
        for form in forms:
            question = form.instance
            if not (question.explanation_en or "").strip():
                problems.append(
                    _("Question %(position)s: %(problem)s")
                    % {"position": places[form], "problem": NO_EXPLANATION}
                )
            nested = _nested_rows(form)
            if nested is None:
                continue  # its choices' own errors are shown beside it
            choices = nested.get(Choice, list(question.choices.all()) if question.pk else [])
            try:
                if question.kind == Question.Kind.NUMERICAL:
                    stored = question.numerical_answers.all() if question.pk else []
                    numbers = nested.get(NumericalAnswer, stored)
                    validate_numerical_answers([(n.position, n.fraction) for n in numbers])
                validate_choice_set(
                    [(c.position, c.is_correct, c.fraction) for c in choices], kind=question.kind
                )
                parts_problems(
                    question.kind,
                    texts=_nested_or_stored(nested, AcceptedText, question, "accepted_texts"),
                    pairs=_nested_or_stored(nested, MatchPair, question, "pairs"),
                    items=_nested_or_stored(nested, OrderItem, question, "order_items"),
                )
            except ValidationError as error:
                problems.append(
                    _("Question %(position)s: %(problem)s")
                    % {
                        "position": places[form],
                        "problem": " ".join(error.messages),
                    }
                )
        if problems:
            problems.insert(
                0,
                _(
                    "The quiz cannot be published yet: complete these questions, or untick "
                    "“Published” to save it as a draft."
                ),
            )
            raise ValidationError(problems)


def _nested_or_stored(nested: dict, model, question, related: str) -> list:
    """A question's rows of `model` as the page will store them, or as stored."""
    if model in nested:
        return nested[model]
    return list(getattr(question, related).all()) if question.pk else []


def _places(forms) -> dict:
    """Each row's place, 1, 2, …, in the order of the positions given (ties in page order)."""
    order = sorted(
        range(len(forms)),
        key=lambda index: (forms[index].cleaned_data.get("position") or 0, index),
    )
    return {forms[index]: place for place, index in enumerate(order, start=1)}


def _nested_rows(form) -> dict[type, list] | None:
    """The rows a question's form will store in its sections, by model; None if one of them
    has errors."""
    rows: dict[type, list] = {}
    for formset in form.editable_part_formsets():
        if not formset.is_valid():
            return None
        # And those stored that the page did not show (saved since it was opened).
        unseen = formset.rows_stored_unseen()
        rows[formset.model] = [row.instance for row in live_forms(formset)] + unseen
    return rows


class KindShapesFormMixin(forms.ModelForm):
    """A question's kind shapes its form (static/admin/daleel-parts.js): its kind's section
    shows, brought from the page's template of it when the kind changes, and true or false is
    given its two choices. Without JavaScript the stored rows are edited, and the sections
    check the same rules either way."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if "kind" in self.fields:
            self.fields["kind"].widget.attrs["data-question-kind"] = ""


class QuestionInlineForm(
    QuestionPartsFormMixin, KindShapesFormMixin, ImageFormMixin, InlineRowForm
):
    """A question's row on its quiz's page, with its images, as on the question's own page:
    its fields and sections written with Jinja2 (quizzes/instructors/rendering.py)."""

    default_renderer = ROWS
    template_name = "admin/quizzes/question_row.html"

    class Meta:
        widgets = {"image": InlineImageInput, "explanation_image": InlineImageInput}


class QuestionForm(QuestionPartsFormMixin, KindShapesFormMixin, ImageFormMixin, forms.ModelForm):
    """A question's own page: its position may be left empty, to put it after the others; its
    images are checked and re-encoded (`ImageFormMixin`)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if "position" in self.fields:
            self.fields["position"].required = False
            self.fields["position"].help_text = _("Leave empty to put it after the others.")

    def clean(self) -> dict:
        cleaned_data = super().clean()
        quiz = cleaned_data.get("quiz") or getattr(self.instance, "quiz", None)
        if cleaned_data.get("position") is None and quiz is not None:
            cleaned_data["position"] = quiz.next_question_position()
        explained = (cleaned_data.get("explanation_en") or "").strip()
        if quiz is not None and quiz.is_published and not explained:
            self.add_error(
                "explanation_en",
                _("The quiz is published: %(problem)s") % {"problem": NO_EXPLANATION},
            )
        return cleaned_data


class QuizForm(forms.ModelForm):
    guide_position = forms.IntegerField(
        label=capfirst(_("position in the guide")),
        required=False,
        min_value=0,
        max_value=32767,
        help_text=_(
            "Quizzes of a guide are listed by this number, then by title. Left empty, or when "
            "the quiz moves to another guide, it goes last in its guide."
        ),
    )

    def clean(self) -> dict:
        cleaned_data = super().clean()
        guide = cleaned_data.get("guide")
        position_unset = cleaned_data.get("guide_position") is None
        moved = "guide" in self.changed_data and "guide_position" not in self.changed_data
        if guide and (position_unset or moved):
            cleaned_data["guide_position"] = guide.next_quiz_position(exclude=self.instance.pk)
        elif position_unset:
            cleaned_data["guide_position"] = self.instance.guide_position
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

    username = forms.CharField(label=capfirst(_("learner's username")), max_length=150)

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
