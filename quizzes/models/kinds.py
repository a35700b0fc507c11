"""The parts of the questions learners type, match and put in order: a short-answer
question's accepted texts, a matching question's pairs, an ordering question's items."""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from ..short_answers import shadowed_answers
from .content import OrderedPart, Question, QuestionPart, QuestionPartManager

# What a learner may type for a short answer, and what an instructor may accept.
SHORT_ANSWER_MAX_LENGTH = 200
# A matching prompt, a match, an item to order.
PART_TEXT_MAX_LENGTH = 300


class AcceptedText(QuestionPart):
    """A short-answer question's accepted answer, worth `fraction` of the mark (a whole
    answer 1, a partly right one less). Matched as people type (quizzes/short_answers.py): case,
    spaces, punctuation around it, the kind of hyphen, and in Arabic diacritics, tatweel, the
    forms of alef, hamza seats, final ة/ه and ى/ي, and Arabic-Indic digits do not count,
    unless it is `exact`."""

    question = models.ForeignKey(
        Question,
        on_delete=models.CASCADE,
        related_name="accepted_texts",
        verbose_name=_("question"),
    )
    text = models.CharField(_("accepted answer"), max_length=SHORT_ANSWER_MAX_LENGTH)
    fraction = models.DecimalField(_("weight"), max_digits=8, decimal_places=7, default=Decimal(1))
    exact = models.BooleanField(
        _("exact"),
        default=False,
        help_text=_("Match exactly as written: case, diacritics and letter forms count."),
    )

    objects = QuestionPartManager["AcceptedText"]()

    class Meta(QuestionPart.Meta):
        verbose_name = _("accepted answer")
        verbose_name_plural = _("accepted answers")
        constraints = [
            models.UniqueConstraint(
                fields=["question", "position"], name="accepted_text_position_unique"
            ),
            models.CheckConstraint(
                condition=Q(fraction__gt=0, fraction__lte=1),
                name="accepted_text_weight_above_zero_up_to_one",
            ),
        ]

    def __str__(self) -> str:
        return self.text


class MatchPair(OrderedPart):
    """A matching question's pair: a `prompt` and the `match` that goes with it. A pair with
    no prompt is a distractor: its match is offered to every prompt and right for none."""

    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="pairs", verbose_name=_("question")
    )
    # «البند» and «ما يقابله»: not a question's own prompt («نص السؤال»).
    prompt = models.CharField(
        pgettext_lazy("a matching pair's", "prompt"),
        max_length=PART_TEXT_MAX_LENGTH,
        blank=True,
        help_text=_("Leave empty for a match that goes with no prompt (a distractor)."),
    )
    match = models.CharField(
        pgettext_lazy("a matching pair's", "match"), max_length=PART_TEXT_MAX_LENGTH
    )

    objects = QuestionPartManager["MatchPair"]()

    class Meta(OrderedPart.Meta):
        verbose_name = _("pair")
        verbose_name_plural = _("pairs")
        constraints = [
            models.UniqueConstraint(fields=["question", "position"], name="pair_position_unique")
        ]

    def __str__(self) -> str:
        if not self.prompt:
            return self.match
        # Item analysis's words: «المرحلة الأولى ← حالات المُحسِّن» (an arrow that points the
        # way the line reads).
        return _("%(prompt)s → %(match)s") % {"prompt": self.prompt, "match": self.match}


class OrderItem(OrderedPart):
    """An ordering question's item; its `position` is its place in the right order."""

    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="order_items", verbose_name=_("question")
    )
    # «الموضع»: not «الترتيب», the kind's own name.
    position = models.PositiveSmallIntegerField(
        pgettext_lazy("an item's place in the right order", "position")
    )
    text = models.CharField(_("text"), max_length=PART_TEXT_MAX_LENGTH)

    objects = QuestionPartManager["OrderItem"]()

    class Meta(OrderedPart.Meta):
        verbose_name = _("item to order")
        verbose_name_plural = _("items to order")
        constraints = [
            models.UniqueConstraint(
                fields=["question", "position"], name="order_item_position_unique"
            )
        ]

    def __str__(self) -> str:
        return self.text


def validate_accepted_texts(texts: list[tuple[int | None, Decimal]]) -> None:
    """Raise ValidationError unless `(position, fraction)` rows make a short-answer question:
    at least one accepted answer worth the whole mark."""
    errors = []
    if not any(fraction == 1 for _position, fraction in texts):
        errors.append(_("Give at least one accepted answer worth 100%."))
    _distinct_positions(texts, errors)
    if errors:
        raise ValidationError(errors)


def shadowed_texts(texts: list[tuple[int, str, str, Decimal, bool]]) -> list[tuple[int, str]]:
    """The accepted answers of one question, `(number, English text, Arabic text, fraction,
    exact)` in their order, that no learner's answer can ever earn, as (number, what to say):
    another one folded alike and worth as much marks every answer first
    (short_answers.shadowed_answers). The admin refuses them; the GIFT importer warns and
    imports them (Moodle may read them apart, as a case-sensitive question does)."""
    found = shadowed_answers([((en, ar), fraction, exact) for _n, en, ar, fraction, exact in texts])
    return [
        (
            texts[number - 1][0],
            _(
                "Accepted answers %(first)d and %(second)d are one answer as Daleel matches "
                "answers (“%(text)s”), so answer %(second)d never counts: remove it, or make "
                "answer %(first)d exact."
            )
            % {
                "first": texts[other - 1][0],
                "second": texts[number - 1][0],
                "text": texts[number - 1][1] or texts[number - 1][2],
            },
        )
        for number, other in found
    ]


def validate_pairs(pairs: list[tuple[int | None, bool]]) -> None:
    """Raise ValidationError unless `(position, has a prompt)` rows make a matching question:
    at least two prompts with their matches (pairs without a prompt are distractors)."""
    errors = []
    if sum(1 for _position, prompted in pairs if prompted) < 2:
        errors.append(_("A matching question needs at least two pairs with a prompt."))
    _distinct_positions(pairs, errors)
    if errors:
        raise ValidationError(errors)


def validate_items(items: list[tuple[int | None]]) -> None:
    """Raise ValidationError unless `(position,)` rows make an ordering question: at least two
    items, whose positions are their right order."""
    errors = []
    if len(items) < 2:
        errors.append(_("An ordering question needs at least two items."))
    _distinct_positions(items, errors)
    if errors:
        raise ValidationError(errors)


def _distinct_positions(rows, errors: list) -> None:
    positions = [row[0] for row in rows if row[0] is not None]
    if len(positions) != len(set(positions)):
        errors.append(_("Two rows share a position; give each its own position."))


# What each kind's parts are, for the admin and the importer: the related name of its rows
# and the check they must pass together.
def parts_problems(kind: str, texts=(), pairs=(), items=()) -> None:
    """Raise ValidationError unless the rows of a question of `kind` (model instances, or
    anything with their fields) make it whole; and unless the rows of the other kinds are
    gone."""
    if kind != "short" and texts:
        raise ValidationError(_("Only a short-answer question has accepted answers; delete them."))
    if kind != "matching" and pairs:
        raise ValidationError(_("Only a matching question has pairs; delete them."))
    if kind != "ordering" and items:
        raise ValidationError(_("Only an ordering question has items to order; delete them."))
    if kind == "short":
        validate_accepted_texts([(t.position, t.fraction) for t in texts])
    elif kind == "matching":
        validate_pairs([(p.position, bool(p.prompt_en or p.prompt_ar)) for p in pairs])
    elif kind == "ordering":
        validate_items([(i.position,) for i in items])
