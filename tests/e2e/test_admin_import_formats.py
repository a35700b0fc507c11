"""The admin's import page in real Chromium: a Moodle XML file and a Canvas QTI package chosen
in the file input come in as quizzes, what was skipped is said, a refused file lists its
problems in both languages, and a quiz's page downloads its Moodle XML and QTI."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from quizzes.models import Quiz
from tests import factories
from tests.instructors.test_moodle_xml import fixture
from tests.instructors.test_qti import QTI, zipped

from .support import assert_accessible, sign_in


@pytest.fixture
def admin(context: BrowserContext, live_server, transactional_db):
    user = factories.make_user("admin", is_staff=True, is_superuser=True)
    sign_in(context, live_server.url, user)
    return user


def _choose(page: Page, name: str, data: bytes) -> None:
    page.set_input_files("#id_file", files=[{"name": name, "mimeType": "", "buffer": data}])


def test_a_moodle_file_of_several_categories_comes_in_and_the_skipped_essay_is_said(
    page: Page, admin, axe_source
):
    page.goto("/en/admin/quizzes/quiz/import/")
    expect(page.get_by_role("heading", name="Moodle XML and QTI")).to_be_visible()
    assert_accessible(page, axe_source, "the import page")
    _choose(page, "bank.xml", fixture("nested_categories_with_questions.xml"))

    page.get_by_role("button", name="Import").click()

    expect(page).to_have_url("/en/admin/quizzes/quiz/")
    messages = page.locator("ul.messagelist")
    for title in ("Iota", "Kappa", "Lambda", "Mu"):
        expect(messages).to_contain_text(f"Imported 1 question into the new quiz “{title}”.")
    expect(messages).to_contain_text("Essay question “Kappa Essay Question”")
    assert Quiz.objects.count() == 4


def test_a_canvas_package_comes_in_and_opens_its_quiz(page: Page, admin):
    page.goto("/en/admin/quizzes/quiz/import/")
    _choose(page, "canvas-export.zip", zipped(QTI / "canvas_quiz"))

    page.get_by_role("button", name="Import").click()

    quiz = Quiz.objects.get(title_en="WIJsfijdi")
    expect(page).to_have_url(f"/en/admin/quizzes/quiz/{quiz.pk}/change/")
    expect(page.locator("ul.messagelist")).to_contain_text(
        "Imported 3 questions into the new quiz “WIJsfijdi”."
    )


def test_a_refused_file_lists_its_problems_in_arabic_and_writes_nothing(page: Page, admin):
    bad = fixture("match_testquestion.moodle.xml").replace(b"<text>cat</text>", b"<text></text>")
    bad = bad.replace(b"<text>newt</text>", b"<text></text>")
    page.goto("/ar/admin/quizzes/quiz/import/")
    _choose(page, "q.xml", bad)

    page.locator("input[type=submit]").click()

    refusal = page.get_by_role("alert")
    expect(refusal).to_contain_text("السؤال «matching-001»")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    assert Quiz.objects.count() == 0


def test_a_quizs_page_downloads_its_moodle_xml_and_its_qti_package(page: Page, admin):
    quiz = factories.make_typed_quiz()
    page.goto(f"/en/admin/quizzes/quiz/{quiz.pk}/change/")

    with page.expect_download() as moodle:
        page.get_by_role("link", name="Export Moodle XML").click()
    assert moodle.value.suggested_filename == f"{quiz.slug}.moodle.xml"
    assert b'<question type="ordering">' in Path(moodle.value.path()).read_bytes()

    with page.expect_download() as qti:
        page.get_by_role("link", name="Export QTI").click()
    assert qti.value.suggested_filename == f"{quiz.slug}.qti.zip"
    assert Path(qti.value.path()).read_bytes()[:4] == b"PK\x03\x04"
