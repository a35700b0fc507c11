"""Taking a quiz: start or resume, one step at a time, finish, the result.

Each view parses the request, makes one call to the attempt engine (quizzes/attempts/
services.py) and renders what it returns: `quizzes/take.html` (`quizzes/take_step.html` for
htmx), written with Jinja2 (quizzes/jinja2/).
The path of an answer: `attempt_question` -> `services.attempt_answer` -> `_render_step`.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect, push_url

from ..attempts.rules import DEADLINE_GRACE, AttemptError
from ..attempts.services import (
    AttemptNotFound,
    Step,
    StepPage,
    attempt_answer,
    attempt_as_it_stands,
    attempt_step,
    attempt_submit_all,
    step_page,
)
from ..attempts.services import attempt_begin as start_or_resume
from ..attempts.services import attempt_result as attempt_result_of
from ..attempts.state import AttemptState
from ..confidence import LEVEL_NAMES
from ..forms import AnswerForm
from .common import (
    HtmxHttpRequest,
    LearnerRequest,
    answer_data,
    learner_required,
    published_quiz,
)

TAKE_TEMPLATE = "quizzes/take.html"
STEP_FRAGMENT = "quizzes/take_step.html"
# The step's page and fragment are rendered with Jinja2 (quizzes/jinja2/quizzes/take.html and
# take_step.html in quizzes/jinja2/base.html's frame): a fifth to a quarter less CPU for a whole
# page than the Django templates (issue 58). templates/quizzes/take.html stays: the review and
# preview pages include its partials, and tests/quizzes/test_step_jinja.py renders it beside
# each step the view renders, with the same context, to pin the copy.
# The countdown sends the learner to the result once the grace has passed too.
DEADLINE_GRACE_SECONDS = round(DEADLINE_GRACE.total_seconds())


def _settled(request: LearnerRequest, pk: int) -> AttemptState:
    """The signed-in learner's own attempt as it stands, or 404."""
    try:
        return attempt_as_it_stands(user=request.user, attempt_id=pk)
    except AttemptNotFound:
        raise Http404("No such attempt.") from None


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
    quiz = published_quiz(slug)
    try:
        state = start_or_resume(user=request.user, quiz=quiz)
    except AttemptError as refusal:
        messages.error(request, str(refusal.message))
        if request.htmx:
            return HttpResponseClientRedirect(quiz.get_absolute_url())
        return redirect(quiz)
    if state.attempt.is_finished or not state.count:
        return _where_it_stands(request, state)
    number = state.current_number
    step_url = reverse("quizzes:question", args=[state.attempt.pk, number])
    question = state.at(number)
    if request.htmx and question is not None:
        response = _render_step(request, step_page(state, question))
        return push_url(response, step_url)
    return redirect(step_url)


@require_safe
@learner_required
def attempt_resume(request: LearnerRequest, pk: int) -> HttpResponse:
    return _where_it_stands(request, _settled(request, pk))


def _where_it_stands(request: HtmxHttpRequest, state: AttemptState) -> HttpResponse:
    """Send the learner to the attempt's result once finished, else to its current step.

    To an htmx request, the result and the catalog are whole pages: the browser goes there
    (a redirect would be followed and its whole page swapped into the quiz's area); a step
    is a fragment, and a redirect to it is followed as an htmx request.
    """
    attempt = state.attempt
    if attempt.is_finished:
        return _go(request, reverse("quizzes:result", args=[attempt.pk]))
    if not state.count:
        # An instructor removed every question; the attempt waits for new ones.
        messages.info(request, _("This quiz has no questions at the moment; come back later."))
        return _go(request, reverse("quizzes:catalog"))
    return redirect("quizzes:question", pk=attempt.pk, number=state.current_number)


def _go(request: HtmxHttpRequest, url: str) -> HttpResponse:
    """A redirect to a whole page, which an htmx request makes as a whole page too."""
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)


def _step_address(request: HtmxHttpRequest, attempt_pk: int, number: int) -> str:
    """The address of step `number`: the request's own when it asked for that step."""
    match = request.resolver_match
    if match and match.view_name == "quizzes:question" and match.kwargs.get("number") == number:
        return request.path
    return reverse("quizzes:question", args=[attempt_pk, number])


def _confidence_levels(page: StepPage, form: AnswerForm | None) -> list[tuple[str, Any, bool]]:
    """The radio group `confidence` under an unanswered step, when the attempt asks: each
    level's value, name and whether it is picked (as posted back with an error, else as
    saved in exam mode)."""
    if not page.asks_confidence or page.feedback is not None:
        return []
    picked = form.data.get("confidence") if form is not None else None
    if picked is None and page.answer is not None and page.answer.confidence is not None:
        picked = str(page.answer.confidence)
    return [(str(level), name, str(level) == picked) for level, name in LEVEL_NAMES.items()]


