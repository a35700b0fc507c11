"""A question's sections as the admin lays them out (its choices, accepted numbers or answers,
pairs or items): their inlines, the mixin that gives a question's form the sections its kind
uses (the quiz's page and the question's own), and the page's templates of each section
(`quizzes/instructors/parts.py` does the forms' work)."""

from __future__ import annotations

from django import forms
from django.db import models
from modeltranslation.admin import TranslationStackedInline

from config.uploads import limits as upload_limits

from ..models import AcceptedText, Choice, MatchPair, NumericalAnswer, OrderItem, Question
from .forms import (
    AcceptedTextInlineFormSet,
    BilingualFieldsMixin,
    ChoiceInlineFormSet,
    MatchPairInlineFormSet,
    NumericalAnswerInlineFormSet,
    OrderItemInlineFormSet,
)
from .images import ChoiceInlineForm
from .parts import part_formsets_of, section_templates
from .rendering import ROWS
from .reordering import InlineRowForm


class ChoiceInline(BilingualFieldsMixin, TranslationStackedInline):
    model = Choice
    form = ChoiceInlineForm
    formset = ChoiceInlineFormSet
    # A choice's text is Markdown, code and line breaks included: a box of several lines.
    formfield_overrides = {models.CharField: {"widget": forms.Textarea(attrs={"rows": 2})}}
    fields = [
        ("position", "is_correct", "fraction"),
        ("text_en", "text_ar"),
        ("feedback_en", "feedback_ar"),
        "image",
        ("image_alt_en", "image_alt_ar"),
    ]
    extra = 0
    ordering = ["position"]


class NumericalAnswerInline(BilingualFieldsMixin, TranslationStackedInline):
    """A numerical question's accepted numbers: a value, give or take a tolerance (a range
    from 100 to 120 is 110 ± 10), each worth a share of the mark."""

    model = NumericalAnswer
    form = InlineRowForm
    formset = NumericalAnswerInlineFormSet
    fields = [("position", "value", "tolerance", "fraction"), ("feedback_en", "feedback_ar")]
    extra = 0
    ordering = ["position"]


class AcceptedTextInline(BilingualFieldsMixin, TranslationStackedInline):
    """A short-answer question's accepted answers, each worth a share of the mark (100% for a
    whole answer); matched as people type unless marked exact (quizzes/short_answers.py)."""

    model = AcceptedText
    form = InlineRowForm
    formset = AcceptedTextInlineFormSet
    fields = [
        ("position", "fraction", "exact"),
        ("text_en", "text_ar"),
        ("feedback_en", "feedback_ar"),
    ]
    extra = 0
    ordering = ["position"]


class MatchPairInline(BilingualFieldsMixin, TranslationStackedInline):
    """A matching question's pairs: a prompt and its match; a match without a prompt is a
    distractor, offered to every prompt."""

    model = MatchPair
    form = InlineRowForm
    formset = MatchPairInlineFormSet
    fields = ["position", ("prompt_en", "prompt_ar"), ("match_en", "match_ar")]
    extra = 0
    ordering = ["position"]


class OrderItemInline(BilingualFieldsMixin, TranslationStackedInline):
    """An ordering question's items, in the right order: learners see them shuffled."""

    model = OrderItem
    form = InlineRowForm
    formset = OrderItemInlineFormSet
    fields = ["position", ("text_en", "text_ar")]
    extra = 0
    ordering = ["position"]


# A question's sections, by the related name of their rows (quizzes/instructors/parts.py): the
# inlines are not the admin's inlines of any page, but say each section's fields, widgets and
# permissions; a question's form holds the sections its kind uses.
SECTION_INLINES = {
    "choices": ChoiceInline,
    "numerical_answers": NumericalAnswerInline,
    "accepted_texts": AcceptedTextInline,
    "pairs": MatchPairInline,
    "order_items": OrderItemInline,
}


class QuestionSectionsMixin:
    """For the admins whose question forms hold the question's parts: the quiz's questions
    inline and the question's own page."""

    def question_form(self, request, form: type[forms.ModelForm]) -> type[forms.ModelForm]:
        """`form` with this request's sections: their formset classes, and which of them the
        instructor may change."""
        formsets = {}
        changeable = set()
        for section, inline_class in SECTION_INLINES.items():
            inline = inline_class(Question, self.admin_site)
            if not inline.has_view_or_change_permission(request):
                continue
            formset = inline.get_formset(request, None)
            formset.can_add = inline.has_add_permission(request, None)
            # The factory's class says renderer None; the section's is Jinja2's (parts.py).
            formset.renderer = ROWS
            formset.layout = tuple(
                tuple(line) if isinstance(line, (list, tuple)) else (line,)
                for line in inline.fields
            )
            formsets[section] = formset
            if inline.has_change_permission(request):
                changeable.add(section)
        attrs = {
            "section_formsets": formsets,
            "changeable_sections": frozenset(changeable),
            "layout": tuple(
                tuple(line) if isinstance(line, (list, tuple)) else (line,)
                for line in getattr(self, "fields", None) or ()
            ),
        }
        return type(form.__name__, (form,), attrs)


class QuestionPartsPageMixin:
    """For the quiz's and the question's pages: the page's templates of a question's sections
    (one per section, whatever the number of questions), and the admin's history of a change
    naming the parts added, changed and deleted too."""

    def render_change_form(self, request, context, *args, **kwargs):
        context["upload_limits"] = upload_limits()
        adminform = context.get("adminform")
        if adminform is not None and hasattr(adminform.form, "part_formsets"):
            context["section_templates"] = section_templates(type(adminform.form))
        for inline in context.get("inline_admin_formsets") or []:
            if hasattr(inline.formset.form, "section_formsets"):
                context["section_templates"] = section_templates(
                    inline.formset.form, question_prefix=inline.formset.prefix
                )
        return super().render_change_form(request, context, *args, **kwargs)

    def construct_change_message(self, request, form, formsets, add=False):
        parts = [
            formset
            for formset in part_formsets_of(
                [form, *(row for formset in formsets for row in formset.forms)]
            )
            if hasattr(formset, "new_objects")
        ]
        return super().construct_change_message(request, form, [*formsets, *parts], add)
