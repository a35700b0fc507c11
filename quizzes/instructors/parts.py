"""A question's parts on the admin's pages: the rows its kind uses (choices, accepted numbers,
accepted answers, pairs or items), edited in the question's form and saved with it.

A question's form, on its own page or as a row of its quiz's page, holds one formset per
section it shows (`part_formsets`): its kind's, and any other that still holds rows (which the
rules then ask to delete). Nothing else is on the page for a question: a kind's empty section
and its empty row are written once per page, as `<template>`s the page's script copies from
(static/admin/daleel-parts.js), so a page grows with its content, not with the kinds its
questions do not use, and nothing that is only a template is submitted.

The sections are the question's related names ("choices", …); a section's formset class comes
from its inline in quizzes/admin.py (`InlineModelAdmin.get_formset`, per request: fields,
widgets, permissions, and the check that refuses deleting a row learners answered).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import Prefetch
from django.forms.models import BaseInlineFormSet
from django.utils.text import Truncator, capfirst
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext

from ..models import Question
from .gift.items import FALSE, TRUE
from .images import IMAGE_FIELDS, images_discard
from .rendering import ROWS

# The section each kind's parts are in (the related name of their model).
SECTION_OF_KIND = {
    Question.Kind.SINGLE: "choices",
    Question.Kind.MULTIPLE: "choices",
    Question.Kind.TRUEFALSE: "choices",
    Question.Kind.NUMERICAL: "numerical_answers",
    Question.Kind.SHORT: "accepted_texts",
    Question.Kind.MATCHING: "pairs",
    Question.Kind.ORDERING: "order_items",
}
# In the order a page lists them.
SECTIONS = tuple(dict.fromkeys(SECTION_OF_KIND.values()))
# Rows in a total order, as a formset wants them (read once: `section_prefetches`).
ROW_ORDER = ("position", "pk")
# Where a page's templates stand for a question's place among its quiz's questions.
QUESTION_PLACEHOLDER = "__question__"
# The button under each section (its own words: Arabic's agree with each part's gender).
ADD_LABELS = {
    "choices": _("Add a choice"),
    "numerical_answers": _("Add an accepted number"),
    "accepted_texts": _("Add an accepted answer"),
    "pairs": _("Add a pair"),
    "order_items": _("Add an item"),
}


def section_prefetches() -> list[Prefetch]:
    """What a page of questions prefetches: every section's rows, in their formsets' order."""
    return [
        Prefetch(
            section,
            queryset=Question._meta.get_field(section).related_model.objects.order_by(*ROW_ORDER),
        )
        for section in SECTIONS
    ]


class PartsFormSetMixin:
    """For a section's formset: its rows' fields laid out as its inline's `fields` say
    (`layout`), the help shared by every row said once for the section, and the kind the
    question will have once saved (`question_kind`), which its checks follow."""

    # Set by the section's inline (quizzes/admin.py): the lines of fields of a row.
    layout: tuple[tuple[str, ...], ...] = ()
    # The question's form, whose kind and "Delete" these rows follow (quiz page and question
    # page alike); None for a page's template.
    parent_form: forms.ModelForm | None = None
    # False where the instructor may only look: the rows are shown, never posted or saved.
    editable = True
    # Whether the instructor may add rows (the section's "Add" button).
    can_add = True
    # The section's heading: under a question's on its quiz's page (h3), or the page's own
    # sections' (h2) on the question's page; its rows' one level below.
    heading_level = 4
    # Rendered with Jinja2 (quizzes/instructors/rendering.py), its rows' forms too.
    renderer = ROWS
    template_name = "admin/quizzes/section.html"
    remove_label = _("Remove")

    def __init__(self, *args, rows=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if rows is not None:
            # The question's rows as read already (its quiz's page reads all of them at once).
            self.queryset = rows

    @property
    def question_kind(self) -> str:
        parent = self.parent_form
        if parent is not None:
            kind = getattr(parent, "cleaned_data", {}).get("kind") or parent.posted_kind()
            if kind:
                return kind
        return getattr(self.instance, "kind", Question.Kind.SINGLE)

    @property
    def section(self) -> str:
        return self.fk.remote_field.get_accessor_name()

    def shared_help(self) -> list[tuple[str, str, str]]:
        """(id, label, help text) of each field whose help every row shares, said once."""
        cls = type(self)
        if "_shared_help" not in cls.__dict__:
            # Read from one empty row per class (per request), not one per section.
            fields = self.empty_form.fields
            cls._shared_help = [
                (name, capfirst(fields[name].label), fields[name].help_text)
                for name in _layout_names(self.layout)
                if name in fields and fields[name].help_text
            ]
        return [(self.help_id(name), label, text) for name, label, text in cls._shared_help]

    def row_label(self, form) -> str:
        """A stored row's name in its heading: its text, shortened."""
        return Truncator(str(form.instance)).chars(40)

    def help_id(self, name: str) -> str:
        return f"{self.prefix}-help-{name}"

    def add_fields(self, form, index) -> None:
        super().add_fields(form, index)  # type: ignore[misc]
        for name in _layout_names(self.layout):
            field = form.fields.get(name)
            if field is not None and field.help_text:
                # The section says it once; each row's field points at it.
                field.widget.attrs["aria-describedby"] = self.help_id(name)
        if not self.editable:
            for field in form.fields.values():
                field.disabled = True

    def rows(self) -> Iterator[tuple[forms.ModelForm, list[list[forms.BoundField]]]]:
        """Each row's form with its lines of fields, for the section's template."""
        for form in self.forms:
            yield form, _lines(form, self.layout)

    def template_row(self) -> tuple[forms.ModelForm, list[list[forms.BoundField]]]:
        """The empty row a page's script copies, with its lines of fields."""
        form = self.empty_form
        return form, _lines(form, self.layout)

    def verbose_names(self) -> tuple[str, str]:
        opts = self.model._meta
        return capfirst(opts.verbose_name), capfirst(opts.verbose_name_plural)

    def add_label(self) -> str:
        return ADD_LABELS[self.section]


