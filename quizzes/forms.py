from dataclasses import fields
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from .catalog import CatalogQuery, Progress, listed_guides
from .confidence import ASK_CONFIDENCE, LEVEL_NAMES
from .content import QuestionData
from .grading import CHOOSE_LISTED, CHOOSE_ONE, Posted, Response, Unreadable, read_response
from .mastery import Level
from .models import QuestionReport, Quiz

# Largest primary key a browser could sensibly send; anything bigger is junk, not a choice.
MAX_ID = 2**63 - 1


class IdField(forms.IntegerField):
    """A database id as our own forms send it: ASCII digits only.

    IntegerField would read other scripts' digits ("٣" as 3); an id never arrives that way from
    our radio buttons, so such input is junk rather than a choice.
    """

    def to_python(self, value):
        if isinstance(value, str) and not value.strip().isascii():
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


class IdListField(forms.Field):
    """Several ids under one name (ticked checkboxes), each read as `IdField` reads one."""

    widget = forms.SelectMultiple

    def __init__(self, *, error_messages: dict, **kwargs) -> None:
        super().__init__(error_messages=error_messages, **kwargs)
        self._one = IdField(min_value=1, max_value=MAX_ID, error_messages=error_messages)

    def to_python(self, value) -> list[int]:
        if not value:
            return []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, (list, tuple)) or len(value) > MAX_TICKED:
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return [self._one.clean(item) for item in value]


# More boxes than any question has is junk, not an answer.
MAX_TICKED = 100


class PickListField(forms.Field):
    """The select of each prompt (matching) or item (ordering), in order: a number on the page
    each, or empty for none picked (read as 0)."""

    widget = forms.SelectMultiple

    def to_python(self, value) -> list[int]:
        if not value:
            return []
        if not isinstance(value, (list, tuple)) or len(value) > MAX_TICKED:
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        picks = []
        for item in value:
            item = (item or "").strip()
            if not item:
                picks.append(0)
            elif item.isascii() and item.isdigit() and len(item) <= 4:
                picks.append(int(item))
            else:
                raise ValidationError(self.error_messages["invalid"], code="invalid")
        return picks


CHOICE_ERRORS = {
    "required": CHOOSE_ONE,
    "invalid": CHOOSE_LISTED,
    "min_value": CHOOSE_LISTED,
    "max_value": CHOOSE_LISTED,
}


class AnswerForm(forms.Form):
    """The learner's response to one question; whether it fits the question is the rules'.

    `question` is the id of the question the learner saw. Steps are numbered by position, and
    an instructor's edit can renumber them while a learner reads; the id keeps the answer with
    its question. Absent (an older page), the step's number decides.
    """

    # The choice picked, or the boxes ticked; `number` is what was typed for a number, `text`
    # for a short answer (its length is the rules' to refuse, with their words); `match` the
    # match picked per prompt, `position` the position given per item (numbers on the page,
    # 0 for none picked).
    choice = IdListField(required=False, error_messages=CHOICE_ERRORS)
    number = forms.CharField(required=False, max_length=100, strip=False)
    text = forms.CharField(required=False, max_length=10_000, strip=False)
    match = PickListField(required=False, error_messages=CHOICE_ERRORS)
    position = PickListField(required=False, error_messages=CHOICE_ERRORS)
    question = IdField(min_value=1, max_value=MAX_ID, required=False)
    # How sure the learner is (quizzes/confidence.py), when the quiz asks: the rules require it.
    confidence = forms.TypedChoiceField(
        choices=[(str(level), name) for level, name in LEVEL_NAMES.items()],
        coerce=int,
        required=False,
        empty_value=None,
        error_messages={"invalid_choice": ASK_CONFIDENCE},
    )

    def posted(self) -> Posted:
        """What the valid form holds, for the rules to read against the question it answers
        (`grading.read_response`)."""
        return Posted(
            question_id=self.cleaned_data["question"],
            choices=tuple(self.cleaned_data["choice"]),
            number=self.cleaned_data["number"],
            text=self.cleaned_data["text"],
            matches=tuple(self.cleaned_data["match"]),
            positions=tuple(self.cleaned_data["position"]),
            confidence=self.cleaned_data["confidence"],
        )

    def response_for(
        self, question: QuestionData | None, *, shown: tuple[Any, ...] | None = None
    ) -> Response | None:
        """The valid form's response to `question`'s kind (as its page listed the choices, by
        id; the matches or items as `shown`), or None with the error added to the form."""
        try:
            return read_response(question, self.posted(), shown=shown)
        except Unreadable as refusal:
            self.add_error(refusal.field, refusal.message)
            return None


class ReasonSelect(forms.RadioSelect):
    """Radio buttons whose group has an id: the error summary links to it, as to the answer
    form's choices (Django leaves a radio group without one)."""

    def id_for_label(self, id_, index=None):
        return id_ if index is None else super().id_for_label(id_, index)


class ReportForm(forms.Form):
    """What is wrong with a question, in the learner's words."""

    reason = forms.ChoiceField(
        label=_("What is wrong?"),
        choices=QuestionReport.Reason.choices,
        widget=ReasonSelect,
        error_messages={
            "required": _("Choose what is wrong with the question."),
            "invalid_choice": _("Choose one of the reasons listed."),
        },
    )
    text = forms.CharField(
        label=_("Details (optional)"),
        help_text=_("At most 1,000 characters. Instructors read this."),
        required=False,
        max_length=QuestionReport.MAX_TEXT,
        widget=forms.Textarea(attrs={"rows": 4}),
        error_messages={
            "max_length": _(
                "Keep the details to 1,000 characters or fewer (you wrote %(show_value)d)."
            )
        },
    )

    def clean(self) -> dict:
        cleaned = super().clean()
        if cleaned.get("reason") == QuestionReport.Reason.OTHER and not cleaned.get("text"):
            self.add_error("text", _("Say in a few words what is wrong."))
        return cleaned


class CatalogForm(forms.Form):
    """The catalog's search and filters, read from the query string.

    A value the form refuses (a guide that does not exist, a search too long) is shown as an
    error and that filter is left out; the others still apply.
    """

    q = forms.CharField(
        label=_("Search"),
        required=False,
        max_length=200,
        widget=forms.SearchInput(attrs={"autocomplete": "off"}),
    )
    difficulty = forms.ChoiceField(
        label=_("Difficulty"), required=False, choices=[("", _("Any")), *Quiz.Difficulty.choices]
    )
    guide = forms.ChoiceField(label=_("Guide"), required=False)
    status = forms.ChoiceField(label=_("Your progress"), required=False, choices=Progress.CHOICES)
    mastery = forms.ChoiceField(
        label=_("Your mastery"), required=False, choices=[("", _("Any")), *Level.choices]
    )

    def __init__(self, data: QueryDict, *, signed_in: bool) -> None:
        super().__init__(data)
        guide = self.fields["guide"]
        assert isinstance(guide, forms.ChoiceField)
        # Lazily: the guides are read only to render the form (kept rendered in catalog.html)
        # or to check a guide asked for, not on every catalog request.
        guide.choices = lambda: [("", _("Any")), *listed_guides()]
        if not signed_in:
            del self.fields["status"]
            del self.fields["mastery"]

    def _value(self, name: str) -> str:
        """The field's valid value, or "" when absent or refused."""
        if name not in self.fields or not self.is_valid() and name in self.errors:
            return ""
        return str(self.cleaned_data.get(name) or "")

    @property
    def query(self) -> CatalogQuery:
        """What the query string asks for, each refused value left out."""
        names = [field.name for field in fields(CatalogQuery)]
        return CatalogQuery(**{name: self._value(name) for name in names})
