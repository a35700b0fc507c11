"""A learner's own record: their attempts, and problems they report with a question."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import get_language_bidi
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers

from .. import history as history_stats
from .. import reports
from ..attempts.services import attempts_close_overdue
from ..calibration import calibration
from ..forms import ReportForm
from ..models import Attempt
from .common import LearnerRequest, learner_required, page_or_fragment, same_site_path


@require_safe
@learner_required
def history(request: LearnerRequest) -> HttpResponse:
    # Attempts past their deadline are over: scored before they are listed (one statement
    # when there are none).
    attempts_close_overdue(user=request.user)
    attempts = (
        Attempt.objects.filter(user=request.user)
        .select_related("quiz")
        .order_by("-started_at", "-pk")
    )
    page = Paginator(attempts, 20).get_page(request.GET.get("page"))
    summaries = history_stats.per_quiz(request.user)
    chart = history_stats.score_chart(request.user, right_to_left=get_language_bidi())
    guides = history_stats.guide_mastery(request.user, summaries)
    return render(
        request,
        "quizzes/history.html",
        {
            "page": page,
            "summaries": summaries,
            "chart": chart,
            "guides": guides,
            "calibration": calibration(user_id=request.user.pk),
        },
    )


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
@learner_required
def question_report(request: LearnerRequest, pk: int) -> HttpResponse:
    """Report a problem with a question the learner has answered: a page, or within the
    feedback for htmx (`report_form`, then `report_done`)."""
    question = reports.reportable_question(user=request.user, question_pk=pk)
    if question is None:
        raise Http404("No such question among the learner's answers.")
    next_url = same_site_path(request)
    template = "quizzes/report.html"
    existing = reports.open_report(user=request.user, question=question)
    form = ReportForm(request.POST if request.method == "POST" else None)
    context = {"question": question, "quiz": question.quiz, "next": next_url, "form": form}
    if existing is not None:
        template = page_or_fragment(request, template, "report_done")
        return render(request, template, {**context, "already": True})
    status, retry_after = 200, None
    if request.method == "POST":
        if form.is_valid():
            try:
                reports.report_create(
                    request=request,
                    question=question,
                    reason=form.cleaned_data["reason"],
                    text=form.cleaned_data["text"],
                )
            except reports.ReportError as error:
                context["error"] = error.message
                status, retry_after = error.status, error.retry_after
            else:
                if request.htmx:
                    return render(request, f"{template}#report_done", context)
                messages.success(
                    request, _("Thank you: your report went to the quiz's instructors.")
                )
                return redirect(next_url or "quizzes:history")
        else:
            status = 422
    response = render(
        request, page_or_fragment(request, template, "report_form"), context, status=status
    )
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response
