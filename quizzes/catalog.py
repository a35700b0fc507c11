"""The catalog and the guide pages: which published quizzes a learner sees, in what order.

Every listing is a page of at most PER_PAGE quizzes, and every statement it sends is about
that page or a count, so a page costs the same few statements with ten quizzes or with ten
thousand: the filtered count, the page (its question counts as subqueries of its rows), and,
for a signed-in learner, the page's progress and mastery. On PostgreSQL none of them reads
every quiz either (indexes in migration 0006; docs/operations.md).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from django import forms
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.paginator import Page, Paginator
from django.db.models import Count, Exists, IntegerField, OrderBy, OuterRef, Subquery
from django.forms.utils import flatatt
from django.http import QueryDict
from django.template.loader import render_to_string
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from .mastery import Level, answered_quiz_levels, guide_levels, quiz_levels
from .models import Attempt, Guide, Quiz, QuizQuerySet, catalog_title
from .search import search_words

if TYPE_CHECKING:
    from django.contrib.auth.models import User

PER_PAGE = 20


class Progress:
    """The learner's own filter values: where they stand with a quiz."""

    NOT_STARTED = "not-started"
    IN_PROGRESS = "in-progress"
    FINISHED = "finished"
    CHOICES = [
        ("", _("Any")),
        (NOT_STARTED, _("Not started")),
        (IN_PROGRESS, _("In progress")),
        (FINISHED, _("Finished")),
    ]


class QuickSelect(forms.Select):
    """A select built in Python rather than from a template per option: the guide filter
    lists every guide on every catalog page."""

    def render(
        self,
        name: str,
        value: Any,
        attrs: dict[str, Any] | None = None,
        renderer: Any = None,
    ) -> SafeString:
        selected = "" if value is None else str(value)
        options = format_html_join(
            "",
            '<option value="{}"{}>{}</option>',
            (
                (choice, " selected" if str(choice) == selected else "", label)
                for choice, label in self.choices
            ),
        )
        final_attrs = self.build_attrs(self.attrs, {**(attrs or {}), "name": name})
        return format_html("<select{}>{}</select>", flatatt(final_attrs), options)


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
        label=_("Difficulty"),
        required=False,
        choices=[("", _("Any")), *Quiz.Difficulty.choices],
        widget=QuickSelect,
    )
    guide = forms.ChoiceField(label=_("Guide"), required=False, widget=QuickSelect)
    status = forms.ChoiceField(
        label=_("Your progress"), required=False, choices=Progress.CHOICES, widget=QuickSelect
    )
    mastery = forms.ChoiceField(
        label=_("Your mastery"),
        required=False,
        choices=[("", _("Any")), *Level.choices],
        widget=QuickSelect,
    )

    def __init__(self, data: QueryDict, *, guides: list[tuple[str, str]], signed_in: bool) -> None:
        super().__init__(data)
        guide = self.fields["guide"]
        assert isinstance(guide, forms.ChoiceField)
        guide.choices = [("", _("Any")), *guides]
        if not signed_in:
            del self.fields["status"]
            del self.fields["mastery"]

    def value(self, name: str) -> str:
        """The field's valid value, or "" when absent or refused."""
        if name not in self.fields or not self.is_valid() and name in self.errors:
            return ""
        return str(self.cleaned_data.get(name) or "")

    @property
    def is_filtered(self) -> bool:
        return any(self.value(name) for name in ("q", "difficulty", "guide", "status", "mastery"))


def listed_guides() -> list[tuple[str, str]]:
    """(slug, title in the page's language) of the guides with a published quiz, by title."""
    published = Quiz.objects.published().filter(guide=OuterRef("pk"))
    rows = (
        Guide.objects.filter(Exists(published))
        .annotate(label=catalog_title(_language()))
        .order_by("label", "pk")
        .values_list("slug", "label")
    )
    return list(rows)


def _language() -> str:
    return (get_language() or settings.LANGUAGE_CODE).split("-")[0]


def _by_title() -> list[OrderBy | str]:
    return [catalog_title(_language()).asc(), "pk"]


def catalog_quizzes(
    *,
    user: User | AnonymousUser,
    query: str = "",
    difficulty: str = "",
    guide: str = "",
    status: str = "",
    mastery: str = "",
) -> QuizQuerySet:
    """Published quizzes matching a search (every word, in either language) and filters;
    the learner's own filters (progress, mastery) only for a signed-in learner."""
    quizzes: QuizQuerySet = Quiz.objects.published()
    for word in search_words(query):
        quizzes = quizzes.filter(search_text__contains=word)
    if difficulty:
        quizzes = quizzes.filter(difficulty=difficulty)
    if guide:
        quizzes = quizzes.filter(guide__slug=guide)
    if status and user.is_authenticated:
        mine = Attempt.objects.filter(user=user, quiz=OuterRef("pk"))
        started, open_ = Exists(mine), Exists(mine.running())
        # As the cards show it: an attempt in progress makes a quiz "in progress", even if
        # an earlier attempt finished; one past its deadline is over.
        quizzes = quizzes.filter(
            {
                Progress.NOT_STARTED: ~started,
                Progress.IN_PROGRESS: open_,
                Progress.FINISHED: started & ~open_,
            }[status]
        )
    if mastery and user.is_authenticated:
        levels = answered_quiz_levels(user_id=user.pk)
        if mastery == Level.NOT_STARTED:
            quizzes = quizzes.exclude(pk__in=list(levels))
        else:
            quizzes = quizzes.filter(
                pk__in=[pk for pk, level in levels.items() if level == mastery]
            )
    return quizzes.order_by(*_by_title())


