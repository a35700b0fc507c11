"""Taking a quiz: start or resume, one step at a time, finish, the result.

Parse, call the rules (quizzes.attempts), render `quizzes/take.html` (its `step` partial for
htmx). The path of an answer: `attempt_question` -> `attempts.step_submit` -> `_render_step`.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect, push_url

from ..attempts import (
    AttemptError,
    AttemptState,
    Step,
    attempt_settle,
    attempt_start,
    attempt_state,
    attempt_submit_all,
    attempt_with_answers,
    step_submit,
)
from ..availability import DEADLINE_GRACE, quiz_availability
from ..content import quiz_content
from ..forms import AnswerForm
from ..models import Choice, Question
from .common import (
    HtmxHttpRequest,
    LearnerRequest,
    answer_data,
    learner_required,
    page_or_fragment,
    published_quiz,
)

TAKE_TEMPLATE = "quizzes/take.html"


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
    `answering`, `question_id`: as `attempt_with_answers` takes them."""
    state = attempt_with_answers(
        user=request.user, pk=pk, answering=answering, question_id=question_id
    )
    if state is None:
        raise Http404("No such attempt.")
    if settle:
        attempt_settle(state=state)
    return state


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


def _question_seen(state: AttemptState, number: int, form: AnswerForm) -> Question | None:
    """The question the valid `form` answers, to read its response by kind (None: gone)."""
    question_id = form.cleaned_data["question"]
    if question_id is not None:
        return state.question(question_id)
    return state.at(number)


def _numbered_choices(state: AttemptState, question: Question | None) -> list[Choice] | None:
    """The question's choices as the step numbered them, when it did: in an attempt that
    shuffled them, choices are sent by their number on the page, not their id."""
    if question is None or str(question.pk) not in state.attempt.choice_order:
        return None
    return state.choices_of(question)


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
    question = state.at(number)
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
        "total": state.count,
        "question": question,
        "answer": answer,
        "feedback": feedback,
        # Reversed only where the step shows them: the form posts to the step's own
        # address (most often the one asked for), feedback and exam steps link to the next.
        "step_url": _step_address(request, state.attempt.pk, number) if feedback is None else "",
        "next_url": (
            _step_address(request, state.attempt.pk, number + 1)
            if number < state.count and (feedback or state.attempt.is_deferred)
            else ""
        ),
        "choices": choices,
        # Keys the unanswered fields kept rendered (take.html).
        "choice_order": ",".join(str(choice.pk) for choice in choices),
        "numbered_choices": _numbered_choices(state, question) is not None,
        "verdicts": verdicts,
        "form": form,  # None: nothing sent yet, so no errors to show
        "error": error,
        "saved": saved,
        "is_last": number == state.count,
        "progress_percent": round(100 * state.answered_count / state.count),
        # The countdown sends the learner to the result once the grace has passed too.
        "deadline_grace_seconds": round(DEADLINE_GRACE.total_seconds()),
    }
    template = page_or_fragment(request, TAKE_TEMPLATE, "step")
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
    seen = _question_seen(state, number, form) if form.is_valid() else None
    sent = (
        form.response_for(seen, shown=_numbered_choices(state, seen)) if form.is_valid() else None
    )
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
    quiz = attempt.quiz
    refusal = None
    if quiz.max_attempts is not None or quiz.closes_at is not None or quiz.opens_at is not None:
        # Only a quiz with limits costs the reads of the learner's attempts and override.
        refusal = quiz_availability(quiz=quiz, user=request.user).refusal
    return render(
        request,
        "quizzes/result.html",
        {
            "attempt": attempt,
            "quiz": quiz,
            "state": state,
            "review": state.review(),
            "can_retake": quiz.is_published and refusal is None,
            "retake_refusal": refusal,
        },
    )
