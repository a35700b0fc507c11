"""Assignment and Grade Services: a finished attempt's score goes to the platform's line item,
outside the request (a Django task), once per attempt, retried with backoff."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import requests
from django.core.cache import cache
from django.db import transaction
from django.db.models import F, Q
from django.db.models.functions import Coalesce
from django.tasks import task
from django.utils import timezone
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.grade import Grade
from pylti1p3.registration import Registration as PyRegistration
from pylti1p3.service_connector import ServiceConnector

from config.observe import lti_score_tried
from quizzes.attempts.state import AttemptRow
from quizzes.models import Attempt

from .models import GradeLink, QuizGrading, ScorePost
from .tool import HTTP_TIMEOUT, py_registration

logger = logging.getLogger(__name__)

MAX_TRIES = 6


class ForeignLineItem(Exception):
    """A line item at no origin of its platform's: never sent a score (nor the token)."""


FIRST_RETRY = timedelta(seconds=30)


def attempt_finished_receiver(sender: type[Attempt], attempt: AttemptRow, **kwargs: Any) -> None:
    """quizzes.signals.attempt_finished: after the finishing transaction commits, note the
    score to send when the learner came from a platform, and send it in a task."""
    attempt_id, user_id, quiz_id = attempt.pk, attempt.user_id, attempt.quiz_id
    transaction.on_commit(lambda: score_post_create(attempt_id, user_id, quiz_id))


def score_post_create(attempt_id: int, user_id: int, quiz_id: int) -> ScorePost | None:
    link = (
        GradeLink.objects.select_related("registration")
        .filter(user_id=user_id, quiz_id=quiz_id)
        .order_by("-updated_at")
        .first()
    )
    if link is None:
        return None
    if link.for_instructor and not link.registration.instructor_grades:
        # Many platforms refuse grades for instructors: theirs go only where asked.
        return None
    post, created = ScorePost.objects.get_or_create(attempt_id=attempt_id, defaults={"link": link})
    if created:
        post_score.enqueue(post.pk)
    return post


def attempts_regraded_receiver(
    sender: type[Attempt], attempt_ids: list[int], at: datetime, **kwargs: Any
) -> None:
    """quizzes.signals.attempts_regraded: after the regrade's transaction commits, send again
    the grades of the platforms' line items that the regrade changes (`regrade_resend`)."""
    ids = list(attempt_ids)
    transaction.on_commit(lambda: regrade_resend(attempt_ids=ids, at=at))


def _counting(link: GradeLink) -> Attempt | None:
    """The attempt whose grade `link`'s platform should hold now, by the quiz's setting, among
    the finished attempts sent to it: the first; the best (the first to reach the highest
    share, as `_grade_changes` sends them); the last."""
    attempts = list(
        Attempt.objects.filter(lti_score_post__link=link, finished_at__isnull=False).order_by(
            "finished_at", "pk"
        )
    )
    if not attempts:
        return None
    grading = QuizGrading.objects.filter(quiz_id=link.quiz_id).first()
    counts = grading.counts if grading else QuizGrading.Counts.BEST
    if counts == QuizGrading.Counts.FIRST:
        return attempts[0]
    if counts == QuizGrading.Counts.LAST:
        return attempts[-1]
    best = max(_ratio(attempt) for attempt in attempts)
    return next(attempt for attempt in attempts if _ratio(attempt) == best)


def _held(
    link: GradeLink, *, excluding: int | None = None
) -> tuple[Decimal | None, int | None] | None:
    """The grade `link`'s platform holds: the last one sent (by the time it carried: an
    attempt's finish, or a regrade's)."""
    posts = ScorePost.objects.filter(link=link, status=ScorePost.Status.SENT)
    if excluding is not None:
        posts = posts.exclude(pk=excluding)
    sent = (
        posts.annotate(stamp=Coalesce("regraded_at", "attempt__finished_at"))
        .order_by(F("stamp").desc(nulls_last=True), "-attempt_id")
        .values_list("score_given", "score_maximum")
        .first()
    )
    return (sent[0], sent[1]) if sent is not None else None


def _grade_of(attempt: Attempt) -> tuple[Decimal, int]:
    return attempt.grade_score, max(attempt.total, 1)


