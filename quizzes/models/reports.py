"""Problems learners report with questions, for instructors to resolve."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .content import Question, Quiz


class QuestionReportQuerySet(models.QuerySet["QuestionReport"]):
    def open(self) -> QuestionReportQuerySet:
        return self.filter(resolved_at__isnull=True)

    def open_counts_by_question(self, quiz: Quiz) -> dict[int, int]:
        rows = (
            self.open()
            .filter(question__quiz=quiz)
            .values("question_id")
            .annotate(count=Count("pk"))
            .order_by()
        )
        return {row["question_id"]: row["count"] for row in rows}


class QuestionReport(models.Model):
    """A learner's note that something is wrong with a question, for its instructors."""

    class Reason(models.TextChoices):
        WRONG_KEY = "wrong_key", _("The answer marked right is wrong")
        UNCLEAR = "unclear", _("The wording is unclear")
        TRANSLATION = "translation", _("The translation is wrong or missing")
        OTHER = "other", _("Something else")

    MAX_TEXT = 1000

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="question_reports",
        verbose_name=_("learner"),
    )
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="reports", verbose_name=_("question")
    )
    reason = models.CharField(_("reason"), max_length=20, choices=Reason.choices)
    text = models.TextField(_("details"), max_length=MAX_TEXT, blank=True)
    created_at = models.DateTimeField(_("reported"), default=timezone.now)
    resolved_at = models.DateTimeField(_("resolved"), null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("resolved by"),
    )

    objects = QuestionReportQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("question report")
        verbose_name_plural = _("question reports")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "question"],
                condition=Q(resolved_at__isnull=True),
                name="one_open_report_per_learner_and_question",
            ),
            models.CheckConstraint(
                condition=Q(reason__in=["wrong_key", "unclear", "translation", "other"]),
                name="question_report_reason_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.question} · {self.get_reason_display()}"

    @property
    def is_open(self) -> bool:
        return self.resolved_at is None
