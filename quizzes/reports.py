"""Learners' reports of problems with questions: who may report what, and how often.

One open report per learner and question (a database constraint); a learner reports only a
question they have answered (in an attempt or a review), which is where the feedback offers
it; and a learner files at most QUESTION_REPORT_RATE reports (accounts.limits, counted
atomically in the cache).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.limits import hit

from .models import Answer, Question, QuestionReport, ReviewAnswer


@dataclass
class ReportError(Exception):
    message: str
    status: int  # HTTP: 409 already reported, 429 too many
    retry_after: int | None = None  # seconds, with 429


ALREADY_REPORTED = _(
    "You have already reported a problem with this question; an instructor will look at it."
)
TOO_MANY = _("You have sent many reports in a short time; please try again in an hour.")


def reportable_question(*, user, question_pk: int) -> Question | None:
    """The question, if `user` has answered it in an attempt or a review; otherwise None."""
    answered = Answer.objects.filter(attempt__user=user, question_id=question_pk)
    reviewed = ReviewAnswer.objects.filter(user=user, question_id=question_pk)
    if not (answered.exists() or reviewed.exists()):
        return None
    return Question.objects.select_related("quiz").filter(pk=question_pk).first()


def open_report(*, user, question: Question) -> QuestionReport | None:
    return QuestionReport.objects.open().filter(user=user, question=question).first()


def report_create(
    *, request: HttpRequest, question: Question, reason: str, text: str
) -> QuestionReport:
    """File the signed-in learner's report, or raise ReportError saying why not."""
    user = request.user
    if open_report(user=user, question=question) is not None:
        raise ReportError(ALREADY_REPORTED, 409)
    if wait := hit(group="question-report", key=str(user.pk), rate=settings.QUESTION_REPORT_RATE):
        raise ReportError(TOO_MANY, 429, retry_after=wait)
    try:
        with transaction.atomic():
            return QuestionReport.objects.create(
                user=user, question=question, reason=reason, text=text
            )
    except IntegrityError:
        # The same report, sent twice at once (a double click): the first one counts.
        raise ReportError(ALREADY_REPORTED, 409) from None


def reports_resolve(*, reports, by) -> int:
    """Mark the open ones among `reports` resolved by `by`; the number marked."""
    return reports.filter(resolved_at__isnull=True).update(
        resolved_at=timezone.now(), resolved_by=by
    )
