"""The rules a question's key must keep: the weights of its choices and of its accepted
numbers (checked by the admin's forms and by the importers alike)."""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from .content import CHOICE_KINDS, Question

FULL_MARK = Decimal(1)
# Weights are kept to seven decimals (1/3 is 0.3333333): right weights adding up to within
# this of 1 add up to the whole mark.
WEIGHT_SLACK = Decimal("0.00001")


def equal_weights(marks: list[bool], *, kind: str) -> list[Decimal]:
    """The weights "mark the right ones" gives: the right choices share the whole mark; for
    several answers each wrong one takes away a right one's share, for one answer nothing."""
    right = sum(marks) or 1
    share = (FULL_MARK / right).quantize(Decimal("0.0000001"))
    if right == 1:
        share = FULL_MARK
    wrong = -share if kind == Question.Kind.MULTIPLE else Decimal(0)
    return [share if mark else wrong for mark in marks]


def validate_choice_set(
    choices: list[tuple[int | None, bool]] | list[tuple[int | None, bool, Decimal]],
    *,
    kind: str = "single",
    strict_total: bool = True,
) -> None:
    """Raise ValidationError unless `(position, is_correct[, fraction])` rows make a valid
    question of `kind` (without a fraction, the marks' equal weights are assumed).
    `strict_total=False` lets several answers' right weights add up to other than 100%
    (what Moodle's GIFT import lets through, with a warning).

    The one place that says what a well-formed choice question is; the admin's inline
    formset and the GIFT importer both call it.
    """
    rows = [row if len(row) == 3 else (*row, None) for row in choices]
    errors = []
    if kind not in CHOICE_KINDS:
        if rows and kind == Question.Kind.NUMERICAL:
            errors.append(_("A numerical question has no choices; delete them."))
        elif rows:
            errors.append(_("Only a question of choices has choices; delete them."))
        if errors:
            raise ValidationError(errors)
        return
    if kind == Question.Kind.TRUEFALSE and len(rows) != 2:
        errors.append(_("A true-or-false question has exactly two choices: True and False."))
    elif len(rows) < 2:
        errors.append(_("A question needs at least two choices."))
    marks = [bool(is_correct) for _position, is_correct, _fraction in rows]
    defaults = equal_weights(marks, kind=kind)
    fractions = [
        default if fraction is None else fraction
        for (_p, _c, fraction), default in zip(rows, defaults, strict=True)
    ]
    if any(not -1 <= fraction <= 1 for fraction in fractions):
        errors.append(_("A weight is between -100% and 100%."))
    correct = sum(marks)
    if kind == Question.Kind.MULTIPLE:
        if correct == 0 or correct == len(rows):
            errors.append(_("Mark at least one choice right and at least one wrong."))
        positive = sum((f for f in fractions if f > 0), Decimal(0))
        if strict_total and correct and abs(positive - FULL_MARK) > WEIGHT_SLACK:
            errors.append(
                _("The right choices' weights add up to %(total)s%%; they must add up to 100%%.")
                % {"total": f"{(positive * 100).normalize():f}"}
            )
    else:
        full = sum(1 for fraction in fractions if fraction == FULL_MARK)
        if correct == 0:
            errors.append(_("Mark one choice as correct."))
        elif full != 1 or (kind == Question.Kind.TRUEFALSE and correct > 1):
            marked = ", ".join(str(row[0]) for row in rows if row[1] and row[0] is not None)
            errors.append(
                _("Only one choice may be marked correct; choices %(positions)s are.")
                % {"positions": marked}
            )
    if any((f > 0) != mark for f, mark in zip(fractions, marks, strict=True)):
        errors.append(_("A right choice has a positive weight, a wrong one zero or less."))
    positions = [position for position, _correct, _f in rows if position is not None]
    if len(positions) != len(set(positions)):
        errors.append(_("Two choices share a position; give each choice its own position."))
    if errors:
        raise ValidationError(errors)


def validate_numerical_answers(answers: list[tuple[int | None, Decimal]]) -> None:
    """Raise ValidationError unless `(position, fraction)` rows make a numerical question."""
    errors = []
    if not any(fraction == FULL_MARK for _position, fraction in answers):
        errors.append(_("Give at least one accepted number worth 100%."))
    positions = [position for position, _fraction in answers if position is not None]
    if len(positions) != len(set(positions)):
        errors.append(_("Two accepted numbers share a position; give each its own position."))
    if errors:
        raise ValidationError(errors)
