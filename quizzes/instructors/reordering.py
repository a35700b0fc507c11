"""Inline formsets whose rows may trade positions (and choices the correct mark) in one save.

Django checks each row's unique constraints against the rows as stored, which refuses a swap
that is valid as a whole; these check across the rows as they will be and save in an order
the database accepts.
"""

from __future__ import annotations

from django import forms
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.forms.models import BaseInlineFormSet
from django.utils.translation import gettext_lazy as _


def live_forms(formset):
    """The rows that will be stored: filled in or stored already, and not ticked to delete."""
    return [
        form
        for form in formset.forms
        if hasattr(form, "cleaned_data")
        if form.has_changed() or form.instance.pk
        if not (formset.can_delete and form.cleaned_data.get("DELETE"))
    ]


def _has_field(model, name: str) -> bool:
    try:
        model._meta.get_field(name)
    except FieldDoesNotExist:
        return False
    return True


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

    checked_across_rows = ("position", "is_correct", "fraction")

    def _exclusions(self) -> set[str]:
        exclude = {
            field.name
            for field in self.instance._meta.get_fields()
            if field.concrete and field.name not in self.fields
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


class StoredRowField(forms.ModelChoiceField):
    """A row's hidden id, checked against the rows its formset read (`rows_stored`) rather
    than by a query per row, as Django's own field does: a quiz's page saves hundreds."""

    def __init__(self, *args, formset, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.formset = formset

    def to_python(self, value):
        if value in self.empty_values:
            return None
        rows = {str(row.pk): row for row in self.formset.rows_stored()}
        row = rows.get(str(value))
        if row is None:
            raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice")
        return row


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

    def rows_stored(self) -> list:
        """The parent's rows as stored now, read once (a page of questions reads every
        question's rows at once: quizzes/instructors/parts.py)."""
        if self.instance.pk is None:
            return []
        if not hasattr(self, "_rows_stored"):
            self._rows_stored = list(self.get_queryset())
        return self._rows_stored

    def rows_stored_unseen(self) -> list:
        """Rows of this parent saved since the page was opened: not among its forms."""
        seen = {form.instance.pk for form in self.initial_forms if form.instance.pk}
        return [row for row in self.rows_stored() if row.pk not in seen]

    def parent_row_stays(self) -> bool:
        """Whether the row these rows belong to will be stored: on the quiz's page a question
        ticked "Delete", or added and left blank, takes its choices' checks with it."""
        parent = getattr(self, "parent_form", None)
        if parent is None:
            return True
        if getattr(parent, "cleaned_data", {}).get("DELETE"):
            return False
        return bool(parent.instance.pk) or parent.has_changed()

    def add_fields(self, form, index) -> None:
        if "position" in form.fields:
            form.fields["position"].required = False
            form.fields["position"].help_text = _("Leave empty to put it after the others.")
        super().add_fields(form, index)
        pk = form.fields.get(self.model._meta.pk.name)
        if isinstance(pk, forms.ModelChoiceField):
            form.fields[self.model._meta.pk.name] = StoredRowField(
                pk.queryset,
                formset=self,
                initial=pk.initial,
                required=False,
                widget=pk.widget,
            )

    def _number_rows_without_position(self) -> None:
        """Rows left without a position go after the others, in the order they are listed."""
        forms = live_forms(self)
        unplaced = [form for form in forms if form.cleaned_data.get("position") is None]
        if not unplaced:
            return
        placed = [form.cleaned_data["position"] for form in forms if form not in unplaced]
        stored = [row.position for row in self.rows_stored_unseen()]
        after = max([0, *placed, *stored])
        for offset, form in enumerate(unplaced, start=1):
            form.cleaned_data["position"] = form.instance.position = after + offset

    def clean(self) -> None:
        self._number_rows_without_position()
        super().clean()
        # Checked whatever else a row got wrong (a question's choices, say): the instructor must
        # reload either way, and a position missing from a row with errors is not compared.
        unseen = self.rows_stored_unseen()
        forms = live_forms(self)
        taken = {row.position for row in unseen}
        stale = any(form.cleaned_data.get("position") in taken for form in forms)
        if _has_field(self.model, "is_correct") and any(
            form.cleaned_data.get("is_correct") for form in forms
        ):
            stale = stale or any(row.is_correct for row in unseen)
        if stale:
            raise ValidationError(self.stale_message)

    def save(self, commit: bool = True):
        if commit:
            self._number_rows()
            self._park_moving_rows()
        return super().save(commit)

    def _number_rows(self) -> None:
        """Number the rows 1, 2, … in the order their positions give, skipping positions of
        rows stored since the page was opened: what instructors and learners see stays 1-based
        and without gaps."""
        forms = live_forms(self)
        order = {form: index for index, form in enumerate(forms)}
        forms.sort(key=lambda form: (form.cleaned_data["position"], order[form]))
        taken = {row.position for row in self.rows_stored_unseen()}
        numbers = (n for n in range(1, POSITION_MAX + 1) if n not in taken)
        for form, number in zip(forms, numbers, strict=False):
            form.cleaned_data["position"] = form.instance.position = number
            if number != form.initial.get("position") and "position" not in form.changed_data:
                form.changed_data.append("position")

    def _park_moving_rows(self) -> None:
        moving = [
            form.instance.pk
            for form in self.initial_forms
            if form.instance.pk
            and (
                form.cleaned_data.get("DELETE")
                or set(form.changed_data) & set(InlineRowForm.checked_across_rows)
            )
        ]
        if not moving:
            return
        rows = self.model._default_manager.filter(**{self.fk.name: self.instance})
        used = {row.position for row in self.rows_stored()}
        used |= {form.cleaned_data.get("position") for form in live_forms(self)}
        # Free positions from the top of the field's range: never one a row holds or takes.
        free = (p for p in range(POSITION_MAX, -1, -1) if p not in used)
        cleared = (
            {"is_correct": False, "fraction": 0} if _has_field(self.model, "is_correct") else {}
        )
        for pk in moving:
            rows.filter(pk=pk).update(position=next(free), **cleared)
