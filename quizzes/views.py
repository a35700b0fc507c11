from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any, Concatenate
from urllib.parse import urlsplit

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.db import connection
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.cache import patch_vary_headers
from django.utils.functional import SimpleLazyObject
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers
from django.views.i18n import set_language as django_set_language
from django_htmx.http import HttpResponseClientRedirect, push_url
from django_htmx.middleware import HtmxDetails

from config.outages import DATABASE_UNREACHABLE, RETRY_AFTER_SECONDS, is_database_outage

from . import catalog as catalog_service
from . import fragments, reports
from . import history as history_stats
from .attempts import (
    AttemptError,
    AttemptState,
    Step,
    attempt_of_learner,
    attempt_settle,
    attempt_start,
    attempt_state,
    attempt_submit_all,
    attempts_close_overdue,
    step_submit,
)
from .availability import DEADLINE_GRACE, quiz_availability
from .content import quiz_content
from .forms import AnswerForm, ReportForm
from .mastery import quiz_levels
from .models import Attempt, Guide, Question, Quiz, past_deadline

if TYPE_CHECKING:
    from django.contrib.auth.models import User

TAKE_TEMPLATE = "quizzes/take.html"


class HtmxHttpRequest(HttpRequest):
    """A request as django-htmx's middleware leaves it (django-htmx's documented pattern)."""

    htmx: HtmxDetails


class LearnerRequest(HtmxHttpRequest):
    """A request that `learner_required` let through: its user is signed in."""

    user: User  # narrowed from User | AnonymousUser


type LearnerView[**P] = Callable[Concatenate[LearnerRequest, P], HttpResponse]
type AnyRequestView[**P] = Callable[Concatenate[HtmxHttpRequest, P], HttpResponse]


