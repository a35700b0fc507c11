"""Marking typed, matched and ordered answers (no database): Arabic as it is typed, and every
partial-credit rule."""

from decimal import Decimal as D
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzes.content import AcceptedTextData, ItemData, PairData
from quizzes.grading import grade_matches, grade_order, grade_text, longest_in_order
from quizzes.short_answers import folded, matches
from tests.factories import question_data


@pytest.mark.parametrize(
    ("typed", "accepted"),
    [
        ("  TCP/IP ", "tcp/ip"),
        ("data   parallel", "Data parallel"),
        ("الْمُحَسِّن", "المحسن"),  # harakat and shadda
        ("إعادة الحساب", "اعاده الحساب"),  # alef with hamza below, final ة
        ("أداء", "اداء"),  # alef with hamza above
        ("آلية", "الية"),  # alef madda
        ("ٱلتدرج", "التدرج"),  # alef wasla
        ("ـالتـدرج", "التدرج"),  # tatweel
        ("مستوى", "مستوي"),  # final ى and ي
        ("١٦", "16"),  # Arabic-Indic digits
        ("۱۶", "16"),  # Eastern Arabic-Indic digits
        ("\u200fالمعاملات\u200f", "المعاملات"),  # bidi marks from a copy
        ("القيمة\u0670", "القيمة"),  # the dagger alef
    ],
)
def test_folding_ignores_what_people_type_differently(typed, accepted):
    assert matches(typed, accepted)
    assert folded(typed) == folded(accepted)


@pytest.mark.parametrize(
    ("typed", "accepted"),
    [("gradient", "gradients"), ("المحسن", "المحسنات"), ("16", "61"), ("تدرج", "درج")],
)
def test_folding_keeps_what_makes_another_word(typed, accepted):
    assert not matches(typed, accepted)


def test_an_exact_answer_counts_case_and_diacritics_but_not_spaces():
    assert matches("  ZeRO-3 ", "ZeRO-3", exact=True)
    assert not matches("zero-3", "ZeRO-3", exact=True)
    assert not matches("المحسّن", "المحسن", exact=True)


def _accepted(*rows):
    return tuple(
        AcceptedTextData(
            pk=n,
            position=n,
            text_en=en,
            text_ar=ar,
            fraction=D(str(weight)),
            exact=exact,
            feedback_en="",
            feedback_ar="",
            rendered={},
        )
        for n, (en, ar, weight, exact) in enumerate(rows, start=1)
    )


def test_a_short_answer_earns_the_best_weight_it_matches_in_either_language():
    question = question_data(
        kind="short",
        texts=_accepted(
            ("optimizer states", "حالات المحسن", 1, False), ("states", "الحالات", 0.5, False)
        ),
    )
    assert grade_text(question, "Optimizer States").fraction == 1
    assert grade_text(question, "حالات المحسّن").fraction == 1
    assert grade_text(question, "الحالات").fraction == D("0.5")
    assert grade_text(question, "gradients").fraction == 0


def test_each_right_match_earns_its_share_and_a_distractor_earns_nothing():
    pairs = tuple(
        PairData(pk=n, position=n, prompt_en=p, prompt_ar="", match_en=m, match_ar="")
        for n, (p, m) in enumerate(
            [("ZeRO-1", "states"), ("ZeRO-2", "gradients"), ("ZeRO-3", "params"), ("", "acts")],
            start=1,
        )
    )
    question = question_data(kind="matching", pairs=pairs)
    assert grade_matches(question, {1: 1, 2: 2, 3: 3}).fraction == 1
    assert grade_matches(question, {1: 1, 2: 2, 3: 4}).fraction == D("0.6667")
    assert grade_matches(question, {1: 4, 2: 4, 3: 4}).fraction == 0


@pytest.mark.parametrize(
    ("places", "longest"),
    [
        ([0, 1, 2, 3], 4),
        ([0, 2, 1, 3], 3),
        ([3, 2, 1, 0], 1),
        ([1, 2, 3, 0], 3),
        ([2, 0, 3, 1], 2),
        ([3, 0, 1, 2], 3),  # D, A, B, C: the run needs its first item dropped
        ([2, 3, 0, 1, 4], 3),  # a run whose tail must be lowered: 2 3 4 or 0 1 4
        ([4, 0, 5, 1, 2, 3], 4),
    ],
)
def test_the_longest_run_in_order_counts_items_not_side_by_side(places, longest):
    assert len(longest_in_order(places)) == longest


@given(st.permutations(range(7)).flatmap(lambda p: st.integers(1, 7).map(lambda n: p[:n])))
def test_the_longest_run_in_order_is_as_long_as_a_brute_force_search_finds(places):
    run = longest_in_order(list(places))
    # A run: indexes in the learner's order whose places rise.
    assert run == sorted(run)
    assert all(places[a] < places[b] for a, b in zip(run, run[1:], strict=False))
    longest = max(
        size
        for size in range(1, len(places) + 1)
        for chosen in combinations(places, size)
        if list(chosen) == sorted(chosen)
    )
    assert len(run) == longest


def test_an_answer_matching_two_accepted_answers_earns_the_higher_weight():
    for rows in (
        [("Optimizer states", "", 0.5, False), ("optimizer states", "", 1, True)],
        [("optimizer states", "", 1, True), ("Optimizer states", "", 0.5, False)],
    ):
        question = question_data(kind="short", texts=_accepted(*rows))
        assert grade_text(question, "optimizer states").fraction == 1
        assert grade_text(question, "OPTIMIZER STATES").fraction == D("0.5")


def test_an_order_earns_the_share_of_its_items_in_the_longest_run_in_order():
    items = tuple(
        ItemData(pk=10 + n, position=n, text_en=f"step {n}", text_ar="") for n in range(4)
    )
    question = question_data(kind="ordering", items=items)
    assert grade_order(question, [10, 11, 12, 13]).fraction == 1
    assert grade_order(question, [10, 12, 11, 13]).fraction == D("0.75")
    assert grade_order(question, [13, 12, 11, 10]).fraction == D("0.25")
