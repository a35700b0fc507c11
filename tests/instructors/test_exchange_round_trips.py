"""A quiz exported as Moodle XML or as a QTI 2.1 package and imported again comes back equal:
every kind, texts in both languages, keys and weights, feedback, images (the same pixels)
and positions."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command
from PIL import Image

from quizzes.instructors.exports import quiz_export
from quizzes.instructors.imports import file_format, quiz_import_file
from quizzes.models import Quiz
from tests import factories

from .exchange_quizzes import exact_short_question, make_exchange_quiz, quiz_content

pytestmark = pytest.mark.django_db

FORMATS = ["moodle", "qti"]


def round_trip(quiz: Quiz, export_format: str) -> Quiz:
    data, notes = quiz_export([quiz], export_format)
    assert notes == []
    assert file_format(data) == export_format
    result = quiz_import_file(data=data, filename=f"back.{export_format}")
    [imported] = result.quizzes
    assert imported.created
    return imported.quiz


@pytest.mark.parametrize("export_format", FORMATS)
def test_a_quiz_of_every_kind_comes_back_equal(export_format):
    quiz = make_exchange_quiz()
    before = quiz_content(quiz)

    back = round_trip(quiz, export_format)

    assert back.pk != quiz.pk
    assert quiz_content(back) == before
    kinds = [q["kind"] for q in before["questions"]]
    assert kinds == [
        "single",
        "multiple",
        "truefalse",
        "numerical",
        "short",
        "matching",
        "ordering",
    ]


@pytest.mark.parametrize("export_format", FORMATS)
def test_images_come_back_with_the_same_pixels_and_alt_texts(export_format):
    quiz = make_exchange_quiz()

    back = round_trip(quiz, export_format)

    first, returned = quiz.questions.get(position=1), back.questions.get(position=1)
    assert returned.image and returned.image.name != first.image.name  # a file of its own
    image = quiz_content(back)["questions"][0]["image"]
    assert image == quiz_content(quiz)["questions"][0]["image"]
    assert returned.image_alt_ar == "رسم بياني للمراحل"
    assert (returned.image_width, returned.image_height) == (40, 30)
    right = returned.choices.get(is_correct=True)
    assert right.image and right.image_alt_en == "Stage one"
    assert returned.explanation_image.name.endswith(".gif")


@pytest.mark.parametrize("export_format", FORMATS)
def test_arabic_comes_back_unchanged(export_format):
    quiz = make_exchange_quiz()

    back = round_trip(quiz, export_format)

    assert back.title_ar == "المُحسِّنات المجزّأة"
    first = back.questions.get(position=1)
    assert first.prompt_ar == "أيُّ مرحلةٍ تُجزِّئ حالاتِ المُحسِّن؟ الجواب ٣ مراحل."
    assert back.description_ar == "كيف تجزّئ تقنية ZeRO الحالات: ١٢ بايتًا لكل معامل."
    short = back.questions.get(position=5).accepted_texts.get(position=1)
    assert short.text_ar == "حالات المُحسِّن"


@pytest.mark.parametrize("export_format", FORMATS)
def test_exact_short_answers_stay_exact(export_format):
    quiz = factories.make_quiz(questions=0)
    exact_short_question(quiz, 1)

    back = round_trip(quiz, export_format)

    accepted = back.questions.get().accepted_texts.order_by("position")
    assert [(t.text_en, t.text_ar, t.exact) for t in accepted] == [
        ("TCP", "تي سي بي", True),
        ("tcp", "", True),
    ]


@pytest.mark.parametrize("export_format", FORMATS)
def test_the_seed_quizzes_come_back_equal(export_format):
    call_command("seed_quizzes", stdout=io.StringIO())
    for quiz in Quiz.objects.all():
        before = quiz_content(quiz)
        back = round_trip(quiz, export_format)
        after = quiz_content(back)
        assert after == before, quiz.slug


@pytest.mark.parametrize("export_format", FORMATS)
def test_a_quiz_of_a_hundred_questions_comes_back_equal(export_format):
    quiz = factories.make_quiz_of_every_kind(questions=100)

    back = round_trip(quiz, export_format)

    assert quiz_content(back) == quiz_content(quiz)


def test_export_quiz_writes_moodle_xml_to_standard_output_and_a_qti_package_to_a_file(
    tmp_path: Path, monkeypatch
):
    quiz = make_exchange_quiz()
    out = io.StringIO()
    call_command("export_quiz", quiz.slug, "--format", "moodle", stdout=out, stderr=io.StringIO())
    assert out.getvalue().startswith("<?xml")
    assert '<question type="ordering">' in out.getvalue()

    monkeypatch.chdir(tmp_path)
    err = io.StringIO()
    call_command("export_quiz", quiz.slug, "--format", "qti", stdout=io.StringIO(), stderr=err)
    package = tmp_path / f"{quiz.slug}.qti.zip"
    assert package.read_bytes().startswith(b"PK\x03\x04")
    assert f"Wrote 7 question(s) to {quiz.slug}.qti.zip" in err.getvalue()

    target = tmp_path / "out.xml"
    call_command("export_quiz", quiz.slug, "--format", "moodle", "-o", str(target), stderr=err)
    imported = quiz_import_file(data=target.read_bytes(), filename="out.xml")
    assert quiz_content(imported.quizzes[0].quiz) == quiz_content(quiz)


def _mean_difference(one, other) -> float:
    from PIL import ImageChops, ImageStat

    with (
        one.open("rb") as a,
        other.open("rb") as b,
        Image.open(a) as first,
        Image.open(b) as second,
    ):
        difference = ImageChops.difference(first.convert("RGB"), second.convert("RGB"))
        return sum(ImageStat.Stat(difference).mean) / 3


@pytest.mark.parametrize("export_format", FORMATS)
def test_a_jpeg_is_encoded_anew_as_every_upload_and_stays_within_a_shade(export_format):
    """PNG and GIF come back with the same pixels (above); a JPEG, like any JPEG uploaded, is
    encoded anew at quality 88, so its pixels move by a shade, not more."""
    quiz = factories.make_quiz(questions=1)
    question = quiz.questions.get()
    out = io.BytesIO()
    gradient = Image.linear_gradient("L").resize((64, 48)).convert("RGB")
    gradient.save(out, format="JPEG", quality=88)
    question.image.save("photo.jpg", ContentFile(out.getvalue()), save=False)
    question.image_alt_en = "A photo"
    question.save()

    back = round_trip(quiz, export_format).questions.get()

    assert back.image.name.endswith(".jpg")
    assert (back.image_width, back.image_height) == (64, 48)
    assert _mean_difference(question.image, back.image) < 2
