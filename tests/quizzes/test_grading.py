"""The marking rules of each question kind, on hand-made cases (no database)."""

from decimal import Decimal as D

import pytest
from django.core.exceptions import ValidationError

from quizzes.content import ChoiceData, QuestionData
from quizzes.grading import (
    Key,
    NumberError,
    clamp_mark,
    format_mark,
    grade_choices,
    grade_number,
    parse_number,
)
from quizzes.models import (
    equal_weights,
    validate_choice_set,
    validate_numerical_answers,
)
from tests.factories import choice_data, number_data, question_data


def _choice_question(kind: str, weights: list[str]) -> QuestionData:
    choices = [
        choice_data(pk=n, position=n, fraction=D(w), is_correct=D(w) > 0)
        for n, w in enumerate(weights, 1)
    ]
    return question_data(kind=kind, choices=choices)


def _numerical_question(answers: list[tuple[str, str, str]]) -> QuestionData:
    numbers = [
        number_data(pk=n, position=n, value=D(v), tolerance=D(t), fraction=D(f))
        for n, (v, t, f) in enumerate(answers, 1)
    ]
    return question_data(kind="numerical", numbers=numbers)


def _ticked(question: QuestionData, positions: list[int]) -> list[ChoiceData]:
    return [c for c in question.choices if c.position in positions]


# --- Reading a number -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "number"),
    [
        ("16", D(16)),
        ("١٦", D(16)),
        (" 16 ", D(16)),
        ("0.5", D("0.5")),
        ("٠٫٥", D("0.5")),
        ("١٦٫٢٥", D("16.25")),
        ("-3", D(-3)),
        ("\u22123.5", D("-3.5")),
        ("−٣٫٥", D("-3.5")),
        (".5", D("0.5")),
        ("7.", D(7)),
        ("\u200f١٢\u200e", D(12)),  # bidi marks an Arabic keyboard leaves around the digits
        ("0016", D(16)),
        # A decimal comma, where it cannot be a thousands separator.
        ("1,41", D("1.41")),
        ("1,5", D("1.5")),
        ("-1,5", D("-1.5")),
        ("\u2212١,٥", D("-1.5")),
        ("1,4142", D("1.4142")),
        ("0,500", D("0.5")),
        (",5", D("0.5")),
        ("1.41", D("1.41")),
        ("١٫٤١", D("1.41")),
    ],
)
def test_a_number_is_read_in_western_or_arabic_indic_digits(typed, number):
    assert parse_number(typed) == number


@pytest.mark.parametrize(
    "typed",
    [
        "",
        "   ",
        "abc",
        ",",
        "1.5,2",
        "+3",
        "1e3",
        "--1",
        "- 1",
        "1-",
        "16 bytes",
        "١٦ب",
        ".",
        "-",
        "1.2.3",
        "٣.٤٫٥",
        "∞",
        "NaN",
        "0x10",
        "۱۶",
        "½",
        "1 000",
    ],
)
def test_anything_else_is_refused_with_a_message(typed):
    with pytest.raises(NumberError) as refused:
        parse_number(typed)
    assert str(refused.value.message)


@pytest.mark.parametrize("typed", ["1,000", "12,345", "-1,000", "1,000,000", "1,000.5", "1٬000"])
def test_a_comma_that_may_separate_thousands_is_refused_with_the_reason(typed):
    with pytest.raises(NumberError) as refused:
        parse_number(typed)
    assert "thousands" in str(refused.value.message)


def test_a_number_too_long_to_keep_is_refused_not_rounded():
    with pytest.raises(NumberError):
        parse_number("1" * 11)
    with pytest.raises(NumberError):
        parse_number("0." + "1" * 11)
    assert parse_number("9" * 10 + "." + "9" * 10) == D("9999999999.9999999999")


# --- Choices --------------------------------------------------------------------------------


def test_one_answer_earns_the_weight_of_the_choice_picked():
    question = _choice_question("single", ["1", "0", "0.5", "0"])
    assert grade_choices(question, _ticked(question, [1])).fraction == 1
    assert grade_choices(question, _ticked(question, [2])).fraction == 0
    assert grade_choices(question, _ticked(question, [3])).fraction == D("0.5")
    assert grade_choices(question, _ticked(question, [3])).correct_choice.position == 1


def test_several_answers_earn_the_sum_of_the_ticked_weights():
    question = _choice_question("multiple", ["0.5", "0.5", "-0.5", "-0.5"])
    assert grade_choices(question, _ticked(question, [1, 2])).fraction == 1
    assert grade_choices(question, _ticked(question, [1])).fraction == D("0.5")
    assert grade_choices(question, _ticked(question, [1, 3])).fraction == 0


def test_several_answers_never_go_below_nothing_nor_above_the_whole_mark():
    question = _choice_question("multiple", ["0.5", "0.5", "-1", "-1"])
    assert grade_choices(question, _ticked(question, [1, 3, 4])).fraction == 0
    generous = _choice_question("multiple", ["1", "0.5", "-1"])
    assert grade_choices(generous, _ticked(generous, [1, 2])).fraction == 1


def test_ticking_every_box_earns_nothing_with_equal_weights():
    weights = [str(w) for w in equal_weights([True, True, False, False], kind="multiple")]
    question = _choice_question("multiple", weights)
    assert grade_choices(question, _ticked(question, [1, 2, 3, 4])).fraction == 0


def test_thirds_ticked_together_make_the_whole_mark():
    question = _choice_question("multiple", ["0.3333333", "0.3333333", "0.3333333", "-1"])
    assert grade_choices(question, _ticked(question, [1, 2, 3])).fraction == 1
    assert grade_choices(question, _ticked(question, [1])).fraction == D("0.3333")