def _render_step(
    request: HtmxHttpRequest,
    page: StepPage,
    *,
    form: AnswerForm | None = None,
    error: str | None = None,
    saved: bool = False,
    status: int = 200,
) -> HttpResponse:
    attempt, number = page.attempt, page.number
    context = {
        "page": page,
        "attempt": attempt,
        "quiz": page.quiz,
        "state": page.state,
        "number": number,
        "total": page.total,
        "question": page.question,
        "answer": page.answer,
        "feedback": page.feedback,
        # Reversed only where the step shows them: the form posts to the step's own
        # address (most often the one asked for), feedback and exam steps link to the next.
        "step_url": _step_address(request, attempt.pk, number) if page.feedback is None else "",
        "next_url": _step_address(request, attempt.pk, number + 1) if page.has_next else "",
        "choices": page.choices,
        "confidence_levels": _confidence_levels(page, form),
        "parts": page.parts,
        "numbered_choices": page.numbered,
        "verdicts": page.verdicts,
        "form": form,  # None: nothing sent yet, so no errors to show
        "error": error,
        "saved": saved,
        "is_last": page.is_last,
        "progress_percent": page.progress_percent,
        "deadline_grace_seconds": DEADLINE_GRACE_SECONDS,
    }
    fragment = request.htmx and not request.htmx.history_restore_request
    template = STEP_FRAGMENT if fragment else TAKE_TEMPLATE
    return render(request, template, context, status=status, using="jinja2")


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
@learner_required
def attempt_question(request: LearnerRequest, pk: int, number: int) -> HttpResponse:
    """One step of an attempt: the question's form, or once answered its feedback."""
    form = AnswerForm(answer_data(request)) if request.method == "POST" else None
    try:
        if form is not None and form.is_valid():
            outcome = attempt_answer(
                user=request.user, attempt_id=pk, number=number, posted=form.posted()
            )
        else:
            # A step asked for, or a form that is not one our pages send (letters for an id).
            outcome = attempt_step(user=request.user, attempt_id=pk, number=number)
    except AttemptNotFound:
        raise Http404("No such attempt.") from None
    page = outcome.page
    if outcome.message and outcome.step in (Step.NOT_OPEN, Step.QUIZ_CHANGED, Step.TIME_UP):
        messages.info(request, str(outcome.message))
    if page is None:
        return _where_it_stands(request, outcome.state)
    if form is None:
        return _render_step(request, page)
    if outcome.step is Step.SHOWN or outcome.step is Step.UNREADABLE:
        # Nothing readable (no choice, a number in letters): said on the step, nothing written.
        if outcome.field:
            form.add_error(outcome.field, str(outcome.message))
        return _render_step(request, page, form=form, status=422)
    if outcome.step is Step.REFUSED:
        return _render_step(request, page, error=str(outcome.message), status=409)
    if outcome.step is Step.ANSWERED_BEFORE:
        messages.info(request, str(outcome.message))
    saved = outcome.step is Step.SAVED
    if saved and not request.htmx:
        messages.success(request, _("Answer saved. You can change it until you submit them all."))
    step_url = _step_address(request, pk, page.number)
    if request.htmx:
        response = _render_step(request, page, saved=saved)
        return push_url(response, step_url) if step_url != request.path else response
    return redirect(step_url)


@require_http_methods(["GET", "HEAD", "POST"])
@learner_required
def attempt_finish(request: LearnerRequest, pk: int) -> HttpResponse:
    """Exam mode's "Submit all and finish": GET asks to confirm (listing the questions still
    unanswered), POST finishes and shows the result."""
    if request.method == "POST":
        try:
            state = attempt_submit_all(user=request.user, attempt_id=pk).state
        except AttemptNotFound:
            raise Http404("No such attempt.") from None
        return _where_it_stands(request, state)
    state = _settled(request, pk)
    if state.attempt.is_finished or not state.attempt.is_deferred:
        return _where_it_stands(request, state)
    return render(
        request,
        "quizzes/finish.html",
        {"attempt": state.attempt, "quiz": state.quiz, "state": state},
    )


@require_safe
@learner_required
def attempt_result(request: LearnerRequest, pk: int) -> HttpResponse:
    try:
        result = attempt_result_of(user=request.user, attempt_id=pk)
    except AttemptNotFound:
        raise Http404("No such attempt.") from None
    state = result.state
    if not state.attempt.is_finished:
        return _where_it_stands(request, state)
    return render(
        request,
        "quizzes/result.html",
        {
            "attempt": state.attempt,
            "quiz": state.quiz,
            "state": state,
            "review": state.review(),
            "can_retake": result.can_retake,
            "retake_refusal": result.retake_refusal,
        },
    )
