"""The review page: missed questions, one at a time, as the spaced-review rules offer them.

Parse, call `quizzes.review`, render: one template, `quizzes/review.html`, whose `step`
partial htmx swaps in place; without JavaScript every step is a whole page.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import get_language_bidi
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url
from fsrs import Rating

from ..attempts.responses import RecordedAnswer
from ..calibration import calibration
from ..confidence import LEVEL_NAMES
from ..forms import MAX_ID, AnswerForm, IdField
from ..models import ReviewAnswer
from ..review.badge import review_due_counts
from ..review.services import (
    Review,
    ReviewNotFound,
    ReviewStep,
    review_answer_for,
    review_answer_post,
    review_card_for,
    review_next,
    review_rate,
)
from ..statistics import (
    BAR_GAP,
    CHART_HEIGHT,
    CHART_MARGIN,
    CHART_WIDTH,
    chart_bars,
    review_statistics,
)
from .common import LearnerRequest, answer_data, learner_required

TEMPLATE = "quizzes/review.html"


class ReviewAnswerForm(AnswerForm):
    """A response to the card shown, at the card's revision as shown (see quizzes.review):
    the choices ticked or the number typed, as a quiz's step takes them."""

    card = IdField(min_value=1, max_value=MAX_ID)
    revision = forms.IntegerField(min_value=0, max_value=2**31 - 1)


def _render(
    request: LearnerRequest,
    *,
    step: ReviewStep | None,
    answer: RecordedAnswer | None = None,
    ratings: tuple[Rating, ...] = (),
    form: AnswerForm | None = None,
    error: str = "",
    practise: bool = False,
    status: int = 200,
) -> HttpResponse:
    context: dict[str, object] = {
        "step": step,
        "question": step.question if step else None,
        "choices": step.choices if step else [],
        "parts": step.parts if step else (),
        "answer": answer,
        "verdicts": answer.choice_verdicts(step.choices) if answer and step else [],
        "form": form or AnswerForm(),
        "error": error,
        "practise": practise,
        "confidence_levels": _confidence_levels(step, form)
        if step and answer is None and not practise
        else [],
        "ratings": [(rating.value, RATING_LABELS[rating], str(rating.value)) for rating in ratings],
    }
    # One count of what is due, said on the page and in the navigation's badge alike: read
    # afresh with the card offered (`review_next`), or from the times that read kept.
    due = step.due if step is not None and step.due is not None else None
    if due is None:
        due = review_due_counts(user_id=request.user.pk)
    context["due"] = due
    context["review_due"] = due.now
    if step is None:
        context["next_due_at"] = due.next_due
    htmx_swap = request.htmx and not request.htmx.history_restore_request
    template = f"{TEMPLATE}#step" if htmx_swap else TEMPLATE
    return render(request, template, context, status=status)


def _confidence_levels(step: ReviewStep, form: AnswerForm | None) -> list[tuple[str, Any, bool]]:
    """The radio group `confidence` under the question when the learner's review asks: each
    level's value, name and whether it is picked (as posted back with an error)."""
    if not step.asks_confidence:
        return []
    picked = form.data.get("confidence") if form is not None else None
    return [(str(level), name, str(level) == picked) for level, name in LEVEL_NAMES.items()]


# The self-ratings' buttons: value, label, key (1–4 as in Anki; 1, Again, is what a wrong
# answer gets without asking).
RATING_LABELS: dict[Rating, str | Promise] = {
    Rating(choice.value): choice.label for choice in ReviewAnswer.Rating
}