def test_the_key_of_several_answers_is_kept_with_the_grade():
    question = _choice_question("multiple", ["0.5", "0.5", "-0.5"])
    key = grade_choices(question, _ticked(question, [1])).key
    assert key.weights == {1: D("0.5"), 2: D("0.5"), 3: D("-0.5")}
    assert key.stored("multiple") == {"1": "0.5", "2": "0.5", "3": "-0.5"}  # as Answer.key


# --- Numbers --------------------------------------------------------------------------------


def test_a_number_within_the_tolerance_earns_its_answers_weight():
    question = _numerical_question([("16", "0.5", "1"), ("8", "0", "0.5")])
    assert grade_number(question, D(16)).fraction == 1
    assert grade_number(question, D("16.5")).fraction == 1
    assert grade_number(question, D("15.5")).fraction == 1
    assert grade_number(question, D("16.51")).fraction == 0
    assert grade_number(question, D(8)).fraction == D("0.5")
    assert grade_number(question, D(-16)).fraction == 0


def test_the_key_of_numbers_is_kept_as_answers_have_always_stored_it():
    question = _numerical_question([("16.000", "0.50", "1"), ("8", "0", "0.5")])
    key = grade_number(question, D(16)).key
    stored = key.stored("numerical")
    assert [row[:3] for row in stored] == [["16", "0.5", "1"], ["8", "0", "0.5"]]
    assert Key.read("numerical", stored) == key
    assert Key.read("numerical", []) == Key() == Key.read("single", {})


def test_a_range_is_a_value_give_or_take_half_its_width():
    question = _numerical_question([("110", "10", "1")])  # GIFT's {#100..120}
    assert [grade_number(question, D(n)).fraction for n in (99, 100, 120, 121)] == [0, 1, 1, 0]


def test_overlapping_answers_give_the_best_weight():
    question = _numerical_question([("10", "5", "0.5"), ("10", "1", "1")])
    assert grade_number(question, D(10)).fraction == 1
    assert grade_number(question, D(13)).fraction == D("0.5")


# --- Weights and validation -----------------------------------------------------------------


def test_marking_the_right_ones_fills_equal_weights():
    assert equal_weights([True, True, False, False], kind="multiple") == [
        D("0.5"),
        D("0.5"),
        D("-0.5"),
        D("-0.5"),
    ]
    assert equal_weights([True, False, True, True], kind="multiple")[1] == D("-0.3333333")
    assert equal_weights([False, True, False], kind="single") == [D(0), D(1), D(0)]


def test_several_answers_need_a_right_and_a_wrong_choice():
    with pytest.raises(ValidationError, match="right and at least one wrong"):
        validate_choice_set([(1, True), (2, True)], kind="multiple")
    with pytest.raises(ValidationError, match="right and at least one wrong"):
        validate_choice_set([(1, False), (2, False)], kind="multiple")
    validate_choice_set([(1, True), (2, True), (3, False)], kind="multiple")


def test_the_right_weights_of_several_answers_add_up_to_the_whole_mark():
    with pytest.raises(ValidationError, match="add up to 80%"):
        validate_choice_set(
            [(1, True, D("0.4")), (2, True, D("0.4")), (3, False, D(-1))], kind="multiple"
        )
    validate_choice_set(
        [(1, True, D("0.7")), (2, True, D("0.3")), (3, False, D(0))], kind="multiple"
    )


def test_a_weight_beyond_the_whole_mark_is_refused():
    with pytest.raises(ValidationError, match="between -100% and 100%"):
        validate_choice_set([(1, True, D(1)), (2, False, D(-2))], kind="single")


def test_true_or_false_has_exactly_the_two_choices_one_right():
    with pytest.raises(ValidationError, match="exactly two choices"):
        validate_choice_set([(1, True), (2, False), (3, False)], kind="truefalse")
    with pytest.raises(ValidationError, match="Mark one choice"):
        validate_choice_set([(1, False), (2, False)], kind="truefalse")
    validate_choice_set([(1, False), (2, True)], kind="truefalse")


def test_a_numerical_question_needs_an_answer_worth_the_whole_mark_and_no_choices():
    with pytest.raises(ValidationError, match="worth 100%"):
        validate_numerical_answers([(1, D("0.5"))])
    with pytest.raises(ValidationError, match="no choices"):
        validate_choice_set([(1, True), (2, False)], kind="numerical")
    validate_numerical_answers([(1, D("0.5")), (2, D(1))])


# --- Showing marks --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shown"),
    [(D("3.5000"), "3.5"), (D(4), "4"), (D("2.3333"), "2.33"), (D(0), "0"), (D("0.9999"), "1")],
)
def test_a_mark_is_shown_with_at_most_two_decimals(value, shown):
    assert format_mark(value) == shown


def test_a_mark_stays_between_nothing_and_the_whole():
    assert clamp_mark(D("-0.5")) == 0
    assert clamp_mark(D("1.0000002")) == 1
    assert clamp_mark(D("0.9999999")) == 1


@pytest.mark.parametrize(
    "ticked", [[3], [1, 3, 4], [3, 4]], ids=["one-wrong", "net-negative", "all-wrong"]
)
def test_a_net_negative_mark_of_several_answers_is_exactly_nothing(ticked):
    question = _choice_question("multiple", ["0.5", "0.5", "-1", "-0.5"])

    grade = grade_choices(question, _ticked(question, ticked))

    # Exactly 0, not a negative mark nor a negative zero: it is stored, summed into scores
    # and shown ("0", never "-0").
    assert grade.fraction == 0 and not grade.fraction.is_signed()
    assert str(grade.fraction) == "0.0000"
    assert format_mark(grade.fraction) == "0"
    assert not grade.is_correct
