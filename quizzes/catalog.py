"""The catalog and the guide pages: which published quizzes a learner sees, in what order.

Every listing is a page of at most PER_PAGE quizzes, and every statement it sends is about
that page or a count, so a page costs the same few statements with ten quizzes or with ten
thousand. What every learner sees alike (the filtered count, the page's cards, the guides to
filter by) is read once per catalog version and kept by each process (`catalog_version`, one
indexed statement per request); what is the learner's own (their progress, their mastery, and
the listings filtered by them) is read per request. On PostgreSQL no statement reads every
quiz (indexes in migrations 0006 and 0012; docs/operations.md).
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, fields
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django import forms
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.paginator import Page, Paginator
from django.db.models import (
    Count,
    Exists,
    IntegerField,
    OrderBy,
    OuterRef,
    Subquery,
)
from django.forms.utils import flatatt
from django.http import QueryDict
from django.template.loader import render_to_string
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from .mastery import Level, answered_quiz_levels, guide_levels, quiz_levels
from .models import (
    PROGRESS_COLUMNS,
    Attempt,
    CatalogChange,
    Guide,
    Quiz,
    QuizQuerySet,
    catalog_title,
    progress_of_attempts,
)
from .search import search_text_refresh, search_words
from .statements import PreparedQuery, list_slots, list_values

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
        # Lazily: the guides are listed only to render the form (kept rendered per version:
        # catalog.html) or to check a guide asked for, not on every request.
        guide.choices = lambda: [("", _("Any")), *guides]
        if not signed_in:
            del self.fields["status"]
            del self.fields["mastery"]

    def value(self, name: str) -> str:
        """The field's valid value, or "" when absent or refused."""
        if name not in self.fields or not self.is_valid() and name in self.errors:
            return ""
        return str(self.cleaned_data.get(name) or "")


@dataclass(frozen=True)
class CatalogQuery:
    """What a catalog request asks for, as `CatalogForm` reads it: each filter's valid value,
    "" when absent or refused."""

    q: str = ""
    difficulty: str = ""
    guide: str = ""
    status: str = ""
    mastery: str = ""

    @property
    def is_filtered(self) -> bool:
        return any((self.q, self.difficulty, self.guide, self.status, self.mastery))


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


# What every learner sees alike in a listing (the count, the page's cards, the guides to
# filter by) is kept per process and keyed by the catalog's version: the newest row the
# database's triggers added for a write that may change a listing (models.CatalogChange).
# Compiled once per process (quizzes/statements.py).
_VERSION = PreparedQuery(lambda: CatalogChange.objects.order_by("-pk").values("pk", "token")[:1])
_last_version: tuple[Any, ...] | None = None
_KEPT = 512


def catalog_version() -> tuple[Any, ...]:
    """What changes whenever a listing may: a quiz or a guide written, made or deleted, a
    question added, deleted or moved, by any path (the admin, an import, the shell, a
    script's `bulk_create` or `update`). One read of a primary key's index, however many
    quizzes there are.

    A quiz written around `Quiz.save()` (`bulk_create`, as the shell or a script may) has no
    search text yet: the first listing of a new version gives it one, so search finds it.
    """
    global _last_version
    rows = _VERSION.rows()
    version = tuple(rows[0].values()) if rows else ()
    if version != _last_version:
        search_text_refresh(Quiz.objects.filter(search_text=""))
        _last_version = version
    return version


@functools.lru_cache(maxsize=_KEPT)
def _listed_guides(version: tuple[Any, ...], language: str) -> list[tuple[str, str]]:
    published = Quiz.objects.published().filter(guide=OuterRef("pk"))
    rows = (
        Guide.objects.filter(Exists(published))
        .annotate(label=catalog_title(language))
        .order_by("label", "pk")
        .values_list("slug", "label")
    )
    return list(rows)


def listed_guides(*, version: tuple[Any, ...]) -> list[tuple[str, str]]:
    """(slug, title in the page's language) of the guides with a published quiz, by title."""
    return _listed_guides(version, _language())