def regrade_resend(*, attempt_ids: list[int], at: datetime) -> int:
    """After a regrade of `attempt_ids`: for each line item they were sent to, send the grade
    that counts now (`_counting`) when it is not the one the platform holds, with the
    regrade's time; never for a grade that did not change. Returns how many were queued."""
    links = GradeLink.objects.filter(
        pk__in=ScorePost.objects.filter(attempt_id__in=attempt_ids).values("link_id")
    ).select_related("registration")
    queued = 0
    for link in links:
        counting = _counting(link)
        if counting is None or _held(link) == _grade_of(counting):
            continue
        post = ScorePost.objects.filter(attempt=counting).first()
        if post is None:
            continue
        ScorePost.objects.filter(pk=post.pk).update(
            status=ScorePost.Status.PENDING,
            tries=0,
            regraded_at=at,
            next_try_at=None,
            last_error="",
            updated_at=timezone.now(),
        )
        post_score.enqueue(post.pk)
        queued += 1
    return queued


class _TokenSession(requests.Session):
    """A requests session with timeouts that remembers the token endpoint's `expires_in`."""

    expires_in: int | None = None

    def request(
        self, method: str, url: str | bytes, *args: Any, **kwargs: Any
    ) -> requests.Response:
        kwargs.setdefault("timeout", HTTP_TIMEOUT)
        response = super().request(method, url, *args, **kwargs)
        if method.upper() == "POST" and response.ok:
            try:
                data = response.json()
            except ValueError:
                data = None
            if isinstance(data, dict) and "access_token" in data:
                try:
                    self.expires_in = int(data.get("expires_in") or 3600)
                except (TypeError, ValueError):
                    self.expires_in = None
        return response


class CachedTokenConnector(ServiceConnector):
    """pylti1p3's connector, with its access token kept in Django's cache until it expires."""

    def __init__(self, registration_pk: int, py_reg: PyRegistration) -> None:
        self.session = _TokenSession()
        super().__init__(py_reg, requests_session=self.session)
        self.registration_pk = registration_pk

    def _key(self, scopes: Sequence[str]) -> str:
        return f"lti-token-{self.registration_pk}-{'|'.join(sorted(scopes))}"

    def get_access_token(self, scopes: Sequence[str]) -> str:
        key = self._key(scopes)
        token: str | None = cache.get(key)
        if token:
            return token
        token = super().get_access_token(scopes)
        lifetime = self.session.expires_in or 3600
        cache.set(key, token, max(lifetime - 60, 1))
        return token

    def forget_token(self, scopes: Sequence[str]) -> None:
        cache.delete(self._key(scopes))


def _ratio(attempt: Attempt) -> Decimal:
    return attempt.grade_fraction


def _grade_changes(post: ScorePost) -> bool:
    """Whether this attempt changes the grade the platform should hold, by the quiz's
    setting: the first attempt (only it is sent), the best (an attempt better than every one
    before it), the last (an attempt whose score differs from the last one sent). A post
    always carries its own attempt's score and finish time, so each is newer than the last."""
    attempt = post.attempt
    if post.regraded_at is not None:
        # Sent again after a regrade: if it still counts and still changes what is held.
        counting = _counting(post.link)
        return (
            counting is not None
            and counting.pk == attempt.pk
            and _held(post.link, excluding=post.pk) != _grade_of(attempt)
        )
    grading = QuizGrading.objects.filter(quiz_id=attempt.quiz_id).first()
    counts = grading.counts if grading else QuizGrading.Counts.BEST
    finished = attempt.finished_at
    earlier = (
        Attempt.objects.filter(lti_score_post__link=post.link, finished_at__isnull=False)
        .exclude(pk=attempt.pk)
        .filter(Q(finished_at__lt=finished) | Q(finished_at=finished, pk__lt=attempt.pk))
    )
    if counts == QuizGrading.Counts.FIRST:
        return not earlier.exists()
    if counts == QuizGrading.Counts.BEST:
        return all(_ratio(attempt) > _ratio(other) for other in earlier)
    return _held(post.link, excluding=post.pk) != _grade_of(attempt)


def _send(post: ScorePost) -> None:
    link = post.link
    registration = link.registration
    attempt = post.attempt
    if not registration.serves(link.lineitem_url):
        # Launches with such a line item are refused (lti.services.foreign_addresses): one
        # kept from before, or a registration changed since, is never sent the token.
        raise ForeignLineItem("The line item is not at the platform's registered origins.")
    connector = CachedTokenConnector(registration.pk, py_registration(registration))
    ags = AssignmentsGradesService(connector, {"scope": link.scopes, "lineitem": link.lineitem_url})
    finished = post.regraded_at or attempt.finished_at or timezone.now()
    grade = (
        Grade()
        # Marked by certainty: the CBM grade (quizzes/confidence.py), else the score.
        .set_score_given(float(attempt.grade_score))
        .set_score_maximum(max(attempt.total, 1))
        .set_activity_progress("Completed")
        .set_grading_progress("FullyGraded")
        .set_timestamp(finished.isoformat(timespec="milliseconds"))
        .set_user_id(link.sub)
    )
    try:
        ags.put_grade(grade)
    except LtiServiceException as error:
        if error.response.status_code in {401, 403}:
            # A token the platform no longer takes: the next try asks for a new one.
            connector.forget_token(link.scopes)
        raise
    post.score_given = attempt.grade_score
    post.score_maximum = max(attempt.total, 1)


