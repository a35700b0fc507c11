"""Moodle XML in: Moodle's own test fixtures (tests/instructors/data/moodle/), and files as
Moodle writes them for what those fixtures leave out (multilang, HTML, images, numbers)."""

from __future__ import annotations

import base64
import io
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from quizzes.instructors.exchange.content import ExchangeError
from quizzes.instructors.imports import file_format, quiz_import_file
from quizzes.models import Question, Quiz

from .exchange_quizzes import png

pytestmark = pytest.mark.django_db

MOODLE = Path(__file__).parent / "data" / "moodle"


def fixture(name: str) -> bytes:
    return (MOODLE / name).read_bytes()


def imported(data: bytes, **options):
    return quiz_import_file(data=data, filename="moodle.xml", **options)


def notes_of(result) -> list[str]:
    return [str(note) for note in result.notes]


def moodle_file(*questions: str, category: str = "$course$/top/Imported") -> bytes:
    body = "\n".join(questions)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n'
        f'<question type="category"><category><text>{category}</text></category></question>\n'
        f"{body}\n</quiz>\n"
    ).encode()


def multichoice(name: str, text: str, answers: str, *, extra: str = "") -> str:
    return f"""<question type="multichoice">
  <name><text>{name}</text></name>
  <questiontext format="html"><text><![CDATA[{text}]]></text>{extra}</questiontext>
  <generalfeedback format="html"><text>Because.</text></generalfeedback>
  <single>true</single><shuffleanswers>true</shuffleanswers>
  {answers}
</question>"""


ANSWERS = """
  <answer fraction="100" format="html"><text>Right</text>
    <feedback format="html"><text>Yes</text></feedback></answer>
  <answer fraction="0" format="html"><text>Wrong</text>
    <feedback format="html"><text>No</text></feedback></answer>
"""


def test_the_files_content_tells_moodle_xml_from_gift_whatever_its_name():
    assert file_format(fixture("match_testquestion.moodle.xml")) == "moodle"
    assert file_format(b"\xef\xbb\xbf  <?xml version='1.0'?>\n<!-- x --><quiz></quiz>") == "moodle"
    assert file_format(b"::Q1:: What? {=yes ~no}") == "gift"
    assert file_format(b"<p>A GIFT question in HTML</p> {=yes ~no}") == "gift"


def test_moodles_multichoice_fixture_keeps_its_weights_and_leaves_out_hints():
    result = imported(fixture("multichoice_testquestion.moodle.xml"))

    [part] = result.quizzes
    assert part.quiz.title_en == "Default for C1"
    question = part.quiz.questions.get()
    assert question.kind == "multiple"
    choices = [(c.text_en, c.fraction) for c in question.choices.order_by("position")]
    assert choices == [
        ("Tokyo", 0),
        ("Spain", 0),
        ("London", Decimal("0.5")),
        ("Barcelona", 0),
        ("Paris", Decimal("0.5")),
    ]
    assert question.explanation_en == "Berlin, Paris and London"
    assert part.quiz.shuffle_choices is True  # <shuffleanswers>true
    assert "Hints were left out (“Multi-choice-001”)" in notes_of(result)[0]


def test_moodles_matching_fixture_keeps_its_distractor():
    result = imported(fixture("match_testquestion.moodle.xml"))

    question = result.quizzes[0].quiz.questions.get()
    pairs = [(p.prompt_en, p.match_en) for p in question.pairs.order_by("position")]
    assert pairs == [
        ("frog", "amphibian"),
        ("cat", "mammal"),
        ("newt", "amphibian"),
        ("", "insect"),
    ]
    # "Well done!" is feedback Daleel has no place for: said, not silently lost.
    assert "its feedback for any right or wrong response" in " ".join(notes_of(result))