def catalog_form(data: QueryDict, *, version: tuple[Any, ...], signed_in: bool) -> CatalogForm:
    """The catalog's search and filters for a request's query string."""
    return CatalogForm(data, guides=listed_guides(version=version), signed_in=signed_in)


@functools.lru_cache(maxsize=_KEPT)
def _catalog_query(version: tuple[Any, ...], signed_in: bool, querystring: str) -> CatalogQuery:
    form = catalog_form(QueryDict(querystring), version=version, signed_in=signed_in)
    return CatalogQuery(**{field.name: form.value(field.name) for field in fields(CatalogQuery)})


def catalog_query(data: QueryDict, *, version: tuple[Any, ...], signed_in: bool) -> CatalogQuery:
    """What the query string asks for, as `catalog_form` reads it: kept per process for each
    catalog version (a guide's slug is valid while it has a published quiz) and query string,
    so that a request builds no form unless its page shows it (catalog.html keeps it rendered)."""
    return _catalog_query(version, signed_in, data.urlencode())


@dataclass(frozen=True)
class CardOnPage:
    """A quiz of a listing as every learner sees it."""

    pk: int
    question_count: int
    html: SafeString


@dataclass(frozen=True)
class SharedPage:
    """A page of a listing without the learner: how many quizzes match, the page's number
    (a number out of range or not a number shows the nearest page) and its cards."""

    count: int
    number: int
    cards: tuple[CardOnPage, ...]


def _page_of(quizzes: QuizQuerySet, *, page: str, show_guide: bool) -> SharedPage:
    quizzes = quizzes.select_related("guide").with_question_count()
    current = Paginator(quizzes, PER_PAGE).get_page(page)
    return SharedPage(
        count=current.paginator.count,
        number=current.number,
        cards=tuple(
            CardOnPage(
                pk=quiz.pk,
                question_count=getattr(quiz, "question_count", 0) or 0,
                html=mark_safe(card(quiz, show_guide=show_guide)),
            )
            for quiz in current.object_list
        ),
    )


@functools.lru_cache(maxsize=_KEPT)
def _shared_catalog_page(
    version: tuple[Any, ...],
    language: str,
    words: tuple[str, ...],
    difficulty: str,
    guide: str,
    page: str,
) -> SharedPage:
    quizzes = catalog_quizzes(
        user=AnonymousUser(), query=" ".join(words), difficulty=difficulty, guide=guide
    )
    return _page_of(quizzes, page=page, show_guide=True)


@functools.lru_cache(maxsize=_KEPT)
def _shared_guide_page(
    version: tuple[Any, ...], language: str, guide_id: int, page: str
) -> SharedPage:
    quizzes: QuizQuerySet = Quiz.objects.published().filter(guide_id=guide_id)
    return _page_of(
        quizzes.order_by("guide_position", "title_en", "pk"), page=page, show_guide=False
    )


@functools.lru_cache(maxsize=_KEPT)
def _card_state(
    language: str,
    in_progress: int,
    overdue: int,
    finished: int,
    best_score: Decimal | None,
    best_total: int | None,
    mastery: str,
) -> SafeString:
    progress = {
        "in_progress": in_progress,
        "overdue": overdue,
        "finished": finished,
        "best_score": best_score,
        "best_total": best_total,
    }
    html = render_to_string(
        "quizzes/_quiz_list.html#card_state", {"progress": progress, "mastery": mastery}
    )
    return mark_safe(html)


def card_state(progress: dict[str, Any] | None, mastery: str, *, language: str) -> SafeString:
    """Where the learner stands with a quiz, under its card, in `language`: `progress` as
    `progress_of_attempts` gives it (None: never started), `mastery` a Level.
    Learners share the few states there are, so each is rendered once per process."""
    progress = progress or {}
    return _card_state(
        language,
        progress.get("in_progress", 0),
        progress.get("overdue", 0),
        progress.get("finished", 0),
        progress.get("best_score"),
        progress.get("best_total"),
        mastery,
    )