def backoff(tries: int) -> timedelta:
    return FIRST_RETRY * int(4 ** max(tries - 1, 0))


# A send that began longer ago than this and never recorded its outcome (its process died)
# may be tried again; far above the two HTTP timeouts of a send.
SENDING_STALE = timedelta(minutes=10)
DONE = {ScorePost.Status.SENT, ScorePost.Status.SKIPPED, ScorePost.Status.GAVE_UP}


def _claim(score_post_id: int, now: datetime) -> ScorePost | None:
    """Mark the post as being sent, in a short transaction of its own, so that no other run
    sends it meanwhile and no lock is held while the platform answers (on SQLite a write
    transaction holds the whole database). None: sent, settled, or being sent by another run."""
    with transaction.atomic():
        post = (
            ScorePost.objects.select_for_update(of=("self",))
            .select_related("attempt", "link__registration")
            .filter(pk=score_post_id)
            .first()
        )
        if post is None or post.status in DONE:
            return None
        if post.status == ScorePost.Status.SENDING and post.updated_at > now - SENDING_STALE:
            return None
        post.status = ScorePost.Status.SENDING
        post.tries += 1
        post.updated_at = now
        post.save(update_fields=["status", "tries", "updated_at"])
    return post


@task
def post_score(score_post_id: int) -> str:
    """Send one attempt's score; never a second time once sent."""
    now = timezone.now()
    post = _claim(score_post_id, now)
    if post is None:
        found = ScorePost.objects.filter(pk=score_post_id).values_list("status", flat=True)
        return found.first() or "missing"
    if not _grade_changes(post):
        post.status = ScorePost.Status.SKIPPED
        post.next_try_at = None
    else:
        try:
            _send(post)
        except ForeignLineItem as error:
            logger.warning("Score for attempt %s not sent: %s", post.attempt_id, error)
            post.last_error = str(error)
            post.status = ScorePost.Status.GAVE_UP
            post.next_try_at = None
        except (LtiException, LtiServiceException, requests.RequestException) as error:
            logger.warning("Score for attempt %s not sent: %s", post.attempt_id, error)
            post.last_error = str(error)[:2000] or error.__class__.__name__
            if post.tries >= MAX_TRIES:
                post.status = ScorePost.Status.GAVE_UP
                post.next_try_at = None
            else:
                post.status = ScorePost.Status.FAILED
                post.next_try_at = now + backoff(post.tries)
        else:
            post.status = ScorePost.Status.SENT
            post.last_error = ""
            post.next_try_at = None
    post.updated_at = timezone.now()
    post.save(
        update_fields=[
            "status",
            "score_given",
            "score_maximum",
            "last_error",
            "next_try_at",
            "updated_at",
        ]
    )
    lti_score_tried(post.status)
    if post.status == ScorePost.Status.FAILED and post_score.get_backend().supports_defer:
        post_score.using(run_after=post.next_try_at).enqueue(score_post_id)
    return post.status


def scores_retry(*, now: datetime | None = None) -> int:
    """Send again the scores whose retry is due (for backends that cannot defer a task:
    `manage.py lti_retry_scores` from cron). Returns how many were tried."""
    now = now or timezone.now()
    due = list(
        ScorePost.objects.filter(
            status__in=[ScorePost.Status.FAILED, ScorePost.Status.PENDING],
            next_try_at__lte=now,
        ).values_list("pk", flat=True)
    )
    # Enqueued but never run (a worker lost it), or a send whose process died.
    stuck = ScorePost.objects.filter(
        status__in=[ScorePost.Status.PENDING, ScorePost.Status.SENDING],
        next_try_at=None,
        updated_at__lte=now - SENDING_STALE,
    ).values_list("pk", flat=True)
    for pk in [*due, *stuck]:
        post_score.enqueue(pk)
    return len(due) + len(stuck)
