"""A quiz read into the plain data the writers take (`content.py`), images with their bytes
as stored: what Moodle XML and QTI exports are written from."""

from __future__ import annotations

from django.core.files.base import ContentFile
from django.db.models import Prefetch

from ...models import AcceptedText, Choice, MatchPair, NumericalAnswer, OrderItem, Quiz
from .content import Bilingual, Image, Pair, Part, Question, QuizPart


def bilingual(obj, name: str) -> Bilingual:
    return Bilingual(en=getattr(obj, f"{name}_en") or "", ar=getattr(obj, f"{name}_ar") or "")


def _image(obj, name: str) -> Image | None:
    field = getattr(obj, name)
    if not field:
        return None
    with field.open("rb") as stored:
        data = stored.read()
    base = field.name.rpartition("/")[2]
    return Image(
        content=ContentFile(data, name=base),
        alt=bilingual(obj, f"{name}_alt"),
        name=base,
        width=getattr(obj, f"{name}_width") or 0,
        height=getattr(obj, f"{name}_height") or 0,
    )


def quiz_part(quiz: Quiz) -> QuizPart:
    """`quiz` with every question, in order, as the writers take it."""
    questions = quiz.questions.order_by("position").prefetch_related(
        Prefetch("choices", queryset=Choice.objects.order_by("position")),
        Prefetch("numerical_answers", queryset=NumericalAnswer.objects.order_by("position")),
        Prefetch("accepted_texts", queryset=AcceptedText.objects.order_by("position")),
        Prefetch("pairs", queryset=MatchPair.objects.order_by("position")),
        Prefetch("order_items", queryset=OrderItem.objects.order_by("position")),
    )
    part = QuizPart(title=bilingual(quiz, "title"), description=bilingual(quiz, "description"))
    for question in questions:
        kind = question.kind
        parts: list[Part] = []
        if kind in ("single", "multiple", "truefalse"):
            parts = [
                Part(
                    text=bilingual(choice, "text"),
                    fraction=choice.fraction.normalize(),
                    feedback=bilingual(choice, "feedback"),
                    image=_image(choice, "image"),
                )
                for choice in question.choices.all()
            ]
        elif kind == "numerical":
            parts = [
                Part(
                    value=answer.value.normalize(),
                    tolerance=answer.tolerance.normalize(),
                    fraction=answer.fraction.normalize(),
                    feedback=bilingual(answer, "feedback"),
                )
                for answer in question.numerical_answers.all()
            ]
        elif kind == "short":
            parts = [
                Part(
                    text=bilingual(accepted, "text"),
                    fraction=accepted.fraction.normalize(),
                    feedback=bilingual(accepted, "feedback"),
                    exact=accepted.exact,
                )
                for accepted in question.accepted_texts.all()
            ]
        elif kind == "ordering":
            parts = [Part(text=bilingual(item, "text")) for item in question.order_items.all()]
        part.questions.append(
            Question(
                kind=kind,
                prompt=bilingual(question, "prompt"),
                explanation=bilingual(question, "explanation"),
                name=f"Q{question.position}",
                image=_image(question, "image"),
                explanation_image=_image(question, "explanation_image"),
                parts=parts,
                pairs=[
                    Pair(prompt=bilingual(pair, "prompt"), match=bilingual(pair, "match"))
                    for pair in question.pairs.all()
                ],
                shuffle=quiz.shuffle_choices,
            )
        )
    return part
