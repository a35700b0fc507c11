"""Importing and exporting GIFT, from the command line and from the admin."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from quizzes.instructors.exports import quiz_to_gift
from quizzes.instructors.imports import PLACEHOLDER_GUIDE_SLUG, quiz_import_gift
from quizzes.models import Choice, Guide, NumericalAnswer, Question, Quiz
from tests import factories
from tests.admin_posts import question_rows, save_quiz

from .conftest import DATA

pytestmark = pytest.mark.django_db

IMPORT_URL = "/en/admin/quizzes/quiz/import/"
CHANGELIST_URL = "/en/admin/quizzes/quiz/"


def _import(path: Path, *args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_quiz", str(path), *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def _content(quiz: Quiz) -> list[tuple]:
    """Everything about a quiz's questions that GIFT carries, in order."""
    rows = []
    for question in quiz.questions.order_by("position"):
        rows.append(
            (
                question.prompt_en,
                question.prompt_ar or "",
                question.explanation_en,
                question.explanation_ar or "",
                [
                    (
                        choice.text_en,
                        choice.text_ar or "",
                        choice.is_correct,
                        choice.feedback_en or "",
                        choice.feedback_ar or "",
                    )
                    for choice in question.choices.order_by("position")
                ],
            )
        )
    return rows


def _counts() -> tuple[int, int, int, int]:
    return (
        Guide.objects.count(),
        Quiz.objects.count(),
        Question.objects.count(),
        Choice.objects.count(),
    )


# --- import_quiz ---------------------------------------------------------------------------


def test_import_quiz_creates_an_unpublished_bilingual_quiz_from_the_representative_file():
    out, err = _import(DATA / "representative.gift")

    quiz = Quiz.objects.get(slug="waves-and-sound")
    assert (quiz.title_en, quiz.title_ar) == ("Waves and sound", "الأمواج والصوت")
    assert quiz.description_en == "Check what you know about waves & sound."
    assert quiz.description_ar == "اختبر معرفتك بالأمواج والصوت."
    assert quiz.is_published is False
    assert quiz.guide.slug == PLACEHOLDER_GUIDE_SLUG
    assert list(quiz.questions.values_list("position", flat=True)) == list(range(1, 11))
    assert list(quiz.questions.values_list("kind", flat=True)[4:]) == [
        "single",
        "numerical",
        "matching",
        "truefalse",
        "short",
        "multiple",
    ]
    first = quiz.questions.get(position=1)
    assert first.prompt_ar == "ما سرعة الصوت في الهواء عند ٢٠ درجة مئوية؟"
    assert first.explanation_en.startswith("Sound needs a medium.\n")
    right = first.choices.get(is_correct=True)
    assert (right.position, right.text_en, right.text_ar) == (1, "About 343 m/s", "نحو ٣٤٣ م/ث")
    assert (right.feedback_en, right.feedback_ar) == ("Right.", "صحيح.")
    assert "10 question(s) created quiz 'waves-and-sound' (unpublished)" in out
    # The essay is reported and skipped; matching and short answer are imported.
    assert "Line 47: Essay" in err
    assert err.count("not supported") == 1  # the essay only
    assert (
        Quiz.objects.get(slug="waves-and-sound")
        .questions.filter(kind__in=["matching", "short"])
        .count()
        == 2
    )
    assert "Line 28: No general feedback" in err


def test_imported_questions_pass_the_admins_own_validation(instructor_client):
    _import(DATA / "representative.gift")
    question = Question.objects.get(quiz__slug="waves-and-sound", position=1)

    response = instructor_client.get(f"/en/admin/quizzes/question/{question.pk}/change/")

    assert response.status_code == 200
    # The per-choice feedback is edited in the choices' inline, in both languages.
    assert b'name="choices-0-feedback_en"' in response.content
    assert b'name="choices-0-feedback_ar"' in response.content


def test_import_into_an_existing_quiz_appends_after_its_last_question(quiz):
    title = quiz.title_en

    _out, err = _import(DATA / "representative.gift", "--quiz", quiz.slug)

    quiz.refresh_from_db()
    assert "The quiz is published: learners see the new questions at once." in err
    assert "Line 7: The description at the top of the file was not used" in err
    assert quiz.title_en == title
    assert quiz.description_en == "What this quiz covers."
    positions = list(quiz.questions.values_list("position", flat=True))
    assert positions == list(range(1, 14))
    assert quiz.questions.get(position=4).prompt_en.startswith("How fast does sound")


