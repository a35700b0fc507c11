from modeltranslation.translator import TranslationOptions, register

from .models import Choice, Guide, Question, Quiz


@register(Guide)
class GuideTranslationOptions(TranslationOptions):
    fields = ("title",)
    required_languages = ("en",)


@register(Quiz)
class QuizTranslationOptions(TranslationOptions):
    fields = ("title", "description")
    required_languages = {"en": ("title",)}


@register(Question)
class QuestionTranslationOptions(TranslationOptions):
    fields = ("prompt", "explanation")
    required_languages = ("en",)


@register(Choice)
class ChoiceTranslationOptions(TranslationOptions):
    fields = ("text",)
    required_languages = ("en",)