def test_moodles_short_answer_fixture_leaves_out_its_catch_all():
    result = imported(fixture("shortanswer_testquestion.moodle.xml"))

    question = result.quizzes[0].quiz.questions.get()
    accepted = [
        (t.text_en, t.fraction, t.exact, t.feedback_en)
        for t in question.accepted_texts.order_by("position")
    ]
    assert accepted == [
        ("frog", 1, False, "Frog is a very good answer."),
        ("toad", Decimal("0.8"), False, "Toad is an OK good answer."),
    ]
    assert any("the answer “*”, worth 0%, was left out" in note for note in notes_of(result))


def test_moodles_ordering_fixture_keeps_the_answers_order_and_says_how_it_is_graded():
    result = imported(fixture("ordering_testquestion.moodle.xml"))

    question = result.quizzes[0].quiz.questions.get()
    items = list(question.order_items.order_by("position").values_list("text_en", flat=True))
    assert items == ["Modular", "Object", "Oriented", "Dynamic", "Learning", "Environment"]
    assert question.explanation_en == (
        'The correct answer is "Modular Object Oriented Dynamic Learning Environment".'
    )
    assert any("ABSOLUTE_POSITION" in note for note in notes_of(result))


def test_each_category_holding_questions_becomes_a_quiz_and_the_essay_is_reported():
    result = imported(fixture("nested_categories_with_questions.xml"))

    titles = [part.quiz.title_en for part in result.quizzes]
    assert titles == ["Iota", "Kappa", "Lambda", "Mu"]
    assert [part.quiz.description_en for part in result.quizzes] == [
        "This is Iota category for test",
        "This is Kappa category for test",
        "This is Lambda category for test",
        "This is Mu category for test",
    ]
    assert all(not part.quiz.is_published for part in result.quizzes)
    kappa = result.quizzes[1].quiz.questions.get()
    assert kappa.kind == "truefalse"
    assert [(c.text_en, c.text_ar, c.fraction) for c in kappa.choices.order_by("position")] == [
        ("True", "صواب", 1),
        ("False", "خطأ", 0),
    ]
    assert (
        "Line 55: Essay question “Kappa Essay Question”: Daleel has no such kind; skipped."
        in notes_of(result)
    )


def test_with_quiz_every_category_goes_into_that_quiz(quiz):
    before = quiz.questions.count()

    result = imported(fixture("nested_categories_with_questions.xml"), quiz_slug=quiz.slug)

    assert [part.quiz for part in result.quizzes] == [quiz]
    assert quiz.questions.count() == before + 4
    positions = list(quiz.questions.order_by("position").values_list("position", flat=True))
    assert positions == list(range(1, before + 5))
    assert Quiz.objects.count() == 1


def test_moodle_19s_image_field_lands_on_the_question_and_the_cloze_is_skipped():
    result = imported(fixture("sample_questions_with_old_image_tag.xml"))

    question = result.quizzes[0].quiz.questions.get()
    assert question.kind == "single"
    assert question.image.name.endswith(".png")
    assert (question.image_width, question.image_height) == (16, 16)
    assert [c.text_en for c in question.choices.order_by("position")] == [
        "wrong answer",
        "another wrong answer",
        "right answer",
    ]
    notes = notes_of(result)
    assert notes[0].startswith("Line 16: Embedded answers (Cloze) question")
    assert any("has no alt text" in note for note in notes)


def test_multilang_spans_fill_both_languages():
    text = (
        '<p><span lang="en" class="multilang">How many bytes?</span>'
        '<span lang="ar" class="multilang">كم بايتًا؟ ١٢ بايتًا</span></p>'
    )
    answers = (
        '<answer fraction="100" format="html"><text><![CDATA[<span lang="en" class="multilang">'
        'Twelve</span><span lang="ar" class="multilang">اثنا عشر</span>]]></text></answer>'
        '<answer fraction="0" format="html"><text>Two</text></answer>'
    )
    data = moodle_file(
        multichoice("bytes", text, answers),
        category='$course$/top/&lt;span lang="en" class="multilang"&gt;Memory&lt;//span&gt;'
        '&lt;span lang="ar" class="multilang"&gt;الذاكرة&lt;//span&gt;',
    )

    quiz = imported(data).quizzes[0].quiz

    assert (quiz.title_en, quiz.title_ar) == ("Memory", "الذاكرة")
    question = quiz.questions.get()
    assert (question.prompt_en, question.prompt_ar) == ("How many bytes?", "كم بايتًا؟ ١٢ بايتًا")
    right = question.choices.get(is_correct=True)
    assert (right.text_en, right.text_ar) == ("Twelve", "اثنا عشر")


