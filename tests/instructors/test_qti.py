"""QTI in: Canvas's QTI export (QTI 1.2), a bare QTI 1.2 file of every Canvas type, and a
QTI 2.2 package of every interaction (tests/instructors/data/qti/, from Instructure's QTI
library), with what cannot be held reported."""

from __future__ import annotations

import io
import zipfile
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command

from quizzes.instructors.exchange.content import ExchangeError
from quizzes.instructors.imports import file_format, quiz_import_file
from quizzes.models import Question, Quiz

pytestmark = pytest.mark.django_db

QTI = Path(__file__).parent / "data" / "qti"


def zipped(folder: Path, *, into: str = "") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.name != "README.md":
                archive.write(path, into + path.relative_to(folder).as_posix())
    return out.getvalue()


def notes_of(result) -> list[str]:
    return [str(note) for note in result.notes]


def test_canvas_quiz_export_comes_in_with_its_title_and_description():
    data = zipped(QTI / "canvas_quiz")
    assert file_format(data) == "qti"

    result = quiz_import_file(data=data, filename="canvas.zip")

    [part] = result.quizzes
    assert (part.quiz.title_en, part.quiz.description_en) == ("WIJsfijdi", "sdvsv")
    kinds = list(part.quiz.questions.order_by("position").values_list("kind", flat=True))
    assert kinds == ["truefalse", "single", "multiple"]
    several = part.quiz.questions.get(position=3)
    weights = [c.fraction for c in several.choices.order_by("position")]
    assert weights == [Decimal("0.5"), Decimal("0.5"), Decimal("-0.5")]
    assert any(
        note.endswith("Essay question “Question”: Daleel has no such kind; skipped.")
        for note in notes_of(result)
    )


def test_a_canvas_package_inside_a_folder_of_the_zip_is_read_too():
    result = quiz_import_file(data=zipped(QTI / "canvas_quiz", into="export/"), filename="c.zip")

    assert result.quizzes[0].quiz.title_en == "WIJsfijdi"


def test_every_canvas_type_it_can_hold_comes_in_with_its_feedback():
    result = quiz_import_file(
        data=(QTI / "all_canvas_simple_1.2.xml").read_bytes(), filename="all.xml"
    )

    quiz = result.quizzes[0].quiz
    assert quiz.title_en == "Every Canvas Interaction"
    kinds = list(quiz.questions.order_by("position").values_list("kind", flat=True))
    assert kinds == ["single", "truefalse", "short", "multiple", "matching", "numerical"]
    single = quiz.questions.get(position=1)
    right = single.choices.get(is_correct=True)
    assert (right.text_en, right.feedback_en) == ("C", "Answer feedback for C, correct")
    assert single.explanation_en == "Item Feedback, Neutral"
    truefalse = quiz.questions.get(position=2)
    assert truefalse.choices.get(is_correct=True).text_en == "True"
    short = quiz.questions.get(position=3)
    assert list(short.accepted_texts.values_list("text_en", flat=True)) == ["Blank", "blank"]
    several = quiz.questions.get(position=4)
    assert [c.text_en for c in several.choices.filter(is_correct=True)] == ["A", "B", "C"]
    number = quiz.questions.get(position=6).numerical_answers.order_by("position")
    assert [(n.value, n.tolerance) for n in number][1:] == [
        (Decimal(42), Decimal("0.5")),
        (Decimal(42), Decimal("0.005")),
    ]
    skipped = [note for note in notes_of(result) if note.endswith("skipped.")]
    assert [note.split(": ", 1)[1] for note in skipped] == [
        "Fill in multiple blanks question “Question 4”: Daleel has no such kind; skipped.",
        "Multiple dropdowns question “Question 6”: Daleel has no such kind; skipped.",
        "Formula question “Question 9”: Daleel has no such kind; skipped.",
        "Essay question “Question 10”: Daleel has no such kind; skipped.",
    ]


