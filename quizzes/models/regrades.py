"""Regrades: an instructor's (or the command's) re-marking of finished attempts' answers under
a question's key as it stands now, and its audit trail (quizzes/attempts/regrade.py writes
them). The trail keeps each changed mark's before and after, keys included, so it reads the
same after the question is edited again."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .attempts import Answer, Attempt
from .content import Question, Quiz


class Regrade(models.Model):
    """One regrade of a quiz (or of one of its questions): who asked, when, and how it went;
    its progress while the worker applies it."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        # The answers changed between the preview and its application: nothing was applied.
        STALE = "stale", _("not applied: the answers changed since the preview")
        FAILED = "failed", _("failed")

    quiz = models.ForeignKey(
        Quiz, on_delete=models.CASCADE, related_name="regrades", verbose_name=_("quiz")
    )
    # None: every question of the quiz.
    question = models.ForeignKey(
        Question,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="regrades",
        verbose_name=_("question"),
    )
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("regraded by"),
    )
    requested_at = models.DateTimeField(_("requested"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.QUEUED
    )
    # The preview's digest (quizzes.attempts.regrade.RegradePreview.digest): what is applied
    # is exactly what was previewed, or nothing.
    digest = models.CharField(_("preview"), max_length=64, editable=False)
    # Progress: the preview's answers, and those applied so far.
    planned_answers = models.PositiveIntegerField(_("answers to regrade"), default=0)
    done_answers = models.PositiveIntegerField(_("answers done"), default=0)
    answers_changed = models.PositiveIntegerField(_("answers changed"), default=0)
    attempts_changed = models.PositiveIntegerField(_("attempts changed"), default=0)

    class Meta:
        ordering = ["-requested_at"]
        verbose_name = _("regrade")
        verbose_name_plural = _("regrades")

    def __str__(self) -> str:
        return f"{self.quiz} · {self.requested_at:%Y-%m-%d %H:%M}"

    @property
    def progress_percent(self) -> int:
        if not self.planned_answers:
            return 100
        return round(100 * self.done_answers / self.planned_answers)


class RegradedAnswer(models.Model):
    """One answer a regrade changed: its mark and key before and after."""

    regrade = models.ForeignKey(
        Regrade, on_delete=models.CASCADE, related_name="answers", verbose_name=_("regrade")
    )
    answer = models.ForeignKey(
        Answer, on_delete=models.CASCADE, related_name="regrades", verbose_name=_("answer")
    )
    attempt = models.ForeignKey(
        Attempt, on_delete=models.CASCADE, related_name="+", verbose_name=_("attempt")
    )
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="+", verbose_name=_("question")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="regraded_answers",
        verbose_name=_("learner"),
    )
    old_fraction = models.DecimalField(_("mark before"), max_digits=5, decimal_places=4)
    new_fraction = models.DecimalField(_("mark after"), max_digits=5, decimal_places=4)
    old_key = models.JSONField(_("key before"), default=dict, blank=True)
    new_key = models.JSONField(_("key after"), default=dict, blank=True)
    old_correct_choice_id = models.BigIntegerField(_("correct choice before"), null=True)
    new_correct_choice_id = models.BigIntegerField(_("correct choice after"), null=True)

    class Meta:
        ordering = ["regrade", "attempt", "question__position"]
        verbose_name = _("regraded answer")
        verbose_name_plural = _("regraded answers")

    def __str__(self) -> str:
        return f"{self.attempt_id}: {self.old_fraction} → {self.new_fraction}"


class RegradedAttempt(models.Model):
    """One attempt whose score a regrade changed: what its learner's result and history say
    ("Regraded on DATE: 3 → 4")."""

    regrade = models.ForeignKey(
        Regrade, on_delete=models.CASCADE, related_name="attempts", verbose_name=_("regrade")
    )
    attempt = models.ForeignKey(
        Attempt, on_delete=models.CASCADE, related_name="regrades", verbose_name=_("attempt")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="regraded_attempts",
        verbose_name=_("learner"),
    )
    old_score = models.DecimalField(_("score before"), max_digits=9, decimal_places=4)
    new_score = models.DecimalField(_("score after"), max_digits=9, decimal_places=4)
    total = models.PositiveSmallIntegerField(_("out of"), default=0)
    at = models.DateTimeField(_("regraded"), default=timezone.now)

    class Meta:
        ordering = ["attempt", "at"]
        verbose_name = _("regraded attempt")
        verbose_name_plural = _("regraded attempts")
        indexes = [models.Index(fields=["user", "at"], name="regraded_attempt_user_idx")]

    def __str__(self) -> str:
        return f"{self.attempt_id}: {self.old_score} → {self.new_score}"

    @property
    def gained(self) -> Decimal:
        return self.new_score - self.old_score
