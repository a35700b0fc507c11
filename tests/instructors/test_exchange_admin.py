"""The admin's import page takes Moodle XML and QTI packages as it takes GIFT, and a quiz's
page and the quiz list download Moodle XML and QTI."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile

from quizzes.instructors.imports import quiz_import_file
from quizzes.models import Quiz

from .exchange_quizzes import make_exchange_quiz, quiz_content
from .test_moodle_xml import fixture
from .test_qti import QTI, zipped

pytestmark = pytest.mark.django_db

PAGE = "/en/admin/quizzes/quiz/import/"


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def test_the_page_names_every_format_it_takes(instructor_client):
    page = instructor_client.get(PAGE).content.decode()

    for words in ("Moodle GIFT", "Moodle XML", "QTI package", "Canvas", "multilang"):
        assert words in page


def test_a_moodle_file_of_one_category_opens_its_new_quiz(instructor_client):
    response = instructor_client.post(
        PAGE, {"file": upload("q.xml", fixture("match_testquestion.moodle.xml"))}, follow=True
    )

    quiz = Quiz.objects.get(title_en="Test questions")
    assert response.redirect_chain[-1][0] == f"/en/admin/quizzes/quiz/{quiz.pk}/change/"
    said = messages_of(response)
    assert said[0].startswith("Imported 1 question into the new quiz “Test questions”.")
    assert any("its feedback for any right or wrong response" in message for message in said)


def test_a_file_of_several_categories_returns_to_the_quiz_list(instructor_client):
    response = instructor_client.post(
        PAGE,
        {"file": upload("n.xml", fixture("nested_categories_with_questions.xml"))},
        follow=True,
    )

    assert response.redirect_chain[-1][0] == "/en/admin/quizzes/quiz/"
    said = messages_of(response)
    for title in ("Iota", "Kappa", "Lambda", "Mu"):
        assert f"Imported 1 question into the new quiz “{title}”." in " ".join(said)
    assert any("Essay question “Kappa Essay Question”" in message for message in said)


def test_a_qti_package_comes_in_through_the_same_page(instructor_client):
    response = instructor_client.post(
        PAGE, {"file": upload("canvas.zip", zipped(QTI / "canvas_quiz"))}, follow=True
    )

    assert response.status_code == 200
    assert Quiz.objects.get(title_en="WIJsfijdi").questions.count() == 3


def test_a_refused_file_lists_its_problems_and_what_else_was_found(instructor_client):
    bad = fixture("match_testquestion.moodle.xml").replace(b"<text>cat</text>", b"<text></text>")
    bad = bad.replace(b"<text>newt</text>", b"<text></text>")

    response = instructor_client.post(PAGE, {"file": upload("q.xml", bad)})

    page = response.content.decode()
    assert response.status_code == 200
    assert "The file was not imported; nothing was written." in page
    assert "A matching question needs at least two pairs with a prompt." in page
    assert "Also found in the file" in page
    assert Quiz.objects.count() == 0


def test_staff_who_may_not_add_items_cannot_import_ordering_questions(
    bare_staff, bare_staff_client
):
    adds = ["add_quiz", "add_question", "add_choice", "add_numericalanswer"]
    adds += ["add_acceptedtext", "add_matchpair"]
    bare_staff.user_permissions.add(*Permission.objects.filter(codename__in=adds))

    response = bare_staff_client.post(
        PAGE, {"file": upload("o.xml", fixture("ordering_testquestion.moodle.xml"))}
    )

    assert "The file holds ordering questions, and you may not add them." in (
        response.content.decode()
    )
    assert Quiz.objects.count() == 0


def test_a_quizs_page_links_to_its_moodle_and_qti_exports(instructor_client):
    quiz = make_exchange_quiz()

    page = instructor_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/change/").content.decode()

    assert f"/en/admin/quizzes/quiz/{quiz.pk}/export.moodle.xml" in page
    assert f"/en/admin/quizzes/quiz/{quiz.pk}/export.qti.zip" in page


@pytest.mark.parametrize(
    ("suffix", "content_type"),
    [("moodle.xml", "application/xml"), ("qti.zip", "application/zip")],
)
def test_the_downloads_read_back_as_the_quiz(instructor_client, suffix, content_type):
    quiz = make_exchange_quiz()

    response = instructor_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/export.{suffix}")

    assert response["Content-Type"] == content_type
    assert response["Content-Disposition"] == f'attachment; filename="{quiz.slug}.{suffix}"'
    back = quiz_import_file(data=response.content, filename=suffix).quizzes[0].quiz
    assert quiz_content(back) == quiz_content(quiz)


def test_the_quiz_lists_actions_export_several_quizzes_in_one_file(instructor_client):
    first, second = make_exchange_quiz(), make_exchange_quiz(slug="second")

    response = instructor_client.post(
        "/en/admin/quizzes/quiz/",
        {"action": "export_qti", "_selected_action": [first.pk, second.pk]},
    )

    assert response["Content-Disposition"] == 'attachment; filename="quizzes.qti.zip"'
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        tests = [n for n in archive.namelist() if n.endswith("assessment.xml")]
    assert tests == ["quiz1/assessment.xml", "quiz2/assessment.xml"]
    result = quiz_import_file(data=response.content, filename="both.zip")
    assert len(result.quizzes) == 2

    response = instructor_client.post(
        "/en/admin/quizzes/quiz/",
        {"action": "export_moodle", "_selected_action": [first.pk, second.pk]},
    )
    assert response.content.count(b'<question type="category">') == 2
