"""What `seed_quizzes` remembers of the seed questions it added to a database."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class SeedAddition(models.Model):
    """A question a later seed added to a seed quiz (`fixtures/superseded/additions.json`),
    delivered to this database: loaded with its quiz, or added by `seed_quizzes --update`.
    Once delivered it is the instructors' to keep, edit or delete: a delivered question that
    is gone was deleted, and is not added again."""

    quiz_slug = models.SlugField(_("quiz's slug"), max_length=100)
    position = models.PositiveSmallIntegerField(_("position"))
    delivered_at = models.DateTimeField(_("delivered"), default=timezone.now)

    class Meta:
        verbose_name = _("seed question delivered")
        verbose_name_plural = _("seed questions delivered")
        constraints = [
            models.UniqueConstraint(
                fields=["quiz_slug", "position"], name="seed_addition_unique_per_quiz"
            )
        ]

    def __str__(self) -> str:
        return f"{self.quiz_slug} {self.position}"