def learner_required[**P](view: LearnerView[P]) -> AnyRequestView[P]:
    """Like login_required, but an htmx request is sent to sign in as a whole page.

    (Responses to signed-in learners are kept out of shared caches by
    accounts.middleware.private_when_signed_in.)
    """

    @wraps(view)
    def wrapper(request: HtmxHttpRequest, /, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        if request.user.is_authenticated:
            return view(request, *args, **kwargs)  # type: ignore[arg-type]  # signed in now
        if request.htmx:
            # Back after signing in to the step asked for (Next's address is a whole page too);
            # a form sent is not replayed, so after a POST back to the page it was sent from.
            if request.method == "POST":
                next_url = _current_page(request) or request.get_full_path()
            else:
                next_url = request.get_full_path()
            login = redirect_to_login(next_url)
            return HttpResponseClientRedirect(login["Location"])
        return redirect_to_login(request.get_full_path())

    return wrapper


def _current_page(request: HtmxHttpRequest) -> str | None:
    """The path of the page an htmx request came from, if it is on this site.

    HX-Current-URL is the browser's word, and anyone can send a header that urlsplit refuses
    (`http://[`): that is no page of ours, not a server error.
    """
    try:
        return request.htmx.current_url_abs_path
    except ValueError:
        return None


def _partial(request: HtmxHttpRequest, template: str, fragment: str) -> str:
    """The whole page, or only `fragment` of it for an htmx swap (never for history restore)."""
    if request.htmx and not request.htmx.history_restore_request:
        return f"{template}#{fragment}"
    return template


def _published_quiz(slug: str) -> Quiz:
    quizzes: QuerySet[Quiz] = Quiz.objects.published().select_related("guide")
    return get_object_or_404(quizzes, slug=slug)


def _state_for(
    request: LearnerRequest,
    pk: int,
    *,
    settle: bool = True,
    answering: bool = False,
    question_id: int | None = None,
) -> AttemptState:
    """The signed-in learner's own attempt as it stands, or 404: other learners' attempts do
    not exist. An attempt left with nothing to answer is finished on the way (unless
    `settle` is False: a posted answer is `step_submit`'s to refuse, saying why).
    `answering`, `question_id`: as `attempt_of_learner` takes them."""
    state = attempt_of_learner(
        user=request.user, pk=pk, answering=answering, question_id=question_id
    )
    if state is None:
        raise Http404("No such attempt.")
    if settle:
        attempt_settle(state=state)
    return state


@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")


@require_safe
def readyz(request: HttpRequest) -> HttpResponse:
    """Ready to serve learners: the database answers. (Redis is not asked: without it the
    site is slower, not down.)"""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DATABASE_UNREACHABLE:
        return HttpResponse(
            "database unavailable",
            content_type="text/plain",
            status=503,
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
    return HttpResponse("ok", content_type="text/plain")


def set_language(request: HttpRequest) -> HttpResponse:
    """Django's set_language, reading `next` in the language of its own prefix.

    Django finds `next` in the other language by resolving it in the active one, which on this
    unprefixed URL comes from the cookie or the browser. When that is not the page's language
    (an Arabic browser on an /en/ link) the path does not resolve and the switch leaves the
    learner where they were.
    """
    next_url = request.POST.get("next", request.GET.get("next", ""))
    # Only a `next` on this site is followed (Django checks it again); checking first also
    # keeps urlsplit from meeting what it refuses (`http://[`, `//[::1`), which is no 500.
    if url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        page_language = translation.get_language_from_path(urlsplit(next_url).path)
        if page_language:
            translation.activate(page_language)
    return django_set_language(request)


@require_safe
@vary_on_headers("HX-Request")
def catalog(request: HtmxHttpRequest) -> HttpResponse:
    """Published quizzes, a page at a time; searched and filtered by the query string. To
    htmx (the search form as the learner types, the pager) only the results."""
    version = catalog_service.catalog_version()
    signed_in = request.user.is_authenticated
    query = catalog_service.catalog_query(request.GET, version=version, signed_in=signed_in)
    listing = catalog_service.catalog_listing(
        user=request.user, version=version, page=request.GET.get("page"), query=query
    )
    # Built only if the page renders it: catalog.html keeps the form rendered per version.
    form = SimpleLazyObject(
        lambda: catalog_service.catalog_form(request.GET, version=version, signed_in=signed_in)
    )
    return render(
        request,
        _partial(request, "quizzes/catalog.html", "results"),
        {"form": form, "query": query, "listing": listing, "catalog_version": version},
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
    listing = catalog_service.guide_listing(
        guide,
        user=request.user,
        version=catalog_service.catalog_version(),
        page=request.GET.get("page"),
    )
    return render(
        request,
        _partial(request, "quizzes/guide.html", "results"),
        {"guide": guide, "listing": listing},
    )


@require_safe
def quiz_detail(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    quiz = _published_quiz(slug)
    content = quiz_content(quiz)
    best = mastery = availability = None
    if request.user.is_authenticated:
        availability = quiz_availability(quiz=quiz, user=request.user)
        if _settle_overdue(availability.in_progress, quiz):
            # Not "Resume" for an attempt that is over: its result, and the rules as they are.
            availability = quiz_availability(quiz=quiz, user=request.user)
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


def _settle_overdue(attempt: Attempt | None, quiz: Quiz) -> bool:
    """Finish `attempt` if it is past its deadline and grace; True if it did. No statement
    for an attempt in time."""
    if attempt is None or not past_deadline(attempt.deadline, timezone.now()):
        return False
    attempt.quiz = quiz
    return attempt_settle(state=attempt_state(attempt))


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
def attempt_begin(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Start the quiz, or resume the attempt in progress, and show its current step.

    Only a POST starts: a GET of this address (a reload, a bookmark, the way back from
    signing in after a session ended on the quiz page) goes to the quiz page, where Start is.
    """
    if request.method != "POST":
        return redirect("quizzes:detail", slug=slug)
    return _attempt_begin(request, slug)


@learner_required
def _attempt_begin(request: LearnerRequest, slug: str) -> HttpResponse:
    quiz = _published_quiz(slug)
    if not quiz_content(quiz).count:
        raise Http404("This quiz has no questions yet.")
    try:
        attempt = attempt_start(user=request.user, quiz=quiz)
    except AttemptError as refusal:
        messages.error(request, str(refusal.message))
        if request.htmx:
            return HttpResponseClientRedirect(quiz.get_absolute_url())
        return redirect(quiz)
    state = attempt_state(attempt)
    if attempt_settle(state=state):  # an attempt in progress past its deadline
        return _where_it_stands(request, state)
    step_url = reverse("quizzes:question", args=[attempt.pk, state.current_number])
    if request.htmx:
        response = _render_step(request, state, state.current_number)
        return push_url(response, step_url)
    return redirect(step_url)


@require_safe
@learner_required
def attempt_resume(request: LearnerRequest, pk: int) -> HttpResponse:
    return _where_it_stands(request, _state_for(request, pk))


def _where_it_stands(request: HtmxHttpRequest, state: AttemptState) -> HttpResponse:
    """Send the learner to the attempt's result once finished, else to its current step.

    To an htmx request, the result and the catalog are whole pages: the browser goes there
    (a redirect would be followed and its whole page swapped into the quiz's area); a step
    is a fragment, and a redirect to it is followed as an htmx request.
    """
    attempt = state.attempt
    if attempt.is_finished:
        return _go(request, reverse("quizzes:result", args=[attempt.pk]))
    if not state.content.count:
        # An instructor removed every question; the attempt waits for new ones.
        messages.info(request, _("This quiz has no questions at the moment; come back later."))
        return _go(request, reverse("quizzes:catalog"))
    return redirect("quizzes:question", pk=attempt.pk, number=state.current_number)


def _go(request: HtmxHttpRequest, url: str) -> HttpResponse:
    """A redirect to a whole page, which an htmx request makes as a whole page too."""
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)


def answer_data(request: HttpRequest, *fields: str) -> dict[str, Any]:
    """The posted answer, with `choice` as a list: one radio button or several boxes (and
    any other `fields`, as posted: the review page's card and revision)."""
    return {
        "choice": request.POST.getlist("choice"),
        "number": request.POST.get("number", ""),
        "question": request.POST.get("question", ""),
        **{name: request.POST.get(name, "") for name in fields},
    }


def _question_seen(state: AttemptState, number: int, form: AnswerForm) -> Question | None:
    """The question the valid `form` answers, to read its response by kind (None: gone)."""
    question_id = form.cleaned_data["question"]
    if question_id is not None:
        return state.content.question(question_id)
    return state.content.at(number)


def _step_address(request: HtmxHttpRequest, attempt_pk: int, number: int) -> str:
    """The address of step `number`: the request's own when it asked for that step."""
    match = request.resolver_match
    if match and match.view_name == "quizzes:question" and match.kwargs.get("number") == number:
        return request.path
    return reverse("quizzes:question", args=[attempt_pk, number])


def _render_step(
    request: HtmxHttpRequest,
    state: AttemptState,
    number: int,
    *,
    form: AnswerForm | None = None,
    error: str | None = None,
    saved: bool = False,
    status: int = 200,
) -> HttpResponse:
    question = state.content.at(number)
    if question is None:  # callers render steps the attempt has; this would be a bug
        raise Http404("No such step.")
    answer = state.answer_for(question)
    choices = state.choices_of(question)
    # Exam mode shows a saved answer as the form's choice, and no feedback.
    feedback = answer if state.shows_feedback else None
    verdicts = feedback.choice_verdicts(choices) if feedback else []
    quiz = state.attempt.quiz
    context = {
        "attempt": state.attempt,
        "quiz": quiz,
        "state": state,
        "number": number,
        "total": state.content.count,
        "question": question,
        "answer": answer,
        "feedback": feedback,
        # Everything the step shows outside its slots depends on ({% shared %} in take.html).
        "step_key": (
            quiz.pk,
            quiz.updated_at,
            question.pk,
            number,
            state.content.count,
            state.answered_count,
            bool(request.htmx),
            (feedback.is_correct, feedback.is_partly_correct) if feedback else None,
            saved,
            state.attempt.is_deferred,
            answer is not None,
        ),
        # Reversed only where the step shows them: the form posts to the step's own
        # address (most often the one asked for), feedback and exam steps link to the next.
        "step_url": _step_address(request, state.attempt.pk, number) if feedback is None else "",
        "next_url": (
            _step_address(request, state.attempt.pk, number + 1)
            if number < state.content.count and (feedback or state.attempt.is_deferred)
            else ""
        ),
        "choices": choices,
        "verdicts": verdicts,
        # The parts every learner sees alike, rendered once (quizzes/fragments.py).
        "feedback_body": (
            fragments.feedback_body(question=question, answer=feedback, verdicts=verdicts)
            if feedback
            else None
        ),
        "question_fields": (
            fragments.question_fields(question=question, choices=choices)
            if answer is None and form is None
            else None
        ),
        "form": form,  # None: nothing sent yet, so no errors to show
        "error": error,
        "saved": saved,
        "is_last": number == state.content.count,
        "progress_percent": round(100 * state.answered_count / state.content.count),
        # The countdown sends the learner to the result once the grace has passed too.
        "deadline_grace_seconds": round(DEADLINE_GRACE.total_seconds()),
    }
    template = _partial(request, TAKE_TEMPLATE, "step")
    return render(request, template, context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
@learner_required
def attempt_question(request: LearnerRequest, pk: int, number: int) -> HttpResponse:
    """One step of an attempt: the question's form, or once answered its feedback."""
    form = AnswerForm(answer_data(request)) if request.method == "POST" else None
    # The question the learner saw: their review card for it is read with the attempt.
    seen = form.cleaned_data["question"] if form is not None and form.is_valid() else None
    state = _state_for(request, pk, settle=False, answering=form is not None, question_id=seen)
    # Settled on the way, except a late answer: step_submit refuses it, saying "Time is up".
    if form is None or not state.is_overdue(timezone.now()):
        attempt_settle(state=state)
    if form is None:
        if state.step(number) is None:
            return _where_it_stands(request, state)
        return _render_step(request, state, number)
    sent = form.response_for(_question_seen(state, number, form)) if form.is_valid() else None
    if sent is None:
        # Nothing readable (no choice, a number in letters): said on the step, nothing written.
        attempt_settle(state=state)  # late, and no answer to refuse
        if state.step(number) is None:
            return _where_it_stands(request, state)
        return _render_step(request, state, number, form=form, status=422)
    outcome = step_submit(
        state=state,
        number=number,
        question_id=form.cleaned_data["question"],
        response=sent,
    )
    if outcome.step in (Step.NOT_OPEN, Step.QUIZ_CHANGED, Step.TIME_UP):
        if outcome.message:
            messages.info(request, str(outcome.message))
        return _where_it_stands(request, outcome.state)
    assert outcome.number is not None
    if outcome.step is Step.REFUSED:
        return _render_step(
            request, outcome.state, outcome.number, error=str(outcome.message), status=409
        )
    if outcome.step is Step.ANSWERED_BEFORE:
        messages.info(request, str(outcome.message))
    saved = outcome.step is Step.SAVED
    if saved and not request.htmx:
        messages.success(request, _("Answer saved. You can change it until you submit them all."))
    step_url = _step_address(request, state.attempt.pk, outcome.number)
    if request.htmx:
        response = _render_step(request, outcome.state, outcome.number, saved=saved)
        return push_url(response, step_url) if step_url != request.path else response
    return redirect(step_url)


@require_http_methods(["GET", "HEAD", "POST"])
@learner_required
def attempt_finish(request: LearnerRequest, pk: int) -> HttpResponse:
    """Exam mode's "Submit all and finish": GET asks to confirm (listing the questions still
    unanswered), POST finishes and shows the result."""
    state = _state_for(request, pk)
    if state.attempt.is_finished or not state.attempt.is_deferred:
        return _where_it_stands(request, state)
    if request.method == "POST":
        attempt_submit_all(state=state)
        return redirect("quizzes:result", pk=state.attempt.pk)
    return render(
        request,
        "quizzes/finish.html",
        {"attempt": state.attempt, "quiz": state.attempt.quiz, "state": state},
    )


@require_safe
@learner_required
def attempt_result(request: LearnerRequest, pk: int) -> HttpResponse:
    state = _state_for(request, pk)
    attempt = state.attempt
    if not attempt.is_finished:
        return _where_it_stands(request, state)
    return render(
        request,
        "quizzes/result.html",
        {
            "attempt": attempt,
            "quiz": attempt.quiz,
            "state": state,
            "review": state.review(),
        },
    )


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
    chart = history_stats.score_chart(request.user)
    guides = history_stats.guide_mastery(request.user, summaries)
    return render(
        request,
        "quizzes/history.html",
        {"page": page, "summaries": summaries, "chart": chart, "guides": guides},
    )


# Error pages that must render while the database or the session is failing
# (templates/errors/standalone.html).
STANDALONE_ERROR_PAGES = {"errors/500.html", "errors/503.html"}


def _error_page(
    request: HttpRequest, template: str, status: int, context: dict[str, Any] | None = None
) -> HttpResponse:
    """Our error page; to an htmx request, an order to reload the page it was sent from.

    htmx swaps error responses into the target too, and a whole error page inside the quiz
    card helps nobody. Reloaded, the page shows where things stand (a step, a sign-in form)
    with a fresh CSRF token; the failed request changed nothing.
    """
    if getattr(request, "htmx", False):
        response = HttpResponse(status=status, headers={"HX-Refresh": "true"})
    elif template in STANDALONE_ERROR_PAGES:
        # Without context processors: they may read the user, and so the database, which is
        # what may have failed.
        page = render_to_string(template, {"request": request, **(context or {})})
        response = HttpResponse(page, status=status)
    else:
        response = render(request, template, context, status=status)
    patch_vary_headers(response, ["HX-Request"])
    return response


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error_page(request, "errors/400.html", 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error_page(request, "errors/403.html", 403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error_page(request, "errors/404.html", 404)


def server_error(request: HttpRequest) -> HttpResponse:
    # Django calls this while it handles the exception, so sys.exception() is the error.
    if is_database_outage(sys.exception()):
        response = _error_page(request, "errors/503.html", 503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    return _error_page(request, "errors/500.html", 500)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    return _error_page(request, "errors/403.html", 403, {"csrf": True})


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
@learner_required
def question_report(request: LearnerRequest, pk: int) -> HttpResponse:
    """Report a problem with a question the learner has answered: a page, or within the
    feedback for htmx (`report_form`, then `report_done`)."""
    question = reports.reportable_question(user=request.user, question_pk=pk)
    if question is None:
        raise Http404("No such question among the learner's answers.")
    next_url = _same_site_path(request)
    template = "quizzes/report.html"
    existing = reports.open_report(user=request.user, question=question)
    form = ReportForm(request.POST if request.method == "POST" else None)
    context = {"question": question, "quiz": question.quiz, "next": next_url, "form": form}
    if existing is not None:
        template = _partial(request, template, "report_done")
        return render(request, template, {**context, "already": True})
    status = 200
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
                status = error.status
            else:
                if request.htmx:
                    return render(request, f"{template}#report_done", context)
                messages.success(
                    request, _("Thank you: your report went to the quiz's instructors.")
                )
                return redirect(next_url or "quizzes:history")
        else:
            status = 422
    return render(request, _partial(request, template, "report_form"), context, status=status)


def _same_site_path(request: HtmxHttpRequest) -> str:
    """`next` if it is a path on this site (where to go back after reporting), else ""."""
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    if next_url.startswith("/") and url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return next_url
    return ""
