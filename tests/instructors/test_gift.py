"""The GIFT parser and writer on their own: text in, questions out, and back."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from quizzes.instructors.gift.format import (
    Bilingual,
    GiftChoice,
    GiftNumericalAnswer,
    GiftQuestion,
    html_to_text,
    normalize,
    normalize_line,
    parse_gift,
    split_multilang,
    write_gift,
)
from quizzes.text import markdown_escape
from tests.fuzzing import examples

from .conftest import DATA


def _choices(question: GiftQuestion) -> list[tuple[str, str, bool, str, str]]:
    return [
        (c.text.en, c.text.ar, c.is_correct, c.feedback.en, c.feedback.ar) for c in question.choices
    ]


def _messages(problems) -> list[tuple[int, str]]:
    return [(problem.line, problem.message) for problem in problems]


# --- The representative file ---------------------------------------------------------------


def test_representative_file_gives_the_quiz_title_and_description_in_both_languages(
    representative_gift,
):
    document = parse_gift(representative_gift)

    assert document.errors == []
    assert document.title == Bilingual("Waves and sound", "الأمواج والصوت")
    assert document.description == Bilingual(
        "Check what you know about waves & sound.", "اختبر معرفتك بالأمواج والصوت."
    )
    # Without a `=`, Moodle reads the third, `{~%0%a ~%100%b ~%0%c}`, as multiple answers.
    assert [question.kind for question in document.questions] == [
        "single",
        "single",
        "multiple",
        "single",
        "single",
        "numerical",
        "matching",
        "truefalse",
        "short",
        "multiple",
    ]


def test_html_question_with_multilang_spans_and_feedback_on_each_answer(representative_gift):
    question = parse_gift(representative_gift).questions[0]

    assert question.line == 11
    assert question.name == "Speed of sound"
    assert question.prompt == Bilingual(
        "How fast does sound travel in air at 20 °C?",
        "ما سرعة الصوت في الهواء عند ٢٠ درجة مئوية؟",
    )
    assert _choices(question) == [
        ("About 343 m/s", "نحو ٣٤٣ م/ث", True, "Right.", "صحيح."),
        (
            "About 3 × 10⁸ m/s",
            "نحو ٣ × ١٠^٨ م/ث",  # No superscript Arabic-Indic digits: a caret instead.
            False,
            "That is the speed of light.",
            "هذه سرعة الضوء.",
        ),
        ("About 1,500 m/s", "نحو ١٥٠٠ م/ث", False, "", ""),
    ]
    # `####` is the explanation; <br> is a line break in it.
    assert question.explanation == Bilingual(
        "Sound needs a medium.\nIn air at 20 °C it covers about 343 m each second.",
        "يحتاج الصوت إلى وسط.\nفي الهواء عند ٢٠ درجة مئوية يقطع نحو ٣٤٣ مترًا في الثانية.",
    )


def test_escapes_and_multilang2_tags_whether_escaped_or_not(representative_gift):
    question = parse_gift(representative_gift).questions[1]

    assert question.prompt == Bilingual(
        "Which formula gives a wave's speed v = f × λ? Pick the {right} one: #1 ~ exact.",
        "أي صيغة تعطي سرعة الموجة؟",
    )
    assert _choices(question) == [
        (
            "v = f × λ",
            "",
            True,
            "Yes: frequency times wavelength.",
            "نعم: التردد مضروبًا في الطول الموجي.",
        ),
        ("v = f / λ", "", False, "", ""),
        ("v = λ / f", "", False, "", ""),
    ]
    assert question.explanation == Bilingual(
        "One wavelength passes per period.", "يمر طول موجي واحد في كل دورة."
    )


def test_missing_word_question_gets_a_blank_and_moodle_weights_mark_the_right_answer(
    representative_gift,
):
    question = parse_gift(representative_gift).questions[2]

    assert question.prompt == Bilingual("A sound wave is a _____ wave.", "")
    assert [(c.text.en, c.is_correct) for c in question.choices] == [
        ("transverse", False),
        ("longitudinal", True),
        ("electromagnetic", False),
    ]


def test_markdown_is_kept_as_written_and_comments_inside_answers_are_dropped(
    representative_gift,
):
    question = parse_gift(representative_gift).questions[3]

    assert question.prompt == Bilingual("**Which** unit measures frequency?", "")
    assert _choices(question) == [
        ("Hertz (Hz)", "", True, "Cycles per second.", ""),
        ("Decibel (dB)", "", False, "That measures loudness.", ""),
        ("Newton (N)", "", False, "", ""),
    ]
    assert question.explanation == Bilingual("One hertz is one cycle per second.", "")


def test_moodle_format_keeps_line_breaks_and_text_outside_markup_is_in_both_languages(
    representative_gift,
):
    question = parse_gift(representative_gift).questions[4]

    assert question.prompt == Bilingual(
        "v = 340 m/s: a bat hears its call come back after 0.1 s.\nHow far away is the wall?",
        "v = 340 m/s: يسمع خفاش صدى ندائه بعد ٠٫١ ثانية.\nكم يبعد الجدار؟",
    )
    assert [c.is_correct for c in question.choices] == [False, True, False]
    assert question.choices[1].feedback == Bilingual(
        "There and back: 340 × 0.1 / 2.", "ذهابًا وإيابًا: ٣٤٠ × ٠٫١ ÷ ٢."
    )


def test_essays_are_reported_with_their_line_numbers_and_skipped(representative_gift):
    document = parse_gift(representative_gift)

    assert [(p.line, p.message.split(" questions")[0]) for p in document.skipped] == [
        (47, "Essay"),
    ]
    assert all("skipped" in problem.message for problem in document.skipped)


def test_matching_and_short_answer_questions_are_read(representative_gift):
    matching, _true_false, short = parse_gift(representative_gift).questions[6:9]

    assert (matching.line, matching.prompt.en) == (51, "Match each quantity with its unit.")
    assert [(p.prompt.en, p.match.en) for p in matching.pairs] == [
        ("Frequency", "Hz"),
        ("Wavelength", "m"),
        ("Speed", "m/s"),
    ]
    assert (short.line, short.prompt.en) == (59, "Name the unit of frequency.")
    assert [(t.text.en, t.fraction) for t in short.texts] == [("Hertz", 1), ("Hz", 1)]


def test_numerical_true_false_and_multiple_answer_questions_are_read(representative_gift):
    numerical, _matching, true_false, _short, multiple = parse_gift(representative_gift).questions[
        5:
    ]

    assert (numerical.line, numerical.prompt.en) == (49, "How many hertz in a kilohertz?")
    assert [(a.value, a.tolerance, a.fraction) for a in numerical.numerical] == [(1000, 0, 1)]
    assert (true_false.line, true_false.prompt.en) == (57, "Sound travels in a vacuum.")
    assert [(c.text.en, c.fraction) for c in true_false.choices] == [("True", 0), ("False", 1)]
    assert [(c.text.en, c.fraction) for c in multiple.choices] == [
        ("Sound", Decimal("0.5")),
        ("Light", Decimal("0.5")),
        ("A rock", Decimal("-1")),
    ]


def test_a_question_without_general_feedback_is_read_with_a_warning(representative_gift):
    document = parse_gift(representative_gift)

    assert [problem.line for problem in document.warnings] == [28, 49, 51, 57, 59, 61]
    assert all("explanation is empty" in problem.message for problem in document.warnings)


# --- Malformed files -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gift", "line", "message"),
    [
        pytest.param("// a\n\nWhat?{\n=a\n~b\n\nNext?{=c ~d}", 3, "is not closed", id="unclosed"),
        pytest.param("What? =a ~b}", 1, "without an opening", id="stray-closing-brace"),
        pytest.param("One?{=a ~b}\nTwo?{=c ~d}", 2, "second answer block", id="missing-blank-line"),
        pytest.param("\n\nWhat?{\n~a\n~b\n}", 3, "Mark one choice as correct", id="no-right"),
        pytest.param("What?{=a =b ~c}", 1, "Only one choice may be marked", id="two-right"),
        pytest.param("What?{=a ~}", 1, "no English text", id="empty-answer"),
        pytest.param("What?{\nfoo\n=a\n~b}", 2, "Text before the first answer", id="stray-text"),
        pytest.param("::Name What?{=a ~b}", 1, "not closed with '::'", id="unclosed-name"),
        pytest.param("::N::{=a ~b}", 1, "question has no English text", id="no-prompt"),
        pytest.param(
            '<span lang="ar" class="multilang">ما؟</span>{=a ~b}',
            1,
            "question has no English text",
            id="arabic-only-prompt",
        ),
        pytest.param("What?{=" + "a" * 501 + " ~b}", 1, "longer than 500", id="long-answer"),
        # Weights and numerical answers.
        pytest.param("Q?{=a\n~%150%b}", 2, "from -100% to 100%; this one is 150%", id="over"),
        pytest.param("Q?{=a\n~%-101%b}", 2, "this one is -101%", id="under"),
        pytest.param("Q?{~%50%a ~%50%b}", 1, "at least one wrong answer", id="no-wrong"),
        pytest.param("Q?{~%0%a ~%-50%b}", 1, "Mark one choice as correct", id="no-right"),
        pytest.param("Q?{~%100%a}", 1, "at least two choices", id="one-choice"),
        pytest.param("Q?{=a ~%100%b}", 1, "Only one choice may be marked", id="two-full"),
        pytest.param("Q?{#sixteen}", 1, "“sixteen” is not a numerical answer", id="words"),
        pytest.param("Q?{#\n=16:x}", 2, "“16:x” is not a numerical answer", id="tolerance"),
        pytest.param("Q?{#1e999}", 1, "is not a numerical answer", id="huge"),
        pytest.param("Q?{#nan}", 1, "is not a numerical answer", id="nan"),
        pytest.param("Q?{#5..1}", 1, "start is greater than its end", id="backwards-range"),
        pytest.param("Q?{#16:-1}", 1, "tolerance cannot be negative", id="negative-tolerance"),
        pytest.param("Q?{#=%50%16}", 1, "worth the full mark", id="no-full-mark"),
        pytest.param("Q?{#}", 1, "needs an answer", id="no-answer"),
        pytest.param("Q?{#=%200%16}", 1, "this one is 200%", id="weight"),
    ],
)
def test_malformed_questions_are_errors_with_their_line_numbers(gift, line, message):
    document = parse_gift(gift)

    assert any(p.line == line and message in p.message for p in document.errors), _messages(
        document.errors
    )
    assert str(document.errors[0]).startswith(f"Line {document.errors[0].line}: ")


def test_every_error_in_a_file_is_reported_at_once():
    gift = "Good?{=a ~b}\n\nBad?{~a ~b}\n\nGood too?{=a ~b}\n\n\nAlso bad?{=a ~b"

    document = parse_gift(gift)

    assert [problem.line for problem in document.errors] == [3, 8]
    assert len(document.questions) == 2


# Ten questions as Moodle's users write them: no blank line between questions, a comment
# line or a question's name starting each; three are malformed.
WITHOUT_BLANK_LINES = """// Week 3: memory
::Q1:: What does ZeRO-1 shard?{=optimizer states ~gradients ~parameters}
// a comment between questions
::Q2:: Gradients are sharded by ZeRO-2.{T}
::Q3:: Bytes per parameter in FP16?{#2}
// the next one lacks a right answer
::Q4:: Pick one.{~a ~b}
::Q5:: Offloading moves state to...{=CPU memory ~the network}
// Q6
Name the stage that shards parameters.{=ZeRO-3 =stage 3}
::Q7:: A choice alone.{~%100%only}
::Q8:: Match.{=ZeRO-1 -> optimizer states =ZeRO-2 -> gradients}
// a comment inside a question is dropped, not a separator:
::Q9:: Which is
// (this line is a comment)
right?{=this ~that}
::Q10:: Never closed.{=a ~b
"""


def test_questions_without_blank_lines_between_them_are_read_as_moodle_reads_them():
    document = parse_gift(WITHOUT_BLANK_LINES)

    prompts = [question.prompt.en for question in document.questions]
    assert len(prompts) == 7
    assert prompts[0] == "What does ZeRO-1 shard?"
    assert "Name the stage that shards parameters." in prompts
    assert "Which is\nright?" in prompts


def test_every_malformed_question_of_a_file_without_blank_lines_is_reported_at_once():
    document = parse_gift(WITHOUT_BLANK_LINES)

    assert sorted({problem.line for problem in document.errors}) == [7, 11, 17]
    messages = " ".join(problem.message for problem in document.errors)
    assert "Mark one choice as correct" in messages and "at least two choices" in messages


def test_a_file_with_no_question_that_can_be_imported_is_an_error():
    document = parse_gift("// only an essay\nWrite.{}")

    assert document.questions == []
    assert [problem.line for problem in document.skipped] == [2]
    assert document.errors[0].line == 0
    assert "no question that can be imported" in str(document.errors[0])


# --- Details of reading ----------------------------------------------------------------------


def test_negative_marks_are_read_as_negative_fractions():
    document = parse_gift("Q?{=right ~%-50%wrong#Oops ~%0%also wrong}")

    assert [(c.text.en, c.fraction, c.is_correct) for c in document.questions[0].choices] == [
        ("right", 1, True),
        ("wrong", Decimal("-0.5"), False),
        ("also wrong", 0, False),
    ]
    assert document.questions[0].choices[1].feedback.en == "Oops"


def test_windows_line_endings_a_byte_order_mark_and_a_question_under_its_category():
    gift = "\ufeff$CATEGORY: $course$/top/Default for PHYS101/Optics\r\nWhat?{=a ~b}\r\n"

    document = parse_gift(gift)

    assert document.errors == []
    assert document.title == Bilingual("Optics", "")
    assert document.questions[0].line == 2


def test_backslash_and_line_break_escapes():
    document = parse_gift(r"Path C:\\temp\nnext line?{=a\\b ~b}")

    # Stored as Markdown that shows the text: its backslash escaped.
    assert document.questions[0].prompt.en == markdown_escape("Path C:\\temp\nnext line?")
    assert document.questions[0].choices[0].text.en == markdown_escape("a\\b")


def test_hand_written_multilang_tags_need_no_escaping_inside_answers():
    gift = (
        'Q?{=<span lang="en" class="multilang">Yes</span>'
        '<span lang="ar" class="multilang">نعم</span> ~No}'
    )

    question = parse_gift(gift).questions[0]

    assert _choices(question) == [("Yes", "نعم", True, "", ""), ("No", "", False, "", "")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", Bilingual("plain", "")),
        (
            '<span lang="en" class="multilang">Hi</span> '
            '<span lang="ar" class="multilang">مرحبا</span>',
            Bilingual("Hi", "مرحبا"),
        ),
        ('<lang lang="en">Hi</lang><lang lang="ar_sa">مرحبا</lang>', Bilingual("Hi", "مرحبا")),
        ("{mlang en}Hi{mlang}{mlang ar}مرحبا{mlang}", Bilingual("Hi", "مرحبا")),
        ("{mlang other}Hi{mlang}{mlang ar}مرحبا{mlang}", Bilingual("Hi", "مرحبا")),
        # Without the multilang class a span only marks a language for screen readers.
        ('<span lang="ar">مرحبا</span> Hi', Bilingual('<span lang="ar">مرحبا</span> Hi', "")),
        # Nested markup inside a block is kept whole.
        (
            '<span lang="en" class="multilang"><b>Hi</b></span>'
            '<span lang="ar" class="multilang"><span dir="rtl">مرحبا</span></span>',
            Bilingual("<b>Hi</b>", '<span dir="rtl">مرحبا</span>'),
        ),
        # English and French but no Arabic: untranslated, not copied.
        ("{mlang en}Hi{mlang}{mlang fr}Salut{mlang}", Bilingual("Hi", "")),
        # A text with one group lacking Arabic shows its English there, as Moodle does.
        (
            "{mlang en}A{mlang}{mlang ar}أ{mlang} and {mlang en}B{mlang}",
            Bilingual("A and B", "أ and B"),
        ),
    ],
)
def test_multilang_markup(text, expected):
    assert split_multilang(text) == expected


def test_html_becomes_plain_text_with_its_breaks():
    html = "<p>One\n  line.</p><p>Two &amp; <b>three</b><br/>four</p><ul><li>x</li><li>y</li></ul>"

    assert html_to_text(html) == "One line.\n\nTwo & three\nfour\n\nx\ny"


# --- Writing -----------------------------------------------------------------------------------


def _sample() -> list[GiftQuestion]:
    return [
        GiftQuestion(
            prompt=Bilingual("Is 2 < 3 & {x} = #1?\n\nSay: yes ~ no", "هل ٢ < ٣؟"),
            explanation=Bilingual("Because.\nReally.", "لأنّ."),
            choices=[
                GiftChoice(Bilingual("[plain] yes", "نعم"), Decimal(1), Bilingual("", "أحسنت")),
                GiftChoice(Bilingual("%50% no", ""), Decimal(0), Bilingual("#2: no", "")),
            ],
        )
    ]


def test_written_gift_reads_back_unchanged():
    questions = _sample()

    document = parse_gift(
        write_gift(
            questions,
            title=Bilingual("Waves/sound", "الأمواج"),
            description=Bilingual("About <waves>.", ""),
        )
    )

    assert document.errors == document.skipped == []
    assert document.title == Bilingual("Waves/sound", "الأمواج")
    assert document.description == Bilingual("About <waves>.", "")
    assert document.questions[0].prompt == questions[0].prompt
    assert document.questions[0].explanation == questions[0].explanation
    assert _choices(document.questions[0]) == _choices(questions[0])


def test_written_gift_is_escaped_the_way_moodle_escapes_it():
    text = write_gift(_sample())

    assert "::Q1::[markdown]" in text
    assert '<span lang\\="ar" class\\="multilang">هل ٢ < ٣؟</span>' in text
    assert "\\{x\\} \\= \\#1?\\n\\nSay\\: yes \\~ no" in text
    # Leading "[" and "%" are character references, not a format or a weight.
    assert "\t=<span lang\\=" in text and "&\\#37;50% no" in text


# Text drawn from an alphabet full of GIFT's and HTML's special characters. (Not "{mlang":
# literal multilang2 tags in a text cannot be told from real ones.)
_alphabet = st.sampled_from(list("ab ~=#{}:\\<>&;%[]/'\"\n\t") + ["ب", "ع", "٣", "×"])
_text = st.text(_alphabet, max_size=25)
_line = _text.map(normalize_line).filter(bool)
_paragraphs = _text.map(normalize)


@st.composite
def _questions(draw) -> GiftQuestion:
    choices = [
        GiftChoice(
            text=Bilingual(draw(_line), draw(_line | st.just(""))),
            fraction=Decimal(0),
            feedback=Bilingual(draw(_paragraphs), draw(_paragraphs)),
        )
        for _i in range(draw(st.integers(2, 4)))
    ]
    choices[draw(st.integers(0, len(choices) - 1))].fraction = Decimal(1)
    return GiftQuestion(
        prompt=Bilingual(draw(_paragraphs.filter(bool)), draw(_paragraphs)),
        explanation=Bilingual(draw(_paragraphs), draw(_paragraphs)),
        choices=choices,
    )


@settings(max_examples=examples(150))
@given(st.lists(_questions(), min_size=1, max_size=3))
def test_any_questions_written_read_back_unchanged(questions):
    document = parse_gift(write_gift(questions))

    assert document.errors == []
    assert [(q.prompt, q.explanation, _choices(q)) for q in document.questions] == [
        (q.prompt, q.explanation, _choices(q)) for q in questions
    ]


@pytest.mark.parametrize(
    "title",
    [
        Bilingual("C:\\new things", "عنوان"),
        Bilingual("Paths a/b and c\\d", ""),
        Bilingual("Trailing backslash \\", "شرطة مائلة \\"),
    ],
)
def test_a_quiz_title_with_backslashes_and_slashes_comes_back_whole(title):
    assert parse_gift(write_gift([], title=title)).title == title


# --- Question kinds ------------------------------------------------------------------------


def _fractions(gift: str) -> list[Decimal]:
    return [choice.fraction for choice in parse_gift(gift).questions[0].choices]


@pytest.mark.parametrize(
    ("answers", "right"),
    [("T", "True"), ("TRUE", "True"), ("F", "False"), ("FALSE", "False")],
)
def test_true_false_questions_hold_true_then_false_with_the_right_one_at_full_mark(answers, right):
    question = parse_gift(f"Sound needs a medium.{{{answers}}}").questions[0]

    assert question.kind == "truefalse"
    assert [(c.text, c.fraction) for c in question.choices] == [
        (Bilingual("True", "صواب"), 1 if right == "True" else 0),
        (Bilingual("False", "خطأ"), 1 if right == "False" else 0),
    ]


@pytest.mark.parametrize(
    ("answers", "true_feedback", "false_feedback"),
    [
        # Moodle's order: the feedback for a wrong answer, then for a right one.
        ("T#Sorry#Well done", "Well done", "Sorry"),
        ("F#Sorry#Well done", "Sorry", "Well done"),
        ("FALSE##Well done", "", "Well done"),
        ("TRUE#Sorry", "", "Sorry"),
    ],
)
def test_true_false_feedback_goes_to_the_choice_a_learner_picked(
    answers, true_feedback, false_feedback
):
    true, false = parse_gift(f"Q?{{{answers}####Because.}}").questions[0].choices

    assert (true.feedback.en, false.feedback.en) == (true_feedback, false_feedback)


def test_true_false_is_read_as_moodle_reads_it_in_capitals_only():
    document = parse_gift("Q?{true}")

    # Lower case is a short answer whose one accepted answer is "true", as in Moodle.
    (question,) = document.questions
    assert question.kind == "short"
    assert [t.text.en for t in question.texts] == ["true"]


@pytest.mark.parametrize(
    ("answers", "kind", "fractions"),
    [
        ("=a ~b", "single", [1, 0]),
        ("=a ~%50%b ~%-100%c", "single", [1, Decimal("0.5"), -1]),
        # Without a `=` Moodle reads multiple answers, even with one answer at 100%.
        ("~%100%a ~b", "multiple", [1, 0]),
        ("~%50%a ~%50%b ~%-100%c", "multiple", [Decimal("0.5"), Decimal("0.5"), -1]),
        (
            "~%33.333%a ~%33.333%b ~%33.334%c ~d",
            "multiple",
            [Decimal("0.33333")] * 2
            + [
                Decimal("0.33334"),
                0,
            ],
        ),
    ],
)
def test_answer_weights_are_fractions_and_a_right_answer_marker_makes_a_single_answer(
    answers, kind, fractions
):
    question = parse_gift(f"Q?{{{answers}}}").questions[0]

    assert question.kind == kind
    assert [choice.fraction for choice in question.choices] == fractions
    assert [choice.is_correct for choice in question.choices] == [f > 0 for f in fractions]


def test_a_weight_after_an_equals_sign_is_part_of_a_right_answers_text_with_a_warning():
    document = parse_gift("Q?{\n=%50%half\n~b}")

    assert [(c.text.en, c.fraction) for c in document.questions[0].choices] == [
        ("%50%half", 1),
        ("b", 0),
    ]
    assert [p.line for p in document.warnings if "Write ~ before a weight" in p.message] == [2]


def test_multiple_answers_whose_right_weights_miss_100_percent_are_read_with_a_warning():
    document = parse_gift("Q?{~%50%a ~%20%b ~c ####Why.}")

    assert document.questions[0].kind == "multiple"
    assert [str(p) for p in document.warnings] == [
        "Line 1: The right answers' weights add up to 70%, not 100%: a learner who ticks "
        "all of them does not get exactly the full mark."
    ]


def _numbers(gift: str) -> list[tuple[Decimal, Decimal, Decimal, str]]:
    question = parse_gift(gift).questions[0]
    assert question.kind == "numerical"
    assert question.choices == []
    return [(a.value, a.tolerance, a.fraction, a.feedback.en) for a in question.numerical]


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        ("#16:0.5", [(16, Decimal("0.5"), 1, "")]),
        ("#16", [(16, 0, 1, "")]),
        ("#100..120", [(110, 10, 1, "")]),
        ("#-1.5e3:.5#Right", [(Decimal("-1500"), Decimal("0.5"), 1, "Right")]),
        (
            "#=16:0 =%50%15:1 #Close",
            [(16, 0, 1, ""), (15, 1, Decimal("0.5"), "Close")],
        ),
        ("#\n\t=%100%16:0#Yes\n\t=%-50%1..3#No\n", [(16, 0, 1, "Yes"), (2, 1, -0.5, "No")]),
    ],
)
def test_numerical_answers_with_tolerances_ranges_weights_and_feedback(answers, expected):
    assert _numbers(f"How many?{{{answers}####Count them.}}") == expected


def test_feedback_for_any_other_number_is_left_out_with_a_warning():
    document = parse_gift("Q?{#16\n~#Count again.}")

    assert _numbers("Q?{#16\n~#Count again.}") == [(16, 0, 1, "")]
    assert [p.line for p in document.warnings if "any other number" in p.message] == [2]


@pytest.mark.parametrize(
    "answers", ["=a ~b", "~%50%a ~%50%b ~c", "T", "#16:1"], ids=["single", "multiple", "tf", "num"]
)
def test_general_feedback_is_the_explanation_of_every_kind(answers):
    question = parse_gift(f"Q?{{{answers}####{{mlang en}}Why{{mlang}}{{mlang ar}}لماذا{{mlang}}}}")

    assert question.questions[0].explanation == Bilingual("Why", "لماذا")


# --- Writing every kind --------------------------------------------------------------------

_ALL_KINDS = (DATA / "kinds.gift").read_text(encoding="utf-8")


def _without_lines(questions: list[GiftQuestion]) -> list[GiftQuestion]:
    """The questions as data, without where they stood in a file."""
    return [
        dataclasses.replace(
            question,
            line=0,
            choices=[dataclasses.replace(c, line=0) for c in question.choices],
            numerical=[dataclasses.replace(a, line=0) for a in question.numerical],
            texts=[dataclasses.replace(t, line=0) for t in question.texts],
            pairs=[dataclasses.replace(p, line=0) for p in question.pairs],
        )
        for question in questions
    ]


def test_every_kind_written_reads_back_unchanged_with_its_arabic_and_feedback():
    document = parse_gift(_ALL_KINDS)
    assert document.errors == []
    assert [q.kind for q in document.questions] == [
        "single",
        "multiple",
        "truefalse",
        "truefalse",
        "numerical",
    ]

    again = parse_gift(write_gift(document.questions, title=document.title))

    assert again.errors == again.skipped == []
    assert again.title == Bilingual("Waves", "الأمواج")
    assert _without_lines(again.questions) == _without_lines(document.questions)


def test_the_read_kinds_hold_what_the_file_says():
    single, multiple, false, true, numerical = parse_gift(_ALL_KINDS).questions

    assert single.choices[1].text == Bilingual("340 m/s", "٣٤٠ م/ث")
    assert [c.fraction for c in single.choices] == [1, Decimal("0.5"), -1]
    assert multiple.choices[2].feedback == Bilingual("No", "لا")
    assert [(c.text.en, c.fraction, c.feedback) for c in false.choices] == [
        ("True", 0, Bilingual("It needs a medium.", "يحتاج إلى وسط.")),
        ("False", 1, Bilingual("Right", "صحيح")),
    ]
    assert false.explanation == Bilingual("Sound is a mechanical wave.", "الصوت موجة ميكانيكية.")
    assert [(c.fraction, c.feedback.en) for c in true.choices] == [(1, "Yes."), (0, "")]
    assert [(a.value, a.tolerance, a.fraction) for a in numerical.numerical] == [
        (1000, 0, 1),
        (1000, 10, Decimal("0.5")),
        (100, Decimal("0.5"), Decimal("-0.25")),
    ]
    assert numerical.numerical[0].feedback == Bilingual("Right.", "صحيح.")


def test_true_false_is_written_on_one_line_with_moodles_feedback_order():
    questions = parse_gift(_ALL_KINDS).questions[2:4]

    text = write_gift(questions)

    assert "{FALSE#<span lang\\=" in text
    assert "{TRUE##Yes.}" in text


_paragraphs_bi = st.builds(Bilingual, _paragraphs, _paragraphs)
_weights = st.sampled_from([Decimal(w) for w in ("0.5", "0.25", "0.3333333", "0", "-0.5", "-1")])


@st.composite
def _any_kind(draw) -> GiftQuestion:
    kind = draw(st.sampled_from(["single", "multiple", "truefalse", "numerical"]))
    question = draw(_questions())
    question.kind = kind
    if kind == "single":
        for choice in question.choices:
            if choice.fraction != 1:
                choice.fraction = draw(_weights)
    elif kind == "multiple":
        for choice in question.choices:
            choice.fraction = draw(_weights | st.just(Decimal(1)))
        question.choices[0].fraction = draw(st.sampled_from([Decimal("0.5"), Decimal(1)]))
        question.choices[1].fraction = draw(st.sampled_from([Decimal(0), Decimal("-1")]))
    elif kind == "truefalse":
        right = draw(st.booleans())
        question.choices = [
            GiftChoice(Bilingual("True", "صواب"), Decimal(right), draw(_paragraphs_bi)),
            GiftChoice(Bilingual("False", "خطأ"), Decimal(not right), draw(_paragraphs_bi)),
        ]
    else:
        number = st.decimals(-(10**6), 10**6, places=3, allow_nan=False, allow_infinity=False)
        question.choices = []
        question.numerical = [
            GiftNumericalAnswer(
                value=draw(number),
                tolerance=abs(draw(number)),
                fraction=Decimal(1) if i == 0 else draw(_weights),
                feedback=draw(_paragraphs_bi),
            )
            for i in range(draw(st.integers(1, 3)))
        ]
    return question


def _as_data(question: GiftQuestion) -> tuple:
    return (
        question.kind,
        question.prompt,
        question.explanation,
        [(c.text, c.fraction, c.feedback) for c in question.choices],
        [(a.value, a.tolerance, a.fraction, a.feedback) for a in question.numerical],
    )


@settings(max_examples=examples(150))
@given(st.lists(_any_kind(), min_size=1, max_size=3))
def test_questions_of_any_kind_written_read_back_unchanged(questions):
    document = parse_gift(write_gift(questions))

    assert document.errors == []
    assert [_as_data(q) for q in document.questions] == [_as_data(q) for q in questions]


@pytest.mark.parametrize("text", ["<a", "x <b", "<a \\#", "</p"])
def test_a_choice_ending_like_the_start_of_a_tag_keeps_its_feedback(text):
    """Found by the test above: "<a" then "#>" (its feedback) once read back as one tag."""
    questions = [
        GiftQuestion(
            prompt=Bilingual(":", ""),
            choices=[
                GiftChoice(Bilingual("right", "صح"), Decimal(1), Bilingual()),
                GiftChoice(Bilingual(text, ""), Decimal("0.5"), Bilingual(">", "")),
            ],
        )
    ]

    document = parse_gift(write_gift(questions))

    assert document.errors == []
    assert [_as_data(q) for q in document.questions] == [_as_data(q) for q in questions]


def test_arabic_messages_keep_gift_tokens_in_left_to_right_isolates():
    with translation.override("ar"):
        document = parse_gift("Q?{#}\n\nR?{=a ~%150%b}")

    assert [str(problem) for problem in document.errors][0].endswith("مثل \u2066{#16:0.5}\u2069.")
    assert "\u2066150%\u2069" in str(document.errors[1])


def test_past_100_errors_the_rest_of_the_file_is_not_read():
    gift = "\n\n".join(f"Q{n}?{{~a ~b}}" for n in range(150)) + "\n\nGood?{=a ~b}"

    document = parse_gift(gift)

    assert len(document.errors) == 101
    assert str(document.errors[-1]) == (
        "Line 201: More than 100 errors: the rest of the file, from here on, was not read. "
        "Correct these and upload it again."
    )
    assert document.questions == []


def test_a_message_quotes_at_most_a_few_dozen_characters_of_the_file():
    document = parse_gift("Q?{=a ~%" + "1" * 10_000 + "%b}\n\nR?{#" + "2" * 10_000 + "x}")

    assert [len(str(problem)) < 200 for problem in document.errors] == [True, True]
