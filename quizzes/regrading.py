"""A regrade outside the request: queued by the admin's confirmation (`regrade_queue`), run by
the worker (`regrade_run`: the preview computed again, applied only if it is still the one
the instructor confirmed), and the mail each learner whose score changed gets
(`regrade_mail`), in their language, to a verified address only.

The rules are quizzes/attempts/regrade.py's; this module only schedules them."""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Any

from django.conf import settings
from django.db import transaction
from django.tasks import task
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from accounts.mail import send_later
from accounts.models import Profile

from .attempts.regrade import RegradePreview, regrade_apply, regrade_of, regrade_preview
from .models import Question, Quiz, Regrade, RegradedAttempt
from .reminders import site_origin

logger = logging.getLogger(__name__)


def regrade_queue(*, preview: RegradePreview, by: Any) -> Regrade:
    """Queue `preview`'s application for the worker (after this transaction commits); the
    returned `Regrade` shows its progress."""
    regrade = regrade_of(preview=preview, by=by)
    transaction.on_commit(lambda: regrade_run.enqueue(regrade_id=regrade.pk))
    return regrade


@task
def regrade_run(*, regrade_id: int) -> str:
    """Apply a queued regrade if the answers are still as previewed (else STALE, nothing
    applied), then queue its mail."""
    regrade = Regrade.objects.filter(pk=regrade_id, status=Regrade.Status.QUEUED).first()
    if regrade is None:
        return "missing"
    quiz = Quiz.objects.get(pk=regrade.quiz_id)
    question = Question.objects.get(pk=regrade.question_id) if regrade.question_id else None
    preview = regrade_preview(quiz=quiz, question=question)
    if preview.digest != regrade.digest:
        Regrade.objects.filter(pk=regrade.pk).update(
            status=Regrade.Status.STALE, finished_at=timezone.now()
        )
        return Regrade.Status.STALE
    try:
        regrade = regrade_apply(preview=preview, regrade=regrade)
    except Exception:
        Regrade.objects.filter(pk=regrade.pk).update(
            status=Regrade.Status.FAILED, finished_at=timezone.now()
        )
        raise
    regrade_mail_queue(regrade=regrade)
    return regrade.status


def regrade_mail_queue(*, regrade: Regrade) -> None:
    """Queue the regrade's mail to its learners (`regrade_mail`) when it changed a score."""
    if regrade.attempts_changed:
        transaction.on_commit(lambda: regrade_mail.enqueue(regrade_id=regrade.pk))


@task
def regrade_mail(*, regrade_id: int) -> int:
    """One mail per learner whose score the regrade changed, listing their attempts before
    and after; only to an active learner's verified address, and not to a learner who turned
    these mails off (Profile.regrade_mail). Returns how many were queued."""
    changed: dict[int, list[RegradedAttempt]] = defaultdict(list)
    rows = RegradedAttempt.objects.filter(regrade_id=regrade_id).select_related(
        "attempt__quiz", "regrade"
    )
    for row in rows.order_by("attempt__finished_at", "pk"):
        changed[row.user_id].append(row)
    if not changed:
        return 0
    profiles = Profile.objects.mailable().filter(user_id__in=list(changed), regrade_mail=True)
    try:
        origin = site_origin()
    except RuntimeError:
        logger.warning("Regrade %s: no mail sent, SITE_ORIGIN is not set.", regrade_id)
        return 0
    sent = 0
    for profile in profiles:
        _mail(profile, changed[profile.user_id], origin=origin)
        sent += 1
    return sent


def _mail(profile: Profile, attempts: list[RegradedAttempt], *, origin: str) -> None:
    with translation.override(profile.language or settings.LANGUAGE_CODE):
        context = {
            "user": profile.user,
            "quiz": attempts[0].attempt.quiz,
            "attempts": [
                (row, origin + reverse("quizzes:result", args=[row.attempt_id])) for row in attempts
            ],
            "preferences_url": origin + reverse("accounts:preferences"),
        }
        subject = render_to_string("quizzes/email/regrade_subject.txt", context).strip()
        body = render_to_string("quizzes/email/regrade.txt", context)
    send_later(subject=subject, body=body, to=[profile.user.email])