@dataclass(frozen=True)
class CardOfLearner:
    """A card, and under it where the learner stands with its quiz ("" signed out)."""

    html: SafeString
    state: SafeString = mark_safe("")


@dataclass
class Listing:
    page: Page[Any]
    cards: list[CardOfLearner]

    @property
    def page_range(self) -> Iterator[int | str]:
        return self.page.paginator.get_elided_page_range(self.page.number, on_each_side=2)

    @functools.cached_property
    def cards_html(self) -> SafeString:
        """The cards as `_quiz_list.html#cards` lists them: joined here, not by a template
        loop (or `format_html`, which escapes each part again), both costing more than the rest
        of the list. Each part is HTML rendered by a template already (CardOfLearner)."""
        return mark_safe(
            "".join(f'<li class="card">{card.html}{card.state}</li>' for card in self.cards)
        )


# The learner's attempts on a page's quizzes, compiled once per process
# (quizzes/statements.py); a page of fewer quizzes repeats one.
_PAGE_PROGRESS = PreparedQuery(
    lambda user_id, **quizzes: (
        Attempt.objects.filter(user_id=user_id, quiz_id__in=list(quizzes.values()))
        .order_by()
        .values(*PROGRESS_COLUMNS)
    ),
    "user_id",
    *list_slots("quiz", PER_PAGE),
)


def _for_learner(shared: SharedPage, *, user: User | AnonymousUser) -> Listing:
    """The listing of `shared` for `user`: with their progress and mastery, signed in."""
    # The page's numbers without reading the quizzes again: a Paginator over a range.
    page = Paginator(range(shared.count), PER_PAGE).page(shared.number)
    if not user.is_authenticated or not shared.cards:
        return Listing(page=page, cards=[CardOfLearner(html=card.html) for card in shared.cards])
    ids = [card.pk for card in shared.cards]
    progress = progress_of_attempts(
        _PAGE_PROGRESS.rows(user_id=user.pk, **list_values("quiz", ids, PER_PAGE))
    )
    # Mastery comes from answers, and a quiz never attempted has none (a review card comes
    # from a quiz's answer): only the quizzes attempted are asked about, often none.
    levels = quiz_levels(
        user_id=user.pk,
        question_counts={
            card.pk: card.question_count for card in shared.cards if card.pk in progress
        },
    )
    language = _language()
    return Listing(
        page=page,
        cards=[
            CardOfLearner(
                html=card.html,
                state=card_state(
                    progress.get(card.pk),
                    levels.get(card.pk, Level.NOT_STARTED),
                    language=language,
                ),
            )
            for card in shared.cards
        ],
    )


def catalog_listing(
    *,
    user: User | AnonymousUser,
    version: tuple[Any, ...],
    page: str | None,
    query: CatalogQuery = CatalogQuery(),
) -> Listing:
    """A page of the catalog for `user` under `query` (`catalog_query`): the shared part kept
    per catalog version, except under the learner's own filters (progress, mastery), which
    only they see."""
    if user.is_authenticated and (query.status or query.mastery):
        quizzes = catalog_quizzes(
            user=user,
            query=query.q,
            difficulty=query.difficulty,
            guide=query.guide,
            status=query.status,
            mastery=query.mastery,
        )
        shared = _page_of(quizzes, page=page or "", show_guide=True)
    else:
        shared = _shared_catalog_page(
            version,
            _language(),
            tuple(search_words(query.q)),
            query.difficulty,
            query.guide,
            page or "",
        )
    return _for_learner(shared, user=user)


def guide_listing(
    guide: Guide, *, user: User | AnonymousUser, version: tuple[Any, ...], page: str | None
) -> Listing:
    """A page of the guide's published quizzes in the guide's order, for `user`."""
    return _for_learner(_shared_guide_page(version, _language(), guide.pk, page or ""), user=user)