def test_a_qti_22_package_of_every_interaction_keeps_what_it_can_and_skips_the_rest():
    result = quiz_import_file(data=zipped(QTI / "interactionmix_saxony_v3"), filename="mix.zip")

    quiz = result.quizzes[0].quiz
    assert quiz.title_en == "Interaction Mix (Sachsen)"
    kinds = list(quiz.questions.order_by("position").values_list("kind", flat=True))
    assert kinds == [
        "truefalse",
        "single",
        "multiple",
        "multiple",
        "ordering",
        "matching",
        "short",
        "numerical",
    ]
    flags = quiz.questions.get(position=2).choices.order_by("position")
    assert all(choice.image.name.endswith(".jpg") for choice in flags)
    assert [choice.text_en for choice in flags] == ["Image 1", "Image 2", "Image 3", "Image 4"]
    number = quiz.questions.get(position=8).numerical_answers.get()
    # "relative" tolerance: 5% of 4.136.
    assert (number.value, number.tolerance) == (Decimal("4.136"), Decimal("0.2068"))
    short = quiz.questions.get(position=7)
    assert short.prompt_en.startswith("Mit 1215 Metern ist der _____ die höchste Erhebung")
    skipped = [note for note in notes_of(result) if note.endswith("skipped.")]
    assert [note.split(": ", 1)[1].split(":")[0] for note in skipped] == [
        "Hotspot question “hotspot”",
        "Question “match (multiple)”",
        "Question “textEntry (numeric)”",
        "Question “textEntry (subset)”",
        "Hot text question “hottext”",
    ]
    assert skipped[0].startswith("Hotspot_278940407.xml, line 3: ")


def test_arabic_marked_with_xml_lang_fills_the_arabic_fields():
    item = """<?xml version="1.0" encoding="UTF-8"?>
<assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="q1"
    title="Bytes" adaptive="false" timeDependent="false">
  <responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier">
    <correctResponse><value>A</value></correctResponse>
  </responseDeclaration>
  <itemBody>
    <p xml:lang="en">How many bytes does an fp16 number take?</p>
    <p xml:lang="ar">كم بايتًا يشغل رقم fp16؟ المُحسِّن</p>
    <choiceInteraction responseIdentifier="RESPONSE" maxChoices="1">
      <simpleChoice identifier="A">
        <span xml:lang="en">Two</span><span xml:lang="ar">٢</span></simpleChoice>
      <simpleChoice identifier="B">Four</simpleChoice>
    </choiceInteraction>
  </itemBody>
</assessmentItem>"""

    result = quiz_import_file(data=item.encode(), filename="q.xml")
    question = result.quizzes[0].quiz.questions.get()

    assert question.prompt_en == "How many bytes does an fp16 number take?"
    assert question.prompt_ar == "كم بايتًا يشغل رقم fp16؟ المُحسِّن"
    choices = [(c.text_en, c.text_ar, c.is_correct) for c in question.choices.order_by("position")]
    assert choices == [("Two", "٢", True), ("Four", "", False)]


def test_import_quiz_takes_a_package_into_an_existing_quiz(tmp_path, quiz):
    path = tmp_path / "canvas.zip"
    path.write_bytes(zipped(QTI / "canvas_quiz"))
    before = quiz.questions.count()
    out = io.StringIO()

    call_command("import_quiz", str(path), "--quiz", quiz.slug, stdout=out, stderr=io.StringIO())

    assert f"3 question(s) added to quiz '{quiz.slug}'" in out.getvalue()
    assert quiz.questions.count() == before + 3
    assert Quiz.objects.count() == 1


def test_a_zip_without_a_manifest_is_refused():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("quiz.xml", "<questestinterop/>")

    with pytest.raises(ExchangeError, match="has no imsmanifest.xml"):
        quiz_import_file(data=out.getvalue(), filename="x.zip")
    assert Question.objects.count() == 0


def test_import_quiz_dry_run_of_a_package_writes_nothing(tmp_path):
    path = tmp_path / "mix.zip"
    path.write_bytes(zipped(QTI / "interactionmix_saxony_v3"))
    out, err = io.StringIO(), io.StringIO()
    files_before = stored_files()

    call_command("import_quiz", str(path), "--dry-run", stdout=out, stderr=err)

    assert "8 question(s) would be imported (dry run: nothing was written)." in out.getvalue()
    assert "QTI: 8 into 'Interaction Mix (Sachsen)'" in out.getvalue()
    assert "Hotspot question “hotspot”" in err.getvalue()
    assert Quiz.objects.count() == 0 and Question.objects.count() == 0
    assert stored_files() == files_before  # its images were checked, not stored


def stored_files() -> list[str]:
    if not default_storage.exists("quizzes"):
        return []
    return sorted(default_storage.listdir("quizzes")[1])


def test_a_package_of_more_questions_than_a_file_may_hold_is_refused(monkeypatch):
    monkeypatch.setattr("quizzes.instructors.imports.MAX_QUESTIONS_PER_FILE", 5)

    with pytest.raises(ExchangeError) as refusal:
        quiz_import_file(data=(QTI / "all_canvas_simple_1.2.xml").read_bytes(), filename="a.xml")

    assert str(refusal.value).endswith(
        "The file has more than 5 questions; at most 5 can be imported from one file. Split it "
        "into several files."
    )
    assert Quiz.objects.count() == 0
