"""Quizzes for the Moodle XML and QTI tests: every kind, both languages, rich text, images;
and what a quiz holds, as one comparable value."""

from __future__ import annotations

import io
from decimal import Decimal

from django.core.files.base import ContentFile
from PIL import Image

from quizzes.content import content_changed
from quizzes.models import Choice, Question, Quiz
from tests import factories


def png(colour=(10, 120, 200, 255), size=(40, 30)) -> bytes:
    out = io.BytesIO()
    image = Image.new("RGBA", size, colour)
    image.putpixel((3, 4), (250, 0, 0, 128))  # not one flat colour: pixels to compare
    image.save(out, format="PNG")
    return out.getvalue()


def gif(size=(12, 9)) -> bytes:
    out = io.BytesIO()
    Image.new("P", size, 3).save(out, format="GIF")
    return out.getvalue()


def pixels(field) -> tuple | None:
    """An image field's pixels, as decoded (None: no image)."""
    if not field:
        return None
    with field.open("rb") as stored, Image.open(stored) as image:
        return image.size, image.convert("RGBA").tobytes()


def make_exchange_quiz(**fields) -> Quiz:
    """A quiz of every kind, with Arabic (right to left, Arabic-Indic digits, diacritics),
    Markdown (emphasis, code, math, a list, a link) and images on a question, an explanation
    and a choice."""
    quiz = factories.make_quiz(
        questions=1,
        title_en="Sharded optimizers",
        title_ar="المُحسِّنات المجزّأة",
        description_en="How **ZeRO** shards state; see <https://example.org/zero>.",
        description_ar="كيف تجزّئ تقنية ZeRO الحالات: ١٢ بايتًا لكل معامل.",
        shuffle_choices=True,
        **fields,
    )
    first = quiz.questions.get(position=1)
    first.prompt_en = "Which stage shards the *optimizer states* (`os`), $\\frac{1}{N}$ each?"
    first.prompt_ar = "أيُّ مرحلةٍ تُجزِّئ حالاتِ المُحسِّن؟ الجواب ٣ مراحل."
    first.explanation_en = "Stage one:\n\n- states\n- not gradients\n\n> a quote"
    first.explanation_ar = "المرحلة الأولى تُجزِّئ حالات المُحسِّن فقط."
    first.image.save("diagram.png", ContentFile(png()), save=False)
    first.image_alt_en = "A diagram of the stages"
    first.image_alt_ar = "رسم بياني للمراحل"
    first.explanation_image.save("why.gif", ContentFile(gif()), save=False)
    first.explanation_image_alt_en = "Why"
    first.save()
    right = first.choices.get(is_correct=True)
    right.feedback_en = "Right: **ZeRO-1**."
    right.feedback_ar = "صحيح: المرحلة ١."
    right.image.save("stage.png", ContentFile(png((0, 200, 0, 255), (20, 20))), save=False)
    right.image_alt_en = "Stage one"
    right.save()
    wrong = first.choices.exclude(pk=right.pk).first()
    wrong.feedback_en = "No."
    wrong.save()
    factories.add_multiple_question(quiz, 2)
    factories.add_truefalse_question(quiz, 3, answer=False)
    factories.add_numerical_question(quiz, 4, answers=((16, 0.5, 1), (8, 0, 0.5), (-2.25, 0, 0.25)))
    factories.add_short_question(
        quiz,
        5,
        accepted=(
            ("optimizer states", "حالات المُحسِّن", 1, False),
            ("states", "", 0.5, False),
        ),
    )
    factories.add_matching_question(quiz, 6)
    factories.add_ordering_question(quiz, 7)
    short = quiz.questions.get(position=5).accepted_texts.get(position=1)
    short.feedback_en = "Yes."
    short.feedback_ar = "نعم."
    short.save()
    number = quiz.questions.get(position=4).numerical_answers.get(position=2)
    number.feedback_en = "Half: that is a half's bytes."
    number.save()
    content_changed(quiz=quiz)
    return quiz


def exact_short_question(quiz: Quiz, position: int) -> Question:
    return factories.add_short_question(
        quiz, position, accepted=(("TCP", "تي سي بي", 1, True), ("tcp", "", 0.5, True))
    )


def quiz_content(quiz: Quiz) -> dict:
    """Everything an export carries of a quiz, in order."""
    questions = []
    for question in quiz.questions.order_by("position"):
        choices = [
            (
                c.position,
                c.text_en,
                c.text_ar or "",
                c.fraction,
                c.is_correct,
                c.feedback_en or "",
                c.feedback_ar or "",
                pixels(c.image),
                c.image_alt_en or "",
                c.image_alt_ar or "",
            )
            for c in Choice.objects.filter(question=question).order_by("position")
        ]
        questions.append(
            {
                "position": question.position,
                "kind": question.kind,
                "prompt": (question.prompt_en, question.prompt_ar or ""),
                "explanation": (question.explanation_en, question.explanation_ar or ""),
                "image": (
                    pixels(question.image),
                    question.image_alt_en or "",
                    question.image_alt_ar or "",
                ),
                "explanation_image": (
                    pixels(question.explanation_image),
                    question.explanation_image_alt_en or "",
                    question.explanation_image_alt_ar or "",
                ),
                "choices": choices,
                "numbers": [
                    (n.position, n.value, n.tolerance, n.fraction, n.feedback_en or "")
                    for n in question.numerical_answers.order_by("position")
                ],
                "accepted": [
                    (
                        t.position,
                        t.text_en,
                        t.text_ar or "",
                        t.fraction,
                        t.exact,
                        t.feedback_en or "",
                        t.feedback_ar or "",
                    )
                    for t in question.accepted_texts.order_by("position")
                ],
                "pairs": [
                    (p.position, p.prompt_en or "", p.prompt_ar or "", p.match_en, p.match_ar or "")
                    for p in question.pairs.order_by("position")
                ],
                "items": [
                    (i.position, i.text_en, i.text_ar or "")
                    for i in question.order_items.order_by("position")
                ],
            }
        )
    return {
        "title": (quiz.title_en, quiz.title_ar or ""),
        "description": (quiz.description_en or "", quiz.description_ar or ""),
        "shuffle_choices": quiz.shuffle_choices,
        "questions": questions,
    }


def weights(values) -> list[Decimal]:
    return [Decimal(str(value)) for value in values]