def test_html_comes_in_as_markdown_and_what_it_cannot_show_is_reported():
    text = (
        '<p dir="ltr" style="text-align: left;">What is <strong>2+2</strong>, in '
        "<code>int</code>?<br>Answer \\(x^2\\).</p>"
        '<iframe src="https://example.org/video"></iframe><script>alert(1)</script>'
    )
    result = imported(moodle_file(multichoice("html", text, ANSWERS)))

    question = result.quizzes[0].quiz.questions.get()
    assert question.prompt_en == "What is **2+2**, in `int`?\nAnswer $x^2$."
    dropped = [note for note in notes_of(result) if "left out" in note]
    assert dropped == [
        "Line 4: Question “html”: left out, as Daleel's texts cannot hold it: <iframe>; <script>."
    ]


def test_an_image_in_a_question_and_in_a_choice_lands_where_it_was_with_its_alt_text():
    picture = base64.b64encode(png()).decode()
    text = '<p>Which flag? <img src="@@PLUGINFILE@@/flag%20uk.png" alt="A flag"></p>'
    files = f'<file name="flag uk.png" path="/" encoding="base64">{picture}</file>'
    answers = (
        '<answer fraction="100" format="html"><text><![CDATA[<p><img src="@@PLUGINFILE@@/a.png" '
        f'alt="British flag"> English</p>]]></text><file name="a.png" encoding="base64">{picture}'
        "</file></answer>"
        '<answer fraction="0" format="html"><text>French</text></answer>'
    )

    quiz = imported(moodle_file(multichoice("flags", text, answers, extra=files))).quizzes[0].quiz

    question = quiz.questions.get()
    assert question.prompt_en == "Which flag?"
    assert question.image_alt_en == "A flag"
    assert (question.image_width, question.image_height) == (40, 30)
    right = question.choices.get(is_correct=True)
    assert (right.text_en, right.image_alt_en) == ("English", "British flag")
    assert right.image.name.endswith(".png")


def test_an_image_that_is_no_image_refuses_the_file_and_writes_nothing():
    svg = base64.b64encode(b'<svg xmlns="http://www.w3.org/2000/svg"/>').decode()
    text = '<p>Look <img src="@@PLUGINFILE@@/x.svg" alt="x"></p>'
    files = f'<file name="x.svg" encoding="base64">{svg}</file>'
    good = multichoice("fine", "Fine?", ANSWERS)

    with pytest.raises(ExchangeError) as refusal:
        imported(moodle_file(good, multichoice("svg", text, ANSWERS, extra=files)))

    assert "the image “x.svg” cannot be imported: This image could not be read" in str(
        refusal.value
    )
    assert Quiz.objects.count() == 0 and Question.objects.count() == 0


def test_numbers_keep_their_tolerances_and_the_units_are_reported():
    question = """<question type="numerical">
  <name><text>pi</text></name>
  <questiontext format="html"><text>Pi?</text></questiontext>
  <generalfeedback format="html"><text>Because.</text></generalfeedback>
  <answer fraction="100"><text>3.14</text><tolerance>0.01</tolerance>
    <feedback format="html"><text>Yes</text></feedback></answer>
  <answer fraction="50"><text>٣</text><tolerance>0</tolerance></answer>
  <answer fraction="0"><text>*</text><feedback format="html"><text>No</text></feedback></answer>
  <units><unit><multiplier>1</multiplier><unit_name>rad</unit_name></unit></units>
</question>"""

    result = imported(moodle_file(question))

    row = result.quizzes[0].quiz.questions.get()
    answers = row.numerical_answers.order_by("position")
    numbers = [(n.value, n.tolerance, n.fraction) for n in answers]
    assert numbers == [(Decimal("3.14"), Decimal("0.01"), 1), (3, 0, Decimal("0.5"))]
    notes = " ".join(notes_of(result))
    assert "its units (rad) were dropped" in notes
    assert "the answer * (any other number)" in notes