def test_import_with_a_new_slug_and_a_guide_creates_that_quiz(tmp_path):
    guide = factories.make_guide(slug="acoustics")
    path = tmp_path / "unit_3-echoes.gift"
    path.write_text("Where?{=here ~there ####Because.}", encoding="utf-8")

    _import(path, "--quiz", "echoes", "--guide", "acoustics")

    quiz = Quiz.objects.get(slug="echoes")
    # No $CATEGORY: the title comes from the file's name.
    assert quiz.title_en == "Unit 3 echoes"
    assert quiz.guide == guide
    assert not Guide.objects.filter(slug=PLACEHOLDER_GUIDE_SLUG).exists()


def test_importing_the_same_file_twice_gives_two_quizzes_with_distinct_slugs():
    _import(DATA / "representative.gift")
    _import(DATA / "representative.gift")

    assert set(Quiz.objects.values_list("slug", flat=True)) == {
        "waves-and-sound",
        "waves-and-sound-2",
    }
    assert Guide.objects.filter(slug=PLACEHOLDER_GUIDE_SLUG).count() == 1


def test_a_malformed_file_is_rejected_whole_with_line_numbers_and_nothing_written(tmp_path, quiz):
    path = tmp_path / "broken.gift"
    path.write_text(
        "Fine?{=a ~b}\n\nNo right answer?{\n~a\n~b\n}\n\nUnclosed?{=a ~b\n",
        encoding="utf-8",
    )
    before = _counts()

    with pytest.raises(CommandError) as refused:
        _import(path, "--quiz", quiz.slug)

    message = str(refused.value)
    assert "nothing was written" in message
    assert "Line 3: Mark one choice as correct." in message
    assert "Line 8: '{' is not closed" in message
    assert _counts() == before


