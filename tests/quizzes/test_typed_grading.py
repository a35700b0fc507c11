"""Marking typed, matched and ordered answers (no database): Arabic as it is typed, and every
partial-credit rule."""

from decimal import Decimal as D
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzes.content import AcceptedTextData, ItemData, PairData
from quizzes.grading import grade_matches, grade_order, grade_text, longest_in_order
from quizzes.short_answers import folded, matches, shadowed_answers
from tests.factories import question_data


# Each row's case, after the first thirteen, failed before issue 53 (and issue 52's point 7).
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
        # Punctuation around the answer: a final full stop, Arabic comma, question mark,
        # semicolon; Latin ones; one before the answer.
        ("حالة المُحَسِّن.", "حالة المُحسِّن"),
        ("حالات المحسن،", "حالات المحسن"),
        ("التجزئة؟", "التجزئة"),
        ("التجزئة ؛", "التجزئة"),
        ("Gradients!", "gradients"),
        ("optimizer states?", "optimizer states"),
        ("، حالات المحسن", "حالات المحسن"),
        ("all-gather...", "all-gather"),
        # Hamza seats.
        ("مسئول", "مسؤول"),
        ("شئون", "شؤون"),
        ("شئ", "شيء"),
        ("بطئ", "بطيء"),
        ("قرائة", "قراءة"),
        # The Arabic decimal and thousands separators.
        ("12٫5", "12.5"),
        ("١٢٫٥", "12.5"),
        ("1٬000", "1,000"),
        # Persian yeh and keheh.
        ("ذاکرة", "ذاكرة"),
        ("تدریب", "تدريب"),
        ("مستوی", "مستوى"),
        # Hyphens and dashes: the glossary's non-breaking hyphen (U+2011), U+2010, figure
        # and en dashes, the minus sign.
        ("all-gather", "all\u2011gather"),
        ("all\u2010gather", "all-gather"),
        ("reduce\u2012scatter", "reduce-scatter"),
        ("reduce\u2013scatter", "reduce\u2011scatter"),
        ("\u22120.5", "-0.5"),
        # Invisible characters (issue 52, point 7): zero-width space, BOM, soft hyphen,
        # embeddings, the word joiner.
        ("المحسن\u200b", "المحسن"),
        ("\ufeffZeRO", "ZeRO"),
        ("opti\u00admizer", "optimizer"),
        ("\u202bالمعاملات\u202c", "المعاملات"),
        ("Ze\u2060RO", "ZeRO"),
    ],
)
def test_folding_ignores_what_people_type_differently(typed, accepted):
    assert matches(typed, accepted)
    assert folded(typed) == folded(accepted)


@pytest.mark.parametrize(
    ("typed", "accepted"),
    [
        ("gradient", "gradients"),
        ("المحسن", "المحسنات"),
        ("16", "61"),
        ("تدرج", "درج"),
        ("حالات محسن", "حالات المحسن"),  # the article dropped
        ("جزء", "جزيء"),  # a part is not a molecule: a final يء is not a bare ء
        ("بطء", "بطيء"),
        ("all gather", "all-gather"),
        ("12.5", "125"),
        ("", "؟"),  # an accepted answer of punctuation alone is matched as written
        (".", "?"),
    ],
)
def test_folding_keeps_what_makes_another_word(typed, accepted):
    assert not matches(typed, accepted)


def test_an_answer_of_punctuation_alone_matches_itself():
    assert matches(" ؟ ", "؟")


def test_an_exact_answer_counts_case_diacritics_punctuation_and_hyphens_but_not_spaces():
    assert matches("  ZeRO-3 ", "ZeRO-3", exact=True)
    assert not matches("zero-3", "ZeRO-3", exact=True)
    assert not matches("المحسّن", "المحسن", exact=True)
    assert not matches("حالة المحسن.", "حالة المحسن", exact=True)
    assert not matches("all-gather", "all\u2011gather", exact=True)
    assert not matches("مسئول", "مسؤول", exact=True)


@pytest.mark.parametrize(
    ("typed", "accepted"),
    [
        ("\u200fZeRO-3\u200b", "ZeRO-3"),
        ("\ufeffZeRO-3", "ZeRO-3"),
        ("Ze\u00adRO-3", "ZeRO-3"),
        ("\u2066ZeRO-3\u2069", "ZeRO-3"),
        ("e\u0301tat", "\u00e9tat"),  # e + combining acute (NFD) is é (NFC)
        ("\u0627\u0653لية", "آلية"),  # alef + madda above is alef madda
    ],
)
def test_an_exact_answer_drops_invisible_characters_and_compares_composed_forms(typed, accepted):
    assert matches(typed, accepted, exact=True)
    assert matches(accepted, typed, exact=True)


def test_an_accepted_answer_outweighed_by_one_folded_alike_is_shadowed():
    rows = [
        (("TCP", ""), D(1), False),
        (("tcp", ""), D("0.5"), False),  # the GIFT sample: a dead row here
        (("Tcp", ""), D(1), True),  # exact, but everything it matches "TCP" matches too
        (("TCP/IP", ""), D("0.5"), False),
        (("tcp", "تي سي بي"), D("0.5"), False),  # its Arabic earns its weight
    ]
    assert shadowed_answers(rows) == [(2, 1), (3, 1)]
    # An exact answer worth more than a folded one alike is not shadowed, nor is the
    # folded one (it marks what the exact one does not).
    assert shadowed_answers([(("ZeRO",), D(1), True), (("zero",), D("0.5"), False)]) == []
    # Of two alike and worth the same, the second is the dead row, whichever its language.
    rows = [(("optimizer", "المُحسِّن"), D(1), False), (("المحسن.", ""), D(1), False)]
    assert shadowed_answers(rows) == [(2, 1)]


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