def test_a_case_sensitive_short_answer_is_exact():
    question = """<question type="shortanswer">
  <name><text>protocol</text></name>
  <questiontext format="html"><text>Which protocol?</text></questiontext>
  <generalfeedback format="html"><text>TCP.</text></generalfeedback>
  <usecase>1</usecase>
  <answer fraction="100"><text>TCP</text></answer>
</question>"""

    row = imported(moodle_file(question)).quizzes[0].quiz.questions.get()

    assert [(t.text_en, t.exact) for t in row.accepted_texts.all()] == [("TCP", True)]


def test_a_description_item_becomes_a_new_quizs_description():
    description = """<question type="description">
  <name><text>About</text></name>
  <questiontext format="html"><text><![CDATA[<p>About <em>memory</em>.</p>]]></text></questiontext>
</question>"""

    quiz = imported(moodle_file(description, multichoice("q", "Q?", ANSWERS))).quizzes[0].quiz

    assert quiz.description_en == "About *memory*."
    assert quiz.questions.count() == 1


def test_a_question_the_admin_would_refuse_refuses_the_file():
    two_right = ANSWERS.replace('fraction="0"', 'fraction="100"')

    with pytest.raises(ExchangeError) as refusal:
        imported(moodle_file(multichoice("twice", "Two right?", two_right)))

    assert "Question “twice”: Only one choice may be marked correct" in str(refusal.value)
    assert Quiz.objects.count() == 0


def test_a_file_of_more_than_1000_questions_is_refused():
    many = [multichoice(f"q{n}", "Q?", ANSWERS) for n in range(1001)]

    with pytest.raises(ExchangeError) as refusal:
        imported(moodle_file(*many))

    assert "more than 1000 questions" in str(refusal.value)


def test_import_quiz_reads_moodle_xml_by_its_content_and_reports_the_skipped(tmp_path):
    path = tmp_path / "questions.txt"  # not named .xml: the content tells
    path.write_bytes(fixture("nested_categories_with_questions.xml"))
    out, err = io.StringIO(), io.StringIO()

    call_command("import_quiz", str(path), stdout=out, stderr=err)

    assert f"{path}: 1 question(s) created quiz 'iota' (unpublished)." in out.getvalue()
    assert "created quiz 'mu'" in out.getvalue()
    assert "Line 55: Essay question “Kappa Essay Question”" in err.getvalue()


def test_import_quiz_dry_run_reads_and_checks_but_writes_nothing(tmp_path):
    path = tmp_path / "q.xml"
    path.write_bytes(fixture("nested_categories_with_questions.xml"))
    out, err = io.StringIO(), io.StringIO()

    call_command("import_quiz", str(path), "--dry-run", stdout=out, stderr=err)

    assert "4 question(s) would be imported (dry run: nothing was written)." in out.getvalue()
    assert "Moodle XML: 1 into 'Iota'" in out.getvalue()
    assert "Essay question" in err.getvalue()
    assert Quiz.objects.count() == 0 and Question.objects.count() == 0


def test_import_quiz_dry_run_refuses_a_bad_file_like_the_import(tmp_path):
    path = tmp_path / "q.xml"
    path.write_bytes(moodle_file(multichoice("twice", "?", ANSWERS.replace('"0"', '"100"'))))

    with pytest.raises(CommandError, match="was not imported; nothing was written"):
        call_command("import_quiz", str(path), "--dry-run", stdout=io.StringIO())
    assert Quiz.objects.count() == 0
