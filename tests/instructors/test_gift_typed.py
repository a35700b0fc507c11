"""GIFT's short-answer and matching questions: read as Moodle reads them, imported, exported
and read back the same; ordering questions left out of the file with a word saying so."""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from hypothesis import given, settings
from hypothesis import strategies as st

from quizzes.instructors.exports import quiz_to_gift
from quizzes.instructors.gift.format import (
    Bilingual,
    GiftPair,
    GiftQuestion,
    GiftText,
    normalize,
    normalize_line,
    parse_gift,
    write_gift,
)
from quizzes.instructors.imports import quiz_import_gift
from quizzes.models import AcceptedText, MatchPair, Question
from tests.factories import add_ordering_question, make_guide, make_quiz

AR_STATES = (
    '<span lang="en" class="multilang">optimizer states</span>'
    '<span lang="ar" class="multilang">حالات المُحسِّن</span>'
)

TYPED = f"""\
$CATEGORY: Typed answers

::short:: What does ZeRO-1 shard? {{
    ={AR_STATES}#{{mlang en}}Right.{{mlang}}{{mlang ar}}صحيح.{{mlang}}
    =%50%states#Which states?
    =%0%gradients#ZeRO-2 adds those.
    ####ZeRO-1 shards the optimizer states only.
}}

::match:: Match each stage with what it adds to the sharding. {{
    =ZeRO-1 -> {AR_STATES}
    =ZeRO-2 -> gradients
    =ZeRO-3 -> parameters
    = -> training data
    ####Each stage shards one more model state.
}}
"""


def _rows(question: Question) -> list[tuple]:
    if question.kind == "short":
        return [
            (t.text_en, t.text_ar, t.fraction, t.feedback_en, t.feedback_ar)
            for t in question.accepted_texts.order_by("position")
        ]
    return [
        (p.prompt_en, p.prompt_ar, p.match_en, p.match_ar)
        for p in question.pairs.order_by("position")
    ]


# --- Reading ---------------------------------------------------------------------------------


def test_a_short_answer_keeps_each_answers_weight_feedback_and_arabic():
    document = parse_gift(TYPED)

    assert document.errors == document.skipped == []
    short = document.questions[0]
    assert short.kind == "short"
    assert [(t.text, t.fraction, t.feedback) for t in short.texts] == [
        (Bilingual("optimizer states", "حالات المُحسِّن"), 1, Bilingual("Right.", "صحيح.")),
        (Bilingual("states", ""), Decimal("0.5"), Bilingual("Which states?", "")),
    ]
    assert short.explanation.en == "ZeRO-1 shards the optimizer states only."
    # Moodle's way of giving feedback on a wrong answer has no place here: left out, said so.
    (warning,) = short.warnings
    assert warning.line == 6 and "An answer worth 0% was left out" in warning.message


def test_a_matching_question_keeps_its_pairs_and_a_distractor_without_a_prompt():
    match = parse_gift(TYPED).questions[1]

    assert match.kind == "matching"
    assert [(p.prompt, p.match) for p in match.pairs] == [
        (Bilingual("ZeRO-1", ""), Bilingual("optimizer states", "حالات المُحسِّن")),
        (Bilingual("ZeRO-2", ""), Bilingual("gradients", "")),
        (Bilingual("ZeRO-3", ""), Bilingual("parameters", "")),
        (Bilingual("", ""), Bilingual("training data", "")),
    ]
    assert [p.line for p in match.pairs] == [11, 12, 13, 14]


@pytest.mark.parametrize(
    ("answers", "texts"),
    [
        # Moodle reads an answer before the first `=` too, and `{tcp}` is one answer.
        ("TCP", [("TCP", 1)]),
        ("=TCP =%50%tcp/ip", [("TCP", 1), ("tcp/ip", Decimal("0.5"))]),
        (r"=a\=b =%100%c", [("a=b", 1), ("c", 1)]),
        ("=[plain]*bold*", [("*bold*", 1)]),
        ("=[html]<b>TCP</b> &amp; IP", [("TCP & IP", 1)]),
    ],
)
def test_short_answers_are_read_as_the_plain_text_a_learner_would_type(answers, texts):
    (question,) = parse_gift(f"Q?{{{answers}}}").questions

    assert [(t.text.en, t.fraction) for t in question.texts] == texts


