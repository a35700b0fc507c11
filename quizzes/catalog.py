"""The catalog and the guide pages: which published quizzes a learner sees, in what order.

Selectors only: the search form is quizzes.forms.CatalogForm, the cards are templates
(quizzes/_quiz_list.html). Every listing is a page of at most PER_PAGE quizzes, and every
statement it sends is about that page or a count, so a page costs the same few statements
with ten quizzes or with ten thousand. What every learner sees alike (the guides to filter
by, the count of what matches and the page's quizzes) is kept in the cache under the
catalog's generation (quizzes.content.catalog_generation), which every edit moves; what is
the learner's own (their progress, their mastery, and the listings filtered by them) is read
per request. On PostgreSQL no statement reads every quiz (indexes in migrations 0006 and 0012;
docs/operations.md).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.core.paginator import Page, Paginator
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    IntegerField,
    OrderBy,
    OuterRef,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import StrIndex
from django.db.models.lookups import LessThan
from django.utils.translation import get_language, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from .content import catalog_generation
from .mastery import Level, answered_quiz_levels, attempts_and_levels, guide_levels
from .models import (
    Attempt,
    Guide,
    Quiz,
    QuizQuerySet,
    catalog_title,
    progress_of_attempts,
)
from .search import (
    search_title_end,
    search_token,
    search_vocabulary,
    search_words,
    search_words_corrected,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User

PER_PAGE = 20
# What the cache keeps of a listing lives at most this long: an edit made around
# `content_changed` (a script's `update`) shows within it.
LISTING_SECONDS = 5 * 60


class Progress:
    """The learner's own filter values: where they stand with a quiz."""

    NOT_STARTED = "not-started"
    IN_PROGRESS = "in-progress"
    FINISHED = "finished"
    CHOICES = [
        ("", _("Any")),
        (NOT_STARTED, _("Not started")),
        (IN_PROGRESS, _("In progress")),
        (FINISHED, pgettext_lazy("a quiz, as a filter of the catalog", "Finished")),
    ]


@dataclass(frozen=True)
class CatalogQuery:
    """What a catalog request asks for: each filter's valid value, "" when absent or refused
    (quizzes.forms.CatalogForm.query reads it from the query string)."""

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


def _kept[T](name: str, parts: tuple[Any, ...], build: Callable[[], T]) -> T:
    """`build()`, kept in the cache for this catalog generation, language and `parts`."""
    digest = hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()[:32]
    key = f"catalog:{name}:{catalog_generation()}:{_language()}:{digest}"
    return cast(T, cache.get_or_set(key, build, LISTING_SECONDS))


def catalog_quizzes(
    *,
    user: User | AnonymousUser,
    query: str = "",
    words: list[str] | None = None,
    difficulty: str = "",
    guide: str = "",
    status: str = "",
    mastery: str = "",
) -> QuizQuerySet:
    """Published quizzes matching a search (every word, in either language; or `words`,
    already stemmed) and filters; the learner's own filters (progress, mastery) only for a
    signed-in learner."""
    quizzes: QuizQuerySet = Quiz.objects.published()
    if words is None:
        words = search_words(query)
    for word in words:
        quizzes = quizzes.filter(search_text__contains=search_token(word))
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
    if words:
        # Quizzes with more of the words in their titles first: a word's first token lies
        # before the end of the titles' tokens.
        title_end = StrIndex("search_text", Value(search_title_end()))
        title_hits = [
            Case(
                When(
                    LessThan(StrIndex("search_text", Value(search_token(word))), title_end), then=1
                ),
                default=0,
            )
            for word in words
        ]
        quizzes = quizzes.alias(title_hits=sum(title_hits[1:], title_hits[0]))
        return quizzes.order_by(F("title_hits").desc(), *_by_title())
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


def listed_guides() -> list[tuple[str, str]]:
    """(slug, title in the page's language) of the guides with a published quiz, by title."""

    def build() -> list[tuple[str, str]]:
        published = Quiz.objects.published().filter(guide=OuterRef("pk"))
        rows = (
            Guide.objects.filter(Exists(published))
            .annotate(label=catalog_title(_language()))
            .order_by("label", "pk")
            .values_list("slug", "label")
        )
        return list(rows)

    return _kept("guides", (), build)


@dataclass(frozen=True)
class SharedPage:
    """A page of a listing without the learner: how many quizzes match, the page's number
    (a number out of range or not a number shows the nearest page) and its quizzes, each with
    its guide and `question_count`."""

    count: int
    number: int
    quizzes: tuple[Quiz, ...]


