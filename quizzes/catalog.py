"""The catalog and the guide pages: which published quizzes a learner sees, in what order.

Every listing is a page of at most PER_PAGE quizzes, and every statement it sends is about
that page or a count, so a page costs the same few statements with ten quizzes or with ten
thousand: the filtered count, the page (its question counts as subqueries of its rows), and,
for a signed-in learner, the page's progress.
"""

from __future__ import annotations

from dataclasses import dataclass

from django import forms
from django.core.paginator import Page, Paginator
from django.db.models import Count, Exists, IntegerField, OuterRef, QuerySet, Subquery
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from .models import Attempt, Guide, Question, Quiz, catalog_title
from .search import search_words
from .templatetags.daleel import translated_value

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


class CatalogForm(forms.Form):
    """The catalog's search and filters, read from the query string.

    A value the form refuses (a guide that does not exist, a search too long) is shown as an
    error and that filter is left out; the others still apply.
    """

    q = forms.CharField(label=_("Search"), required=False, max_length=200, strip=True)
    difficulty = forms.ChoiceField(
        label=_("Difficulty"),
        required=False,
        choices=[("", _("Any")), *Quiz.Difficulty.choices],
    )
    guide = forms.ChoiceField(label=_("Guide"), required=False)
    status = forms.ChoiceField(label=_("Your progress"), required=False, choices=Progress.CHOICES)

    def __init__(self, data, *, guides: list[Guide], signed_in: bool) -> None:
        super().__init__(data)
        self.fields["guide"].choices = [("", _("Any"))] + [
            (guide.slug, translated_value(guide, "title")[0]) for guide in guides
        ]
        self.fields["q"].widget = forms.SearchInput(attrs={"autocomplete": "off"})
        if not signed_in:
            del self.fields["status"]

    def value(self, name: str) -> str:
        """The field's valid value, or "" when absent or refused."""
        if name not in self.fields or not self.is_valid() and name in self.errors:
            return ""
        return self.cleaned_data.get(name) or ""

    @property
    def is_filtered(self) -> bool:
        return any(self.value(name) for name in ("q", "difficulty", "guide", "status"))


def listed_guides() -> list[Guide]:
    """Guides with at least one published quiz, by title."""
    published = Quiz.objects.published().filter(guide=OuterRef("pk"))
    return list(Guide.objects.filter(Exists(published)).order_by("title", "pk"))


def _by_title() -> list:
    return [catalog_title((get_language() or "en").split("-")[0]).asc(), "pk"]


def catalog_quizzes(
    *, user, query: str = "", difficulty: str = "", guide: str = "", status: str = ""
) -> QuerySet[Quiz]:
    """Published quizzes matching a search (every word, in either language) and filters."""
    quizzes = Quiz.objects.published()
    for word in search_words(query):
        quizzes = quizzes.filter(search_text__contains=word)
    if difficulty:
        quizzes = quizzes.filter(difficulty=difficulty)
    if guide:
        quizzes = quizzes.filter(guide__slug=guide)
    if status and user.is_authenticated:
        mine = Attempt.objects.filter(user=user, quiz=OuterRef("pk"))
        started, open_ = Exists(mine), Exists(mine.in_progress())
        # As the cards show it: an attempt in progress makes a quiz "in progress", even if
        # an earlier attempt finished.
        quizzes = quizzes.filter(
            {
                Progress.NOT_STARTED: ~started,
                Progress.IN_PROGRESS: open_,
                Progress.FINISHED: started & ~open_,
            }[status]
        )
    return quizzes.order_by(*_by_title())


def guides_with_counts() -> list[Guide]:
    """Guides with published quizzes, by title, each with `quiz_count`."""
    published = (
        Quiz.objects.published()
        .filter(guide=OuterRef("pk"))
        .order_by()
        .values("guide")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return list(
        Guide.objects.annotate(quiz_count=Subquery(published, output_field=IntegerField()))
        .filter(quiz_count__gt=0)
        .order_by("title", "pk")
    )


def guide_quizzes(guide: Guide) -> QuerySet[Quiz]:
    """The guide's published quizzes in the guide's order."""
    return Quiz.objects.published().filter(guide=guide).order_by("guide_position", "title_en", "pk")


@dataclass
class Listing:
    page: Page

    @property
    def quizzes(self) -> list[Quiz]:
        return self.page.object_list

    @property
    def page_range(self):
        return self.page.paginator.get_elided_page_range(self.page.number, on_each_side=2)


def listing_page(quizzes: QuerySet[Quiz], *, user, page: str | None) -> Listing:
    """One page of `quizzes`, each with its question count and, signed in, the learner's
    progress (`quiz.progress`, see `AttemptQuerySet.progress_by_quiz`)."""
    questions = (
        Question.objects.filter(quiz=OuterRef("pk"))
        .order_by()
        .values("quiz")
        .annotate(n=Count("pk"))
        .values("n")
    )
    quizzes = quizzes.select_related("guide").annotate(
        question_count=Subquery(questions, output_field=IntegerField())
    )
    current = Paginator(quizzes, PER_PAGE).get_page(page)
    current.object_list = list(current.object_list)
    if user.is_authenticated and current.object_list:
        progress = Attempt.objects.filter(
            user=user, quiz__in=[quiz.pk for quiz in current.object_list]
        ).progress_by_quiz()
        for quiz in current.object_list:
            quiz.progress = progress.get(quiz.pk)
    return Listing(page=current)