def test_a_failure_while_writing_leaves_nothing_behind(monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(Choice.objects, "bulk_create", explode)
    before = _counts()

    with pytest.raises(RuntimeError):
        _import(DATA / "representative.gift")

    assert _counts() == before


def test_dry_run_reports_and_writes_nothing():
    before = _counts()

    out, err = _import(DATA / "representative.gift", "--dry-run")

    assert "10 question(s) would be imported" in out
    assert "Line 47: " in err
    assert _counts() == before


def test_import_refuses_a_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "latin1.gift"
    path.write_bytes("Qu'est-ce?{=été ~hiver}".encode("latin-1"))

    with pytest.raises(CommandError, match="UTF-8"):
        _import(path)


def test_import_refuses_a_folder_with_a_message(tmp_path):
    with pytest.raises(CommandError, match="Cannot read"):
        _import(tmp_path)


def test_import_refuses_a_quiz_slug_too_long_to_save_and_writes_nothing(tmp_path):
    path = tmp_path / "one.gift"
    path.write_text("One?{=yes ~no}", encoding="utf-8")
    before = _counts()

    with pytest.raises(CommandError, match="at most 100 characters"):
        _import(path, "--quiz", "x" * 150)
    assert _counts() == before


# --- export_quiz and the round trip --------------------------------------------------------


@pytest.fixture
def tricky_quiz(quiz):
    """The factory quiz, plus the characters and gaps that GIFT and HTML find awkward."""
    question = quiz.questions.get(position=1)
    question.prompt_en = "Is 2 < 3 & {x} = #1?\n\nSay: yes ~ no \\ maybe"
    question.explanation_ar = ""
    question.save()
    choice = question.choices.get(position=2)
    choice.text_en = "[plain] %50% = right?"
    choice.feedback_en = "Not quite: see #2."
    choice.feedback_ar = "ليس تمامًا."
    choice.save()
    other = question.choices.get(position=3)
    other.feedback_ar = "فقط بالعربية"
    other.save()
    quiz.description_ar = ""
    quiz.save()
    return quiz


def test_export_then_import_gives_the_same_quiz(tricky_quiz, tmp_path):
    path = tmp_path / "export.gift"

    call_command("export_quiz", tricky_quiz.slug, "-o", str(path), stderr=io.StringIO())
    _import(path)

    imported = Quiz.objects.exclude(pk=tricky_quiz.pk).get()
    assert imported.slug == f"{tricky_quiz.slug}-2"
    assert (imported.title_en, imported.title_ar) == (tricky_quiz.title_en, tricky_quiz.title_ar)
    assert imported.description_en == tricky_quiz.description_en
    assert imported.description_ar == ""
    assert _content(imported) == _content(tricky_quiz)


def test_export_writes_gift_to_standard_output_by_default(quiz):
    out = io.StringIO()

    call_command("export_quiz", quiz.slug, stdout=out)

    text = out.getvalue()
    assert text.startswith(f"// Daleel quiz: {quiz.slug}\n")
    assert f"$CATEGORY: $course$/top/{{mlang en}}{quiz.title_en}{{mlang}}" in text
    assert '\t=<span lang\\="en" class\\="multilang">Choice 1.1</span>' in text
    assert text.count("::Q") == 3


def test_export_of_an_unknown_quiz_is_an_error(db):
    with pytest.raises(CommandError, match="No quiz"):
        call_command("export_quiz", "nope", stdout=io.StringIO())


# --- The admin -------------------------------------------------------------------------------


def _upload(name: str, content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="text/plain")


def test_quiz_list_links_to_the_import_page(instructor_client):
    response = instructor_client.get(CHANGELIST_URL)

    assert IMPORT_URL.encode() in response.content


def test_instructor_imports_a_file_from_the_admin(instructor_client):
    content = (DATA / "representative.gift").read_bytes()

    response = instructor_client.post(
        IMPORT_URL, {"file": _upload("waves.gift", content), "quiz": "", "guide": ""}
    )

    quiz = Quiz.objects.get(slug="waves-and-sound")
    assert response.status_code == 302
    assert response["Location"] == f"/en/admin/quizzes/quiz/{quiz.pk}/change/"
    messages = [str(message) for message in get_messages(response.wsgi_request)]
    assert any("Imported 10 questions into" in message for message in messages)
    assert any(message.startswith("Line 47: Essay") for message in messages)
    assert quiz.questions.count() == 10


def test_admin_import_into_an_existing_quiz(instructor_client, quiz):
    response = instructor_client.post(
        IMPORT_URL, {"file": _upload("more.gift", b"More?{=yes ~no}"), "quiz": str(quiz.pk)}
    )

    assert response.status_code == 302
    assert quiz.questions.count() == 4


@pytest.mark.parametrize(
    ("gift", "message"),
    [
        (b"One?{=yes ~no}", "أُضيف سؤال واحد إلى الاختبار"),
        (b"One?{=yes ~no}\n\nTwo?{=yes ~no}", "أُضيف سؤالان إلى الاختبار"),
        (b"\n\n".join(b"Q%d?{=yes ~no}" % n for n in range(3)), "أُضيفت 3 أسئلة إلى الاختبار"),
        (b"\n\n".join(b"Q%d?{=yes ~no}" % n for n in range(11)), "أُضيف 11 سؤالًا إلى الاختبار"),
    ],
)
def test_an_arabic_import_report_counts_its_questions_in_arabic_grammar(
    instructor_client, quiz, gift, message
):
    response = instructor_client.post(
        IMPORT_URL.replace("/en/", "/ar/"),
        {"file": _upload("more.gift", gift), "quiz": str(quiz.pk)},
        follow=True,
    )

    assert message in response.content.decode()


def test_admin_shows_a_malformed_files_errors_with_line_numbers(instructor_client):
    before = _counts()

    response = instructor_client.post(
        IMPORT_URL, {"file": _upload("bad.gift", b"// x\n\nWhat?{~a ~b}\n\nEssay?{}")}
    )

    assert response.status_code == 200
    assert "Line 3: Mark one choice as correct." in response.content.decode()
    assert "Line 5: Essay questions are not supported" in response.content.decode()
    assert _counts() == before


def test_admin_refuses_a_file_that_is_not_utf8(instructor_client):
    response = instructor_client.post(
        IMPORT_URL, {"file": _upload("bad.gift", "Été?{=a ~b}".encode("cp1256", "replace"))}
    )

    assert response.status_code == 200
    assert "UTF-8" in response.content.decode()


def test_import_page_is_refused_to_learners_and_to_staff_without_permissions(
    learner_client, bare_staff_client
):
    assert learner_client.get(IMPORT_URL).status_code == 302
    assert "/admin/login/" in learner_client.get(IMPORT_URL)["Location"]
    assert bare_staff_client.get(IMPORT_URL).status_code == 403
    upload = _upload("q.gift", b"Q?{=a ~b}")
    assert bare_staff_client.post(IMPORT_URL, {"file": upload}).status_code == 403
    assert not Quiz.objects.exists()


def test_export_action_downloads_one_quiz_as_gift(instructor_client, quiz):
    response = instructor_client.post(
        CHANGELIST_URL, {"action": "export_gift", "_selected_action": [quiz.pk]}
    )

    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="{quiz.slug}.gift.txt"'
    assert response.content.decode().startswith(f"// Daleel quiz: {quiz.slug}")


def test_export_action_zips_several_quizzes(instructor_client, quiz):
    other = factories.make_quiz(questions=1)

    response = instructor_client.post(
        CHANGELIST_URL, {"action": "export_gift", "_selected_action": [quiz.pk, other.pk]}
    )

    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert sorted(archive.namelist()) == sorted([f"{quiz.slug}.gift.txt", f"{other.slug}.gift.txt"])


def test_quiz_page_links_to_its_gift_export(instructor_client, quiz):
    url = f"/en/admin/quizzes/quiz/{quiz.pk}/export.gift.txt"

    page = instructor_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/change/")
    response = instructor_client.get(url)

    assert url.encode() in page.content
    assert response.status_code == 200
    assert "::Q3::" in response.content.decode()


def test_an_imported_quiz_is_published_only_once_it_has_its_real_guide(instructor_client):
    instructor_client.post(
        IMPORT_URL,
        {"file": _upload("waves.gift", (DATA / "representative.gift").read_bytes())},
    )
    quiz = Quiz.objects.get(slug="waves-and-sound")
    assert quiz.guide.slug == PLACEHOLDER_GUIDE_SLUG

    refused = save_quiz(instructor_client, quiz, question_rows(quiz))

    assert refused.status_code == 200
    assert "Choose the guide this quiz belongs to" in refused.content.decode()
    quiz.refresh_from_db()
    assert not quiz.is_published

    published = save_quiz(
        instructor_client, quiz, question_rows(quiz), guide=factories.make_guide()
    )

    assert published.status_code == 302
    quiz.refresh_from_db()
    assert quiz.is_published and quiz.guide.slug != PLACEHOLDER_GUIDE_SLUG


def _kinds_content(quiz: Quiz) -> list[tuple]:
    """The kinds, weights and accepted numbers of a quiz's questions, in order."""
    return [
        (
            question.kind,
            question.prompt_en,
            question.prompt_ar or "",
            [
                (c.text_en, c.text_ar or "", c.is_correct, c.fraction)
                for c in question.choices.order_by("position")
            ],
            [
                (n.value, n.tolerance, n.fraction, n.feedback_en or "", n.feedback_ar or "")
                for n in question.numerical_answers.order_by("position")
            ],
        )
        for question in quiz.questions.order_by("position")
    ]


def test_a_quiz_of_every_kind_survives_a_gift_round_trip():
    quiz = factories.make_mixed_quiz()
    NumericalAnswer.objects.filter(question__quiz=quiz, value=16).update(
        feedback_en="Two per parameter.", feedback_ar="اثنان لكل معامل."
    )
    text = quiz_to_gift(quiz)

    copy = quiz_import_gift(text=text, quiz_slug="copy").quiz

    assert "{#" in text and "TRUE" in text and "~%50%" in text
    assert _kinds_content(copy) == _kinds_content(quiz)
    assert quiz_to_gift(copy).split("\n", 3)[3] == text.split("\n", 3)[3]


def test_importing_a_quizs_own_export_says_a_quiz_with_that_title_exists(
    instructor_client, tricky_quiz, tmp_path
):
    path = tmp_path / "export.gift"
    call_command("export_quiz", tricky_quiz.slug, "-o", str(path), stderr=io.StringIO())
    said = (
        f"A quiz titled “{tricky_quiz.title_en}” already exists ({tricky_quiz.slug}): this "
        f"import made a second one, “{tricky_quiz.slug}-2”."
    )

    _out, err = _import(path)
    assert said in err

    response = instructor_client.post(
        IMPORT_URL, {"file": _upload("export.gift", path.read_bytes()), "quiz": "", "guide": ""}
    )
    assert response.status_code == 302
    messages = [str(message) for message in get_messages(response.wsgi_request)]
    assert any(said.replace("-2”", "-3”") in message for message in messages)
    # A file whose title no quiz has yet says nothing of the kind.
    _out, err = _import(DATA / "representative.gift")
    assert "already exists" not in err