def _page_of(quizzes: QuizQuerySet, *, page: str) -> SharedPage:
    quizzes = quizzes.select_related("guide").with_question_count()
    current = Paginator(quizzes, PER_PAGE).get_page(page)
    return SharedPage(
        count=current.paginator.count, number=current.number, quizzes=tuple(current.object_list)
    )


@dataclass(frozen=True)
class CatalogCard:
    """A quiz of a listing, and where the learner stands with it: `progress` as
    `progress_of_attempts` gives it (None: never started), `mastery` a Level."""

    quiz: Quiz
    progress: dict[str, Any] | None = None
    mastery: str = Level.NOT_STARTED


@dataclass
class Listing:
    page: Page[Any]
    cards: list[CatalogCard]
    # The guide's name on each card (the catalog), or not (a guide's own page).
    show_guide: bool = True
    # The search found nothing as typed; these are the quizzes of its closest spelling.
    corrected: bool = False

    @property
    def page_range(self) -> Iterator[int | str]:
        return self.page.paginator.get_elided_page_range(self.page.number, on_each_side=2)


def _for_learner(
    shared: SharedPage, *, user: User | AnonymousUser, show_guide: bool = True
) -> Listing:
    """The listing of `shared` for `user`: with their progress and mastery, signed in."""
    # The page's numbers without reading the quizzes again: a Paginator over a range.
    page = Paginator(range(shared.count), PER_PAGE).page(shared.number)
    if not user.is_authenticated or not shared.quizzes:
        cards = [CatalogCard(quiz=quiz) for quiz in shared.quizzes]
        return Listing(page=page, cards=cards, show_guide=show_guide)
    # Mastery comes from answers, and a quiz never attempted has none (a review card comes
    # from a quiz's answer): only the quizzes attempted have a level.
    attempts, levels = attempts_and_levels(
        user_id=user.pk,
        question_counts={
            quiz.pk: quiz.question_count or 0  # type: ignore[attr-defined]
            for quiz in shared.quizzes
        },
    )
    progress = progress_of_attempts(attempts)
    cards = [
        CatalogCard(
            quiz=quiz,
            progress=progress.get(quiz.pk),
            mastery=levels.get(quiz.pk, Level.NOT_STARTED),
        )
        for quiz in shared.quizzes
    ]
    return Listing(page=page, cards=cards, show_guide=show_guide)


def search_vocabulary_kept() -> list[str]:
    """The tokens of the published quizzes' search text, kept per catalog generation: read
    only when a search finds nothing, to correct its typos."""

    def build() -> list[str]:
        texts = Quiz.objects.published().order_by().values_list("search_text", flat=True)
        return search_vocabulary(texts.iterator(chunk_size=2000))

    return _kept("vocabulary", (), build)


def catalog_listing(
    *, user: User | AnonymousUser, page: str | None, query: CatalogQuery = CatalogQuery()
) -> Listing:
    """A page of the catalog for `user` under `query`: the shared part kept per catalog
    generation, except under the learner's own filters (progress, mastery), which only they
    see. A search that finds nothing is tried again with its typos corrected
    (`Listing.corrected`)."""
    words = search_words(query.q)

    def shared_for(words: list[str]) -> SharedPage:
        if user.is_authenticated and (query.status or query.mastery):
            quizzes = catalog_quizzes(
                user=user,
                words=words,
                difficulty=query.difficulty,
                guide=query.guide,
                status=query.status,
                mastery=query.mastery,
            )
            return _page_of(quizzes, page=page or "")

        def build() -> SharedPage:
            quizzes = catalog_quizzes(
                user=AnonymousUser(),
                words=words,
                difficulty=query.difficulty,
                guide=query.guide,
            )
            return _page_of(quizzes, page=page or "")

        return _kept("page", (words, query.difficulty, query.guide, page or ""), build)

    shared = shared_for(words)
    corrected = False
    if not shared.count and words:
        fixed = search_words_corrected(words, search_vocabulary_kept())
        # Said only when the closest spelling finds something: "nothing matched as typed, here
        # is what its closest spelling matches" above "no quiz matches" would contradict itself.
        if fixed != words and (found := shared_for(fixed)).count:
            shared, corrected = found, True
    listing = _for_learner(shared, user=user)
    listing.corrected = corrected
    return listing


def guide_listing(guide: Guide, *, user: User | AnonymousUser, page: str | None) -> Listing:
    """A page of the guide's published quizzes in the guide's order, for `user`."""

    def build() -> SharedPage:
        quizzes: QuizQuerySet = Quiz.objects.published().filter(guide_id=guide.pk)
        return _page_of(quizzes.order_by("guide_position", "title_en", "pk"), page=page or "")

    shared = _kept("guide", (guide.pk, page or ""), build)
    return _for_learner(shared, user=user, show_guide=False)