def test_an_answer_another_always_outweighs_as_daleel_matches_them_is_kept_with_a_warning():
    # Moodle's own sample for a case-sensitive question: here "tcp" is "TCP", folded as the
    # grading folds it (quizzes.short_answers), and "TCP" at 100% always wins.
    (question,) = parse_gift(
        "Which protocol?{\n=TCP\n=%50%tcp.\n=%50%TCP/IP\n=%25%مسئول\n=%25%مسؤول\n####Why.\n}"
    ).questions

    assert [t.text.en for t in question.texts] == ["TCP", "tcp.", "TCP/IP", "مسئول", "مسؤول"]
    assert [(w.line, w.message) for w in question.warnings] == [
        (
            3,
            "Accepted answers 1 and 2 are one answer as Daleel matches answers "
            "(“tcp.”), so answer 2 never counts: remove it, or make answer 1 exact.",
        ),
        (
            6,
            "Accepted answers 4 and 5 are one answer as Daleel matches answers "
            "(“مسؤول”), so answer 5 never counts: remove it, or make answer 4 exact.",
        ),
    ]


def test_a_hash_in_a_match_is_text_as_moodle_reads_it():
    (question,) = parse_gift("Q?{=C# -> a language =F# -> another}").questions

    assert [p.prompt.en for p in question.pairs] == ["C#", "F#"]


@pytest.mark.parametrize(
    ("gift", "reason"),
    [
        ("Q?{=a -> b}", "at least two pairs with a prompt"),
        ("Q?{=a -> b =c -> d =e}", "= prompt -> match"),
        ("Q?{=a -> b = -> c = -> d}", "at least two pairs with a prompt"),
        ("Q?{=%50%half}", "worth 100%"),
        ("Q?{=" + "x" * 201 + "}", "longer than 200 characters"),
        ("Q?{=a -> " + "x" * 301 + " =b -> c}", "longer than 300 characters"),
        ('Q?{=<span lang="ar" class="multilang">ب</span>}', "no English text"),
        ("{=tcp}", "The question has no English text"),
    ],
)
def test_a_short_answer_or_matching_question_the_site_cannot_hold_is_skipped_with_its_reason(
    gift, reason
):
    """The importer skipped these kinds before reading them: a file it took then, it takes now."""
    document = parse_gift(f"Fine?{{=a ~b}}\n\n{gift}")

    assert document.errors == []
    assert len(document.questions) == 1
    (skipped,) = document.skipped
    assert skipped.line == 3
    assert "question not imported" in skipped.message and reason in skipped.message


# --- Into the site and out again -------------------------------------------------------------


def test_a_file_of_short_answer_and_matching_questions_imports_and_exports_round_trip(db):
    guide = make_guide()
    first = quiz_import_gift(text=TYPED, filename="typed.gift", guide=guide)
    short, match = first.quiz.questions.order_by("position")
    assert (short.kind, match.kind) == ("short", "matching")
    assert _rows(short) == [
        ("optimizer states", "حالات المُحسِّن", 1, "Right.", "صحيح."),
        ("states", "", Decimal("0.5"), "Which states?", ""),
    ]
    assert _rows(match)[3] == ("", "", "training data", "")

    exported = quiz_to_gift(first.quiz)
    second = quiz_import_gift(text=exported, quiz_slug="typed-again", guide=guide)

    again = list(second.quiz.questions.order_by("position"))
    assert [q.kind for q in again] == ["short", "matching"]
    for before, after in zip((short, match), again, strict=True):
        assert _rows(after) == _rows(before)
        assert (after.prompt_en, after.explanation_en) == (before.prompt_en, before.explanation_en)
    # And the text itself comes back the same once written from the copy.
    assert quiz_to_gift(second.quiz).split("\n", 2)[2] == exported.split("\n", 2)[2]


