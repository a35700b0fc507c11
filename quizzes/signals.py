"""Keep `Quiz.updated_at` a version stamp for the quiz's cached content.

Content is cached under a key that includes `updated_at` (see `quizzes.content`), so touching
the quiz whenever any of its parts change makes every process, whatever its cache, read the
new content on its next request.
"""

from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver
from django.utils import timezone

from .models import Choice, Guide, NumericalAnswer, Question, Quiz


def _touch_quizzes(**filters) -> None:
    Quiz.objects.filter(**filters).update(updated_at=timezone.now())


@receiver(pre_save, sender=Question)
def question_saving(sender, instance: Question, raw: bool = False, **kwargs) -> None:
    # The admin never moves a question to another quiz, but code may: both quizzes change.
    if not raw and instance.pk is not None:
        instance._quiz_id_before = (
            Question.objects.filter(pk=instance.pk).values_list("quiz_id", flat=True).first()
        )


@receiver([post_save, post_delete], sender=Question)
def question_changed(sender, instance: Question, raw: bool = False, **kwargs) -> None:
    if not raw:
        before = getattr(instance, "_quiz_id_before", None)
        _touch_quizzes(pk__in={instance.quiz_id, before} - {None})


@receiver([post_save, post_delete], sender=Choice)
@receiver([post_save, post_delete], sender=NumericalAnswer)
def choice_changed(sender, instance: Choice, raw: bool = False, **kwargs) -> None:
    if not raw:
        _touch_quizzes(questions__pk=instance.question_id)


@receiver(post_save, sender=Guide)
def guide_changed(sender, instance: Guide, raw: bool = False, **kwargs) -> None:
    if not raw:
        _touch_quizzes(guide=instance)
