"""Attempts and their answers: the rows the rules of an attempt write (quizzes/attempts/:
`services.py` decides under `rules.py`, `writes.py` writes)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Case, F, FloatField, Q, Value, When
from django.db.models.functions import Cast, Greatest, NullIf
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _

from ..attempts.rules import DEADLINE_GRACE, AttemptFacts, past_deadline
from ..confidence import LEVEL_NAMES
from .content import Choice, Question, Quiz
from .kinds import SHORT_ANSWER_MAX_LENGTH


def _running(now: datetime | None = None) -> Q:
    """Unfinished and not past its deadline and grace (an overdue attempt takes no answer and
    is finished as soon as something reads it)."""
    now = now or timezone.now()
    return Q(finished_at__isnull=True) & (
        Q(deadline__isnull=True) | Q(deadline__gte=now - DEADLINE_GRACE)
    )


class AttemptQuerySet(models.QuerySet["Attempt"]):
    def in_progress(self) -> AttemptQuerySet:
        """Unfinished, overdue ones included: see `running`."""
        return self.filter(finished_at__isnull=True)

    def running(self, now: datetime | None = None) -> AttemptQuerySet:
        """Unfinished and still taking answers: what a learner is shown as "in progress"."""
        return self.filter(_running(now))

    def finished(self) -> AttemptQuerySet:
        return self.filter(finished_at__isnull=False)

    def best_first(self) -> AttemptQuerySet:
        """Finished attempts, highest grade first (ties: the most recent): the share correct,
        or where an attempt was marked by certainty its CBM grade (`AttemptFacts.grade_fraction`:
        max(0, average) / 3, quizzes/confidence.py)."""
        total = NullIf(Cast(F("total"), FloatField()), 0.0)
        ratio = Case(
            When(
                cbm_score__isnull=False,
                then=Greatest(Cast(F("cbm_score"), FloatField()) / total, Value(0.0)) / Value(3.0),
            ),
            default=Cast(F("score"), FloatField()) / total,
        )
        return self.finished().annotate(ratio=ratio).order_by("-ratio", "-finished_at")


# The columns of an attempt that `progress_of_attempts` reads.
PROGRESS_COLUMNS = ("quiz_id", "finished_at", "deadline", "score", "total")


def progress_of_attempts(
    attempts: Iterable[dict[str, Any]], *, now: datetime | None = None
) -> dict[int, dict]:
    """Per quiz id, from one learner's attempts (PROGRESS_COLUMNS): attempts in progress
    (`in_progress`), overdue, finished, and the best attempt's score out of its own total
    (`best_score`, `best_total`), as `best_first` ranks them (an attempt of no questions
    last)."""
    now = now or timezone.now()
    progress: dict[int, dict] = {}
    best: dict[int, tuple[Decimal, datetime]] = {}
    for attempt in attempts:
        quiz_id, finished_at, score, total = (
            attempt["quiz_id"],
            attempt["finished_at"],
            attempt["score"],
            attempt["total"],
        )
        row = progress.setdefault(
            quiz_id,
            {
                "in_progress": 0,
                "overdue": 0,
                "finished": 0,
                "best_score": None,
                "best_total": None,
            },
        )
        if finished_at is None:
            # Past the deadline and its grace: not finished yet because nothing read it.
            row["overdue" if past_deadline(attempt["deadline"], now) else "in_progress"] += 1
            continue
        row["finished"] += 1
        rank = (score / total if total else Decimal(-1), finished_at)
        if quiz_id not in best or rank > best[quiz_id]:
            best[quiz_id] = rank
            row["best_score"], row["best_total"] = score, total
    return progress


class Attempt(AttemptFacts, models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="attempts",
        verbose_name=_("learner"),
    )
    quiz = models.ForeignKey(
        Quiz, on_delete=models.PROTECT, related_name="attempts", verbose_name=_("quiz")
    )
    started_at = models.DateTimeField(_("started"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    # The sum of the answers' fractions: 3.5 out of 4.
    score = models.DecimalField(_("score"), max_digits=9, decimal_places=4, default=Decimal(0))
    # Number of questions the attempt was scored out of, fixed when it finishes so that
    # questions added later do not change an old result.
    total = models.PositiveSmallIntegerField(_("out of"), default=0)
    # The quiz's settings as they were at the start: an instructor's change applies from the
    # next start, never under a learner's feet.
    feedback = models.CharField(
        _("feedback"), max_length=10, choices=Quiz.Feedback.choices, default=Quiz.Feedback.IMMEDIATE
    )
    # Whether each answer carries how sure the learner was, and whether it marks by it
    # (quizzes/confidence.py), as the quiz said at the start.
    confidence = models.CharField(
        _("confidence"), max_length=10, choices=Quiz.Confidence.choices, default=Quiz.Confidence.OFF
    )
    # Certainty-based marking: the sum of the answers' CBM marks (quizzes/confidence.py), fixed
    # when it finishes; None when the attempt was not marked by certainty.
    cbm_score = models.DecimalField(
        _("certainty-based score"), max_digits=9, decimal_places=4, null=True, blank=True
    )
    # No answer is taken after this (plus a grace for the network: attempts.rules).
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True)
    # {question id: [choice ids]}: this attempt's own order of choices, drawn at the start.
    choice_order = models.JSONField(_("order of choices"), default=dict, blank=True)
    # [question ids]: the questions this attempt drew at its start, in its order; empty for an
    # attempt that drew none (every question of the quiz, in the quiz's order).
    question_order = models.JSONField(_("questions drawn"), default=list, blank=True)
    # A regrade that changed the score (quizzes/attempts/regrade.py): when the last one ran,
    # and the score before the first, for the learner's "Regraded on DATE: 3 → 4" (kept on
    # the row: the step's and the history's reads take no other statement for it).
    regraded_at = models.DateTimeField(_("regraded"), null=True, blank=True)
    score_before_regrade = models.DecimalField(
        _("score before regrading"), max_digits=9, decimal_places=4, null=True, blank=True
    )

    objects = AttemptQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at"]
        verbose_name = _("attempt")
        verbose_name_plural = _("attempts")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "quiz"],
                condition=Q(finished_at__isnull=True),
                name="one_attempt_in_progress_per_learner_and_quiz",
            )
        ]
        indexes = [
            models.Index(fields=["user", "-started_at"], name="attempt_history_idx"),
            # The grades report's page, newest first (or oldest: PostgreSQL reads it backwards).
            models.Index(fields=["quiz", "-started_at", "id"], name="attempt_report_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.quiz} · {self.started_at:%Y-%m-%d %H:%M}"


class QuizOverride(models.Model):
    """One learner's own settings for one quiz: more time and/or more attempts (for an
    accommodation, a retake), applied from their next start."""

    quiz = models.ForeignKey(
        Quiz, on_delete=models.CASCADE, related_name="overrides", verbose_name=_("quiz")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="quiz_overrides",
        verbose_name=_("learner"),
    )
    extra_time = models.DurationField(
        _("extra time"),
        null=True,
        blank=True,
        help_text=_("Added to the quiz's time limit, e.g. 00:10:00 for ten minutes."),
    )
    extra_attempts = models.PositiveSmallIntegerField(
        _("extra attempts"),
        default=0,
        help_text=_("Added to the attempts the quiz allows (when it limits them)."),
    )

    class Meta:
        verbose_name = _("learner override")
        verbose_name_plural = _("learner overrides")
        constraints = [
            models.UniqueConstraint(
                fields=["quiz", "user"], name="one_override_per_learner_and_quiz"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.quiz}"


class AbstractAnswer(models.Model):
    """The columns of a recorded response, an attempt's (`Answer`) or a review's
    (`ReviewAnswer`): what was sent, the key it was marked against, and the mark.
    `grading.grade_response` gives them; `attempts.responses.RecordedAnswer` reads them."""

    # Several answers: the ids of the choices ticked, in the question's order.
    choice_ids = models.JSONField(_("choices ticked"), default=list, blank=True)
    # The key when the learner answered, for the review and the mark (grading.Key): several
    # answers' {choice id: weight}, numbers' and short answers' accepted ones, matching's
    # {prompt: its match}, ordering's right order.
    key = models.JSONField(_("key when answered"), default=dict, blank=True)
    # A numerical question's response, as the learner typed it once read.
    number = models.DecimalField(
        _("number"), max_digits=20, decimal_places=10, null=True, blank=True
    )
    # A short answer as the learner typed it (matched as people type: quizzes/short_answers.py).
    text = models.CharField(_("text typed"), max_length=SHORT_ANSWER_MAX_LENGTH, blank=True)
    # Matching: {prompt's pair id: pair id of the match picked}; ordering: the items' ids in
    # the learner's order.
    arrangement = models.JSONField(_("matches or order"), default=list, blank=True)
    # The share of the question's mark this answer earned, 0 to 1.
    fraction = models.DecimalField(_("mark"), max_digits=5, decimal_places=4, default=Decimal(0))
    # Whole mark earned (fraction 1): what "right" means in counts and analyses.
    is_correct = models.BooleanField(_("correct"))
    answered_at = models.DateTimeField(_("answered"), default=timezone.now)
    # How sure the learner said they were (quizzes/confidence.py: 1 not sure, 2 fairly, 3
    # very); empty where the quiz did not ask.
    confidence = models.PositiveSmallIntegerField(
        _("confidence"), null=True, blank=True, choices=list(LEVEL_NAMES.items())
    )

    class Meta:
        abstract = True


class Answer(AbstractAnswer):
    attempt = models.ForeignKey(
        Attempt, on_delete=models.CASCADE, related_name="answers", verbose_name=_("attempt")
    )
    # PROTECT: deleting content that learners answered would silently rewrite their history.
    question = models.ForeignKey(
        Question, on_delete=models.PROTECT, related_name="answers", verbose_name=_("question")
    )
    # The choice picked (one answer, true or false); empty for the other kinds.
    choice = models.ForeignKey(
        Choice,
        on_delete=models.PROTECT,
        related_name="answers",
        verbose_name=_("choice"),
        null=True,
        blank=True,
    )
    # Which choice was worth the whole mark when the learner answered, so a later change of
    # the key changes neither the score nor the review (one answer, true or false).
    correct_choice = models.ForeignKey(
        Choice,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("correct choice"),
        null=True,
        blank=True,
    )

    class Meta:
        ordering = ["attempt", "question__position"]
        verbose_name = _("answer")
        verbose_name_plural = _("answers")
        constraints = [
            models.UniqueConstraint(
                fields=["attempt", "question"], name="one_answer_per_question_in_attempt"
            ),
            models.CheckConstraint(
                condition=Q(fraction__gte=0, fraction__lte=1), name="answer_fraction_0_to_1"
            ),
        ]

    def __str__(self) -> str:
        # «salma في المحاولة التي بدأت في 5 ديسمبر 2026، 12:15 م», as a delete page lists it
        # (one statement per answer, as a delete page reads them: the learner and the start).
        if "attempt" in self._state.fields_cache:
            learner, started = self.attempt.user.get_username(), self.attempt.started_at
        else:
            learner, started = Attempt.objects.filter(pk=self.attempt_id).values_list(
                "user__username", "started_at"
            )[0]
        return _("%(learner)s in the attempt started %(started)s") % {
            "learner": learner,
            "started": date_format(timezone.localtime(started), "DATETIME_FORMAT"),
        }