def test_the_exported_file_writes_them_in_gifts_own_syntax(db):
    quiz = quiz_import_gift(text=TYPED, guide=make_guide()).quiz

    text = quiz_to_gift(quiz)

    assert "\t=%50%states#Which states?\n" in text
    assert "\t=ZeRO-2 -> gradients\n" in text
    assert "\t= -> training data\n" in text
    assert '\t=ZeRO-1 -> <span lang\\="en" class\\="multilang">optimizer states</span>' in text


def test_an_ordering_question_is_left_out_of_the_gift_file_and_the_file_says_so(db):
    quiz = make_quiz(questions=1)
    add_ordering_question(quiz, 2)
    err = StringIO()
    out = StringIO()

    call_command("export_quiz", quiz.slug, stdout=out, stderr=err)

    text = out.getvalue()
    assert "Put the steps in order" not in text
    assert "GIFT has no ordering questions; question(s) 2 of the quiz are not in this file" in text
    assert "Question 2 is an ordering question: GIFT has none, so it is left out." in err.getvalue()
    document = parse_gift(text)
    assert document.errors == [] and len(document.questions) == 1


# --- Any text, written and read back ---------------------------------------------------------

_alphabet = st.sampled_from(list("ab ~=#{}:\\<>&;%[]/'\"-*\n\t") + ["->", "ب", "ع", "٣"])
_line = st.lists(_alphabet, max_size=12).map("".join).map(normalize_line).filter(bool)
_paragraphs = st.lists(_alphabet, max_size=12).map("".join).map(normalize)


@st.composite
def _typed_question(draw) -> GiftQuestion:
    kind = draw(st.sampled_from(["short", "matching"]))
    question = GiftQuestion(
        prompt=Bilingual(draw(_line), draw(_line | st.just(""))),
        choices=[],
        explanation=Bilingual(draw(_paragraphs), ""),
        kind=kind,
    )
    if kind == "short":
        weights = st.sampled_from([Decimal(1), Decimal("0.5"), Decimal("0.3333333")])
        question.texts = [
            GiftText(
                text=Bilingual(draw(_line), draw(_line | st.just(""))),
                fraction=Decimal(1) if n == 0 else draw(weights),
                feedback=Bilingual(draw(_paragraphs), draw(_paragraphs)),
            )
            for n in range(draw(st.integers(1, 3)))
        ]
    else:
        question.pairs = [
            GiftPair(
                prompt=Bilingual(draw(_line), draw(_line | st.just("")))
                if n < 2 or draw(st.booleans())
                else Bilingual(),
                match=Bilingual(draw(_line), draw(_line | st.just(""))),
            )
            for n in range(draw(st.integers(2, 4)))
        ]
    return question


def _as_data(question: GiftQuestion) -> tuple:
    return (
        question.kind,
        question.prompt,
        question.explanation,
        [dataclasses.replace(t, line=0) for t in question.texts],
        [dataclasses.replace(p, line=0) for p in question.pairs],
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(_typed_question(), min_size=1, max_size=3))
def test_short_answer_and_matching_questions_written_read_back_unchanged(questions):
    document = parse_gift(write_gift(questions))

    assert document.errors == document.skipped == []
    assert [_as_data(q) for q in document.questions] == [_as_data(q) for q in questions]


def test_imported_parts_are_the_sites_own_rows(db):
    quiz = quiz_import_gift(text=TYPED, guide=make_guide()).quiz

    assert AcceptedText.objects.filter(question__quiz=quiz).count() == 2
    assert MatchPair.objects.filter(question__quiz=quiz, prompt_en="").count() == 1
