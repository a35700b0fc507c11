"""The GIFT parser and writer on their own: text in, questions out, and back."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizzes.instructors.gift import (
    Bilingual,
    GiftChoice,
    GiftQuestion,
    html_to_text,
    normalize,
    normalize_line,
    parse_gift,
    split_multilang,
    write_gift,
)


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
    assert len(document.questions) == 5


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


def test_other_question_types_are_reported_with_their_line_numbers_and_skipped(
    representative_gift,
):
    document = parse_gift(representative_gift)

    assert [(p.line, p.message.split(" questions")[0]) for p in document.skipped] == [
        (47, "Essay"),
        (49, "Numerical"),
        (51, "Matching"),
        (57, "True/false"),
        (59, "Short-answer"),
        (61, "Multiple-answer and partial-credit multiple-choice"),
    ]
    assert all("skipped" in problem.message for problem in document.skipped)


def test_a_question_without_general_feedback_is_imported_with_a_warning(representative_gift):
    document = parse_gift(representative_gift)

    assert [problem.line for problem in document.warnings] == [28]
    assert "explanation is empty" in document.warnings[0].message


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


def test_a_file_with_no_multiple_choice_question_is_an_error():
    document = parse_gift("// only an essay\nWrite.{}")

    assert document.questions == []
    assert [problem.line for problem in document.skipped] == [2]
    assert document.errors[0].line == 0
    assert "no multiple-choice question" in str(document.errors[0])


# --- Details of reading ----------------------------------------------------------------------


def test_negative_marks_count_as_simply_wrong_with_a_warning():
    document = parse_gift("Q?{=right ~%-50%wrong#Oops ~%0%also wrong}")

    assert [(c.text.en, c.is_correct) for c in document.questions[0].choices] == [
        ("right", True),
        ("wrong", False),
        ("also wrong", False),
    ]
    assert document.questions[0].choices[1].feedback.en == "Oops"
    assert [problem.line for problem in document.warnings if "Negative" in problem.message] == [1]


def test_windows_line_endings_a_byte_order_mark_and_a_question_under_its_category():
    gift = "\ufeff$CATEGORY: $course$/top/Default for PHYS101/Optics\r\nWhat?{=a ~b}\r\n"

    document = parse_gift(gift)

    assert document.errors == []
    assert document.title == Bilingual("Optics", "")
    assert document.questions[0].line == 2


def test_backslash_and_line_break_escapes():
    document = parse_gift(r"Path C:\\temp\nnext line?{=a\\b ~b}")

    assert document.questions[0].prompt.en == "Path C:\\temp\nnext line?"
    assert document.questions[0].choices[0].text.en == "a\\b"


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
                GiftChoice(Bilingual("[plain] yes", "نعم"), True, Bilingual("", "أحسنت")),
                GiftChoice(Bilingual("%50% no", ""), False, Bilingual("#2: no", "")),
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

    assert "::Q1::[html]" in text
    assert '<span lang\\="ar" class\\="multilang">هل ٢ &lt; ٣؟</span>' in text
    assert "\\{x\\} \\= \\#1?<br><br>Say\\: yes \\~ no" in text
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
            is_correct=False,
            feedback=Bilingual(draw(_paragraphs), draw(_paragraphs)),
        )
        for _i in range(draw(st.integers(2, 4)))
    ]
    choices[draw(st.integers(0, len(choices) - 1))].is_correct = True
    return GiftQuestion(
        prompt=Bilingual(draw(_paragraphs.filter(bool)), draw(_paragraphs)),
        explanation=Bilingual(draw(_paragraphs), draw(_paragraphs)),
        choices=choices,
    )


@settings(max_examples=150, deadline=None)
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
