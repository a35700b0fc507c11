"""Keep `Quiz.updated_at` a version stamp for the quiz's cached content.

Content is cached under a key that includes `updated_at` (see `quizzes.content`), so touching
the quiz whenever any of its parts change makes every process, whatever its cache, read the
new content on its next request.
"""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils import timezone

from .models import Choice, Guide, Question, Quiz


def _touch_quizzes(**filters) -> None:
    Quiz.objects.filter(**filters).update(updated_at=timezone.now())


@receiver([post_save, post_delete], sender=Question)
def question_changed(sender, instance: Question, raw: bool = False, **kwargs) -> None:
    if not raw:
        _touch_quizzes(pk=instance.quiz_id)


@receiver([post_save, post_delete], sender=Choice)
def choice_changed(sender, instance: Choice, raw: bool = False, **kwargs) -> None:
    if not raw:
        _touch_quizzes(questions__pk=instance.question_id)


@receiver(post_save, sender=Guide)
def guide_changed(sender, instance: Guide, raw: bool = False, **kwargs) -> None:
    if not raw:
        _touch_quizzes(guide=instance)
