from modeltranslation.translator import TranslationOptions, register

from .models import (
    AcceptedText,
    Choice,
    Guide,
    MatchPair,
    NumericalAnswer,
    OrderItem,
    Question,
    Quiz,
)


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
    fields = ("prompt", "explanation", "image_alt", "explanation_image_alt")
    # An image's alt text is required in English only with an image (the admin's forms).
    required_languages = {"en": ("prompt", "explanation")}


@register(Choice)
class ChoiceTranslationOptions(TranslationOptions):
    fields = ("text", "feedback", "image_alt")
    # Feedback is optional in every language; only the choice's text is required in English.
    required_languages = {"en": ("text",)}


@register(NumericalAnswer)
class NumericalAnswerTranslationOptions(TranslationOptions):
    fields = ("feedback",)
    required_languages = {}


@register(AcceptedText)
class AcceptedTextTranslationOptions(TranslationOptions):
    # An accepted answer in each language the learner may answer in; English is required.
    fields = ("text", "feedback")
    required_languages = {"en": ("text",)}


@register(MatchPair)
class MatchPairTranslationOptions(TranslationOptions):
    fields = ("prompt", "match")
    required_languages = {"en": ("match",)}


@register(OrderItem)
class OrderItemTranslationOptions(TranslationOptions):
    fields = ("text",)
    required_languages = {"en": ("text",)}
