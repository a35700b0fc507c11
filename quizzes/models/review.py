"""Spaced review: a learner's card per missed question and their review answers
(quizzes/review/ writes them)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .attempts import AbstractAnswer
from .content import Choice, Question


class ReviewCard(models.Model):
    """A question a learner missed, scheduled for spaced review (FSRS, `quizzes.review.scheduler`).

    The scheduler's card state is stored field by field; `reviews` counts the answers that
    moved it, and a review form carries it so that a replayed answer moves the card once.
    """

    class State(models.IntegerChoices):
        # fsrs.State's values.
        LEARNING = 1, _("Learning")
        # Not the navigation's "Review" (the page, «المراجعة»): a card's state.
        REVIEW = 2, pgettext_lazy("a review card's state", "Review")
        RELEARNING = 3, _("Relearning")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="review_cards",
        verbose_name=_("learner"),
    )
    # CASCADE: a question an instructor deletes takes its cards with it.
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="review_cards", verbose_name=_("question")
    )
    due = models.DateTimeField(_("due"))
    state = models.PositiveSmallIntegerField(_("state"), choices=State.choices)
    step = models.PositiveSmallIntegerField(_("learning step"), null=True, blank=True)
    stability = models.FloatField(_("stability"), null=True, blank=True)
    difficulty = models.FloatField(_("difficulty"), null=True, blank=True)
    last_review = models.DateTimeField(_("last reviewed"), null=True, blank=True)
    reviews = models.PositiveIntegerField(_("answers"), default=0)
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    # Missed while the learner said "Very sure": a misconception, offered first and said so,
    # until a right answer moves the card.
    sure_miss = models.BooleanField(_("missed when very sure"), default=False)

    class Meta:
        verbose_name = _("review card")
        verbose_name_plural = _("review cards")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "question"], name="one_review_card_per_question"
            )
        ]
        indexes = [models.Index(fields=["user", "due"], name="review_card_due_idx")]

    def __str__(self) -> str:
        return f"{self.user} · {self.question} · {self.due:%Y-%m-%d}"


class ReviewAnswer(AbstractAnswer):
    """One answer given in a review, with the columns of any recorded answer
    (`AbstractAnswer`): statistics and mastery read these; no attempt changes."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="review_answers",
        verbose_name=_("learner"),
    )
    question = models.ForeignKey(
        Question,
        on_delete=models.CASCADE,
        related_name="review_answers",
        verbose_name=_("question"),
    )
    card = models.ForeignKey(
        ReviewCard, on_delete=models.CASCADE, related_name="answers", verbose_name=_("card")
    )
    # The card's `reviews` when the question was shown: one answer per showing.
    revision = models.PositiveIntegerField(_("revision"))
    choice = models.ForeignKey(
        Choice, on_delete=models.SET_NULL, null=True, related_name="+", verbose_name=_("choice")
    )
    correct_choice = models.ForeignKey(
        Choice,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("correct choice"),
    )

    class Rating(models.IntegerChoices):
        # fsrs.Rating's values.
        AGAIN = 1, _("Again")
        HARD = 2, _("Hard")
        GOOD = 3, _("Good")
        EASY = 4, _("Easy")

    # How the answer moved the card: Again when wrong; Good when right, until the learner
    # says Hard or Easy (quizzes.review.services.review_rate). Empty for answers before self-rating.
    rating = models.PositiveSmallIntegerField(
        _("rating"), choices=Rating.choices, null=True, blank=True
    )
    # The card's scheduler state before this answer (fsrs.Card.to_dict()), so that a rating
    # given after the answer schedules the card again from where it was.
    card_before = models.JSONField(_("card before"), null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-answered_at"]
        verbose_name = _("review answer")
        verbose_name_plural = _("review answers")
        constraints = [
            models.UniqueConstraint(
                fields=["card", "revision"], name="one_review_answer_per_showing"
            )
        ]
        indexes = [models.Index(fields=["user", "question"], name="review_answer_learner_idx")]

    def __str__(self) -> str:
        return _("%(learner)s in a review, %(answered)s") % {
            "learner": self.user,
            "answered": date_format(timezone.localtime(self.answered_at), "DATETIME_FORMAT"),
        }
