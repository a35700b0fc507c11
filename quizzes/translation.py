from modeltranslation.translator import TranslationOptions, register

from .models import Choice, Guide, NumericalAnswer, Question, Quiz


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
    fields = ("text", "feedback")
    # Feedback is optional in every language; only the choice's text is required in English.
    required_languages = {"en": ("text",)}


@register(NumericalAnswer)
class NumericalAnswerTranslationOptions(TranslationOptions):
    fields = ("feedback",)
    required_languages = {}
