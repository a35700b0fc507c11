"""The catalog, the guides and a quiz's page: what a learner can take."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers

from .. import catalog as catalog_service
from ..attempts.services import quiz_start_rules
from ..content import catalog_generation, quiz_content
from ..forms import CatalogForm
from ..mastery import quiz_levels
from ..models import Attempt, Guide
from .common import HtmxHttpRequest, page_or_fragment, published_quiz


@require_safe
@vary_on_headers("HX-Request")
def catalog(request: HtmxHttpRequest) -> HttpResponse:
    """Published quizzes, a page at a time; searched and filtered by the query string. To
    htmx (the search form as the learner types, the pager) only the results."""
    form = CatalogForm(request.GET, signed_in=request.user.is_authenticated)
    query = form.query
    listing = catalog_service.catalog_listing(
        user=request.user, page=request.GET.get("page"), query=query
    )
    return render(
        request,
        page_or_fragment(request, "quizzes/catalog.html", "results"),
        # The generation keys the filters kept rendered (catalog.html): their guides change
        # with it.
        {"form": form, "query": query, "listing": listing, "generation": catalog_generation()},
    )


@require_safe
def guide_list(request: HtmxHttpRequest) -> HttpResponse:
    guides = catalog_service.guides_with_counts(user=request.user)
    return render(request, "quizzes/guides.html", {"guides": guides})


@require_safe
@vary_on_headers("HX-Request")
def guide_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """A guide's published quizzes in its order, with the learner's progress."""
    guide = get_object_or_404(Guide, slug=slug)
    listing = catalog_service.guide_listing(guide, user=request.user, page=request.GET.get("page"))
    return render(
        request,
        page_or_fragment(request, "quizzes/guide.html", "results"),
        {"guide": guide, "listing": listing},
    )


@require_safe
def quiz_detail(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    quiz = published_quiz(slug)
    content = quiz_content(quiz)
    best = mastery = availability = None
    if request.user.is_authenticated:
        availability = quiz_start_rules(user=request.user, quiz=quiz)
        best = Attempt.objects.filter(user=request.user, quiz=quiz).best_first().first()
        mastery = quiz_levels(user_id=request.user.pk, question_counts={quiz.pk: content.count})[
            quiz.pk
        ]
    return render(
        request,
        "quizzes/detail.html",
        {
            "quiz": quiz,
            "content": content,
            "availability": availability,
            "in_progress": availability.in_progress if availability else None,
            "best": best,
            "mastery": mastery,
        },
    )