def guides_with_counts(*, user: User | AnonymousUser) -> list[Guide]:
    """Guides with published quizzes, by title, each with `quiz_count` and, for a signed-in
    learner, `mastery` (quizzes.mastery)."""
    published = (
        Quiz.objects.published()
        .filter(guide=OuterRef("pk"))
        .order_by()
        .values("guide")
        .annotate(n=Count("pk"))
        .values("n")
    )
    guides: list[Guide] = list(
        Guide.objects.annotate(quiz_count=Subquery(published, output_field=IntegerField()))
        .filter(quiz_count__gt=0)
        .order_by(catalog_title(_language()), "pk")
    )
    if user.is_authenticated and guides:
        levels = guide_levels(user_id=user.pk, guide_ids=[guide.pk for guide in guides])
        for guide in guides:
            guide.mastery = levels[guide.pk]  # type: ignore[attr-defined]
    return guides


def guide_quizzes(guide: Guide) -> QuizQuerySet:
    """The guide's published quizzes in the guide's order."""
    quizzes: QuizQuerySet = Quiz.objects.published().filter(guide=guide)
    return quizzes.order_by("guide_position", "title_en", "pk")


# A card's markup depends on the quiz's own fields alone, never on the learner (their
# progress is added around it); each process keeps the last cards it rendered, keyed by
# every value a card shows, so an edit makes a new key and nothing needs invalidating.
_CARD_FIELDS = [
    "pk",
    "slug",
    "difficulty",
    "question_count",
    *(f"{field}_{code}" for field in ("title", "description") for code, _ in settings.LANGUAGES),
]
_GUIDE_FIELDS = ["slug", *(f"title_{code}" for code, _ in settings.LANGUAGES)]
_CARDS_KEPT = 2000
_cards: OrderedDict[tuple[Any, ...], str] = OrderedDict()
_cards_lock = threading.Lock()


def card(quiz: Quiz, *, show_guide: bool) -> str:
    """The card of a quiz (without the learner's progress), as `_quiz_list.html#card`
    renders it in the active language."""
    key = (
        _language(),
        show_guide,
        *(getattr(quiz, name) for name in _CARD_FIELDS),
        *(getattr(quiz.guide, name) for name in _GUIDE_FIELDS),
    )
    html = _cards.get(key)
    if html is None:
        html = render_to_string(
            "quizzes/_quiz_list.html#card", {"quiz": quiz, "show_guide": show_guide}
        )
        with _cards_lock:
            _cards[key] = html
            while len(_cards) > _CARDS_KEPT:
                _cards.popitem(last=False)
    return html


@dataclass
class Listing:
    page: Page[Any]
    quizzes: Sequence[Quiz]
    show_guide: bool = True

    @cached_property
    def cards(self) -> list[tuple[Quiz, SafeString]]:
        return [(quiz, mark_safe(card(quiz, show_guide=self.show_guide))) for quiz in self.quizzes]

    @property
    def page_range(self) -> Iterator[int | str]:
        return self.page.paginator.get_elided_page_range(self.page.number, on_each_side=2)


def listing_page(
    quizzes: QuizQuerySet,
    *,
    user: User | AnonymousUser,
    page: str | None,
    show_guide: bool = True,
) -> Listing:
    """One page of `quizzes`, each with its question count and, signed in, the learner's
    progress (`quiz.progress`, see `AttemptQuerySet.progress_by_quiz`)."""
    quizzes = quizzes.select_related("guide").with_question_count()
    current = Paginator(quizzes, PER_PAGE).get_page(page)
    shown = list(current.object_list)
    if user.is_authenticated and shown:
        progress = Attempt.objects.filter(
            user=user, quiz__in=[quiz.pk for quiz in shown]
        ).progress_by_quiz()
        levels = quiz_levels(
            user_id=user.pk,
            question_counts={quiz.pk: getattr(quiz, "question_count", 0) or 0 for quiz in shown},
        )
        for quiz in shown:
            quiz.progress = progress.get(quiz.pk)  # type: ignore[attr-defined]
            quiz.mastery = levels[quiz.pk]  # type: ignore[attr-defined]
    return Listing(page=current, quizzes=shown, show_guide=show_guide)