def _layout_names(layout) -> list[str]:
    return [name for line in layout for name in line]


@dataclass(frozen=True)
class FieldLook:
    """How a row's field is written beside its widget, the same for every row of its form's
    class: worked out (and translated) once per page, not once per row."""

    label: str
    help: str  # empty where the section says it once
    checkbox: bool
    required: bool


def _looks(form) -> dict[str, FieldLook]:
    cls = type(form)  # made per request (the admin's get_formset), so per page and language
    if "_looks" not in cls.__dict__:
        cls._looks = {
            name: FieldLook(
                label=capfirst(str(field.label)),
                help=""
                if not field.help_text or "aria-describedby" in field.widget.attrs
                else str(field.help_text),
                checkbox=isinstance(field.widget, forms.CheckboxInput),
                required=field.required,
            )
            for name, field in form.fields.items()
        }
    return cls._looks


def _lines(form, layout) -> list[list[tuple[forms.BoundField, FieldLook]]]:
    looks = _looks(form)
    return [[(form[name], looks[name]) for name in line if name in form.fields] for line in layout]


class QuestionPartsFormMixin(forms.ModelForm):
    """A question's form that holds its parts' formsets (`part_formsets`), checks them with
    its own fields and saves them after itself (`save_parts`)."""

    # {section: formset class}, per request (QuestionInline.get_formset, QuestionAdmin.get_form).
    section_formsets: dict[str, type[BaseInlineFormSet]] = {}
    # The sections whose rows the instructor may change (the others are shown, not posted).
    changeable_sections: frozenset[str] = frozenset()
    # The lines of the question's own fields on its quiz's page (QuestionInline.fields).
    layout: tuple[tuple[str, ...], ...] = ()

    def lines(self) -> list[list[forms.BoundField]]:
        return _lines(self, self.layout)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.part_formsets = [self._section_formset(s) for s in self._sections()]

    def posted_kind(self) -> str:
        """The kind this form was sent with (the page's script may have changed it), or the
        stored one."""
        if self.is_bound:
            posted = self.data.get(self.add_prefix("kind"))
            if posted in Question.Kind.values:
                return posted
        return self.initial.get("kind") or self.instance.kind or Question.Kind.SINGLE

    def _is_template(self) -> bool:
        return "__prefix__" in (self.prefix or "")

    def _stored_rows(self, section: str):
        """The question's rows of `section`, read once (from what its quiz's page prefetched)."""
        if self.instance.pk is None:
            return None
        if not hasattr(self, "_rows"):
            self._rows = {}
        if section not in self._rows:
            rows = getattr(self.instance, section).all()
            # A formset reads its rows again unless they are in a total order.
            self._rows[section] = rows if rows.totally_ordered else rows.order_by(*ROW_ORDER)
        return self._rows[section]

    def _sections(self) -> list[str]:
        if self._is_template():
            return []  # a new question's row: its kind's section comes from the page's template
        wanted = {SECTION_OF_KIND.get(self.posted_kind(), "choices")}
        wanted |= {
            section
            for section in self.section_formsets
            if (rows := self._stored_rows(section)) is not None and rows
        }
        return [
            section
            for section in SECTIONS
            if section in wanted and section in self.section_formsets
        ]

    def section_prefix(self, section: str) -> str:
        return f"{self.prefix}-{section}" if self.prefix else section

    def _section_formset(self, section: str):
        cls = self.section_formsets[section]
        prefix = self.section_prefix(section)
        editable = section in self.changeable_sections
        data = files = None
        if self.is_bound and editable:
            if f"{prefix}-TOTAL_FORMS" in self.data:
                data, files = self.data, self.files
            else:
                # A section the page did not send (the kind was changed without the page's
                # script): empty, so that its rules say what it lacks.
                data = {f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"}
        formset = cls(
            data=data,
            files=files,
            instance=self.instance,
            prefix=prefix,
            rows=self._stored_rows(section),
        )
        formset.parent_form = self
        formset.editable = editable
        formset.heading_level = 4 if self.prefix else 2
        return formset

    def editable_part_formsets(self) -> list:
        return [formset for formset in self.part_formsets if formset.is_bound]

    def has_changed(self) -> bool:
        return super().has_changed() or any(
            formset.has_changed() for formset in self.editable_part_formsets()
        )

    def clean(self) -> dict:
        cleaned_data = super().clean()
        if cleaned_data.get("DELETE"):
            return cleaned_data  # its parts go with it
        # Every section checked (a list, not a generator: each shows its own errors).
        valid = [formset.is_valid() for formset in self.editable_part_formsets()]
        if not all(valid):
            names = [str(formset.verbose_names()[1]) for formset in self.part_formsets]
            raise ValidationError(
                _("%(parts)s: correct the errors below.")
                % {"parts": pgettext("between names", ", ").join(names)}
            )
        return cleaned_data

    def save_parts(self) -> None:
        """Save the sections' rows, once the question itself is saved."""
        discarded: set[str] = set()
        for formset in self.editable_part_formsets():
            for deleted in formset.deleted_forms:
                if deleted.instance.pk:
                    discarded |= _image_names(deleted.instance)
            formset.instance = self.instance
            formset.save()
        images_discard(discarded)

    def saved_part_formsets(self) -> list:
        """The sections saved, for the admin's history of the change."""
        return [
            formset for formset in self.editable_part_formsets() if hasattr(formset, "new_objects")
        ]


def _image_names(obj) -> set[str]:
    return {name for field in IMAGE_FIELDS.get(type(obj), ()) if (name := getattr(obj, field).name)}


def part_formsets_of(forms_: Iterable) -> Iterator:
    """The sections' formsets of these question forms."""
    for form in forms_:
        yield from getattr(form, "part_formsets", ())


class SectionTemplate:
    """A section as a page's `<template>`: its empty group (no rows) and its empty row, with
    the question's place left as QUESTION_PLACEHOLDER on the quiz's page. One per section per
    page, whatever the number of questions."""

    def __init__(self, *, section: str, formset_class, prefix: str, changeable: bool) -> None:
        self.section = section
        self.formset = formset_class(prefix=prefix, instance=Question(kind=_kind_of(section)))
        self.formset.editable = changeable
        self.formset.heading_level = 4 if QUESTION_PLACEHOLDER in prefix else 2

    def row(self) -> str:
        return self.formset.render(template_name="admin/quizzes/section_row.html")

    @property
    def data(self) -> list[tuple[str, str]]:
        """For the choices' section: the words a true-or-false question is given, in both
        languages, as the GIFT import writes them (the instructor ticks the right one)."""
        if self.section != "choices":
            return []
        return [
            ("true-en", TRUE.en),
            ("true-ar", TRUE.ar),
            ("false-en", FALSE.en),
            ("false-ar", FALSE.ar),
        ]

    @property
    def kinds(self) -> str:
        return " ".join(
            kind for kind, section in SECTION_OF_KIND.items() if section == self.section
        )


def _kind_of(section: str) -> str:
    return next(kind for kind, s in SECTION_OF_KIND.items() if s == section)


def section_templates(form_class, *, question_prefix: str = "") -> list[SectionTemplate]:
    """The templates a page's script copies a question's section from: for a quiz's page
    (`question_prefix` "questions") each holds QUESTION_PLACEHOLDER for the question's place."""
    templates = []
    for section in SECTIONS:
        formset_class = form_class.section_formsets.get(section)
        if formset_class is None:
            continue
        prefix = (
            f"{question_prefix}-{QUESTION_PLACEHOLDER}-{section}" if question_prefix else section
        )
        templates.append(
            SectionTemplate(
                section=section,
                formset_class=formset_class,
                prefix=prefix,
                changeable=section in form_class.changeable_sections,
            )
        )
    return templates