def _after(value: str) -> int | None:
    return int(value) if value.isdigit() and 0 < int(value) <= MAX_ID else None


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
@learner_required
def review(request: LearnerRequest) -> HttpResponse:
    """GET: the card to review now (or, with ?practise, the next not due yet: after the card
    `after`). POST: an answer (with `practise`, marked and not recorded)."""
    if request.method != "POST":
        practise = "practise" in request.GET
        step = review_next(
            user_id=request.user.pk,
            practise=practise,
            after=_after(request.GET.get("after", "")) if practise else None,
        )
        return _render(request, step=step, practise=practise)

    practise = "practise" in request.POST
    form = ReviewAnswerForm(answer_data(request, "card", "revision"))
    valid = form.is_valid()
    if "card" in form.errors or "revision" in form.errors:
        raise Http404("No such review question.")  # not a form our pages send
    if not valid:
        # Nothing readable (letters for a choice's id): said on the card, nothing written.
        step = _card_or_404(request, form.cleaned_data["card"])
        return _render(request, step=step, form=form, practise=practise, status=422)
    try:
        outcome = review_answer_post(
            user_id=request.user.pk,
            card_id=form.cleaned_data["card"],
            revision=form.cleaned_data["revision"],
            posted=form.posted(),
            practise=practise,
        )
    except ReviewNotFound:
        raise Http404("No such review question.") from None
    if outcome.kind is Review.UNREADABLE:
        # Nothing readable (no choice, a number in letters): said on the step, nothing written.
        form.add_error(outcome.field, str(outcome.message))
        return _render(request, step=outcome.step, form=form, practise=practise, status=422)
    if outcome.kind is Review.REFUSED:
        return _render(
            request, step=outcome.step, error=str(outcome.message), practise=practise, status=409
        )
    if practise:
        # Practice records nothing: its feedback is this response's own, with no address.
        return _render(request, step=outcome.step, answer=outcome.answer, practise=True)
    if outcome.kind is Review.MOVED_ON:
        messages.info(request, str(outcome.message))
        return redirect("quizzes:review")
    assert outcome.answer is not None
    url = reverse("quizzes:review_answer", args=[outcome.answer.pk])
    if request.htmx:
        page = _render(request, step=outcome.step, answer=outcome.answer, ratings=outcome.ratings)
        return push_url(page, url)
    return redirect(url)


@require_POST
@vary_on_headers("HX-Request")
@learner_required
def review_rating(request: LearnerRequest, pk: int) -> HttpResponse:
    """The learner says how hard a right review answer was (Hard, Good or Easy): the answer's
    card is scheduled again so, and the next review question follows."""
    rating = request.POST.get("rating", "")
    if rating not in {"2", "3", "4"}:
        raise Http404("No such rating.")  # not a form our pages send
    try:
        rated = review_rate(user_id=request.user.pk, answer_id=pk, rating=int(rating))
    except ReviewNotFound:
        raise Http404("No such review answer.") from None
    if not rated:
        messages.info(
            request,
            _("This answer can no longer be rated: its question was answered again since."),
        )
    url = reverse("quizzes:review")
    if request.htmx:
        return push_url(_render(request, step=review_next(user_id=request.user.pk)), url)
    return redirect(url)


@require_safe
@learner_required
def review_answer(request: LearnerRequest, pk: int) -> HttpResponse:
    """The feedback of one of the learner's review answers: its own address, for no-JS
    learners after the POST and for the back button."""
    try:
        outcome = review_answer_for(user_id=request.user.pk, answer_id=pk)
    except ReviewNotFound:
        raise Http404("No such review answer.") from None
    return _render(request, step=outcome.step, answer=outcome.answer, ratings=outcome.ratings)


def _card_or_404(request: LearnerRequest, card_id: int) -> ReviewStep:
    try:
        return review_card_for(user_id=request.user.pk, card_id=card_id)
    except ReviewNotFound:
        raise Http404("No such review question.") from None


@require_safe
@learner_required
def review_statistics_page(request: LearnerRequest) -> HttpResponse:
    """The learner's review statistics: what falls due when (a chart and its table), reviews
    done, retention, cards by state."""
    stats = review_statistics(user_id=request.user.pk)
    bars = chart_bars(stats, right_to_left=get_language_bidi())
    return render(
        request,
        "quizzes/review_statistics.html",
        {
            # Read with the cards, as the review page reads it: both and the badge agree.
            "due": stats.due,
            "review_due": stats.due.now,
            "stats": stats,
            "bars": bars,
            "chart_width": CHART_WIDTH,
            # Room either side for the first and last dates, drawn centred under their bars.
            "chart_left": -CHART_MARGIN,
            "chart_span": CHART_WIDTH + 2 * CHART_MARGIN,
            "chart_height": CHART_HEIGHT,
            "bar_width": round(CHART_WIDTH / len(bars) - BAR_GAP, 2),
            "calibration": calibration(user_id=request.user.pk),
        },
    )
