"""A quiz's one admin page at the size instructors work at (issue 50), in Chromium: both seed
quizzes and a quiz of 60 questions of every kind open, take edits to every kind of part and save,
with JavaScript and without it; past the upload limits the page's script refuses before sending
(nothing typed is lost), and without it the server's page says what happened."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from playwright.sync_api import Browser, BrowserContext, Page, expect

from quizzes.models import AcceptedText, Choice, MatchPair, OrderItem, Quiz
from tests import factories
from tests.admin_posts import content_snapshot, snapshot_changes

from .support import sign_in
from .test_csp import _RECORD_VIOLATIONS, _violations


@pytest.fixture
def administrator(live_server, transactional_db):
    # An administrator: earlier browser tests flush the Instructors group away.
    return factories.make_user("admin", is_staff=True, is_superuser=True)


@pytest.fixture
def big_quiz(transactional_db):
    return factories.make_quiz_of_every_kind(60, is_published=False)


def _row(part, section: str) -> str:
    """The id prefix of `part`'s row on its quiz's page: questions-<i>-<section>-<j>."""
    questions = list(part.question.quiz.questions.order_by("position").values_list("pk"))
    rows = list(getattr(part.question, section).order_by("position").values_list("pk"))
    return f"questions-{questions.index((part.question_id,))}-{section}-{rows.index((part.pk,))}"


def _edits(quiz: Quiz) -> dict[str, tuple[object, str, str]]:
    """One edit of each kind of part: (the row, the field, the new text) by field id."""
    choice = Choice.objects.filter(question__quiz=quiz, question__kind="multiple").last()
    accepted = AcceptedText.objects.filter(question__quiz=quiz).last()
    pair = MatchPair.objects.filter(question__quiz=quiz).exclude(prompt_en="").first()
    item = OrderItem.objects.filter(question__quiz=quiz).first()
    return {
        f"id_{_row(choice, 'choices')}-text_en": (choice, "text_en", "A box, edited"),
        f"id_{_row(accepted, 'accepted_texts')}-text_en": (accepted, "text_en", "states too"),
        f"id_{_row(pair, 'pairs')}-match_ar": (pair, "match_ar", "حالات المحسِّن"),
        f"id_{_row(item, 'order_items')}-text_en": (item, "text_en", "forward pass"),
    }


def _edit_and_save(page: Page, quiz: Quiz, edits: dict) -> None:
    page.goto(f"/en/admin/quizzes/quiz/{quiz.pk}/change/")
    page.fill("#id_title_en", "Sixty questions, edited")
    for field_id, (_row_object, _field, text) in edits.items():
        page.fill(f"#{field_id}", text)
    page.get_by_role("button", name="Save and continue editing").click()
    expect(page.locator(".messagelist .success")).to_be_visible()


def _expected(quiz: Quiz, edits: dict) -> set[tuple[str, int, str]]:
    return {("quiz", quiz.pk, "title_en")} | {
        (type(row)._meta.model_name, row.pk, field) for row, field, _text in edits.values()
    }


def test_a_quiz_of_sixty_questions_saves_an_edit_to_every_kind_of_part_with_javascript(
    page: Page, context: BrowserContext, live_server, administrator, big_quiz, console_errors
):
    sign_in(context, live_server.url, administrator)
    page.add_init_script(_RECORD_VIOLATIONS)
    edits = _edits(big_quiz)
    before = content_snapshot(big_quiz)

    _edit_and_save(page, big_quiz, edits)

    changes = snapshot_changes(before, content_snapshot(big_quiz))
    assert set(changes) == _expected(big_quiz, edits)
    for row, field, text in edits.values():
        row.refresh_from_db()
        assert getattr(row, field) == text
    assert _violations(page) == []
    assert [e for e in console_errors if e.startswith("uncaught")] == []


def test_a_quiz_of_sixty_questions_saves_the_same_edits_without_javascript(
    browser: Browser, live_server, administrator, big_quiz
):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    sign_in(context, live_server.url, administrator)
    page = context.new_page()
    edits = _edits(big_quiz)
    before = content_snapshot(big_quiz)

    _edit_and_save(page, big_quiz, edits)

    assert set(snapshot_changes(before, content_snapshot(big_quiz))) == _expected(big_quiz, edits)
    context.close()


@pytest.mark.parametrize("script", [True, False], ids=["with-javascript", "without-javascript"])
def test_each_seed_quiz_saves_its_edited_title_from_its_one_page(
    script, browser: Browser, live_server, administrator
):
    call_command("seed_quizzes", verbosity=0)
    context = browser.new_context(base_url=live_server.url, java_script_enabled=script)
    sign_in(context, live_server.url, administrator)
    page = context.new_page()
    for quiz in Quiz.objects.order_by("slug"):
        before = content_snapshot(quiz)
        page.goto(f"/en/admin/quizzes/quiz/{quiz.pk}/change/")
        page.fill("#id_title_en", f"{quiz.title_en} (edited)")
        page.get_by_role("button", name="Save and continue editing").click()
        expect(page.locator(".messagelist .success")).to_be_visible()
        assert set(snapshot_changes(before, content_snapshot(quiz))) == {
            ("quiz", quiz.pk, "title_en")
        }
    context.close()


def test_past_the_limit_the_page_refuses_before_sending_and_keeps_what_was_typed(
    page: Page, context: BrowserContext, live_server, administrator, settings
):
    call_command("seed_quizzes", verbosity=0)
    quiz = Quiz.objects.get(slug="zero-sharded-optimizers")
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 300
    sign_in(context, live_server.url, administrator)
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.method))
    page.goto(f"/en/admin/quizzes/quiz/{quiz.pk}/change/")
    page.fill("#id_title_en", "Typed, not lost")

    page.get_by_role("button", name="Save and continue editing").click()

    note = page.locator("#daleel-too-much")
    expect(note).to_be_visible()
    expect(note).to_contain_text("one save takes at most 300")
    expect(note).to_contain_text("split the quiz into smaller quizzes")
    expect(note).to_be_focused()
    assert "POST" not in sent
    expect(page.locator("#id_title_en")).to_have_value("Typed, not lost")
    assert Quiz.objects.get(pk=quiz.pk).title_en != "Typed, not lost"


def test_past_the_limit_without_javascript_the_server_says_what_happened(
    browser: Browser, live_server, administrator, settings
):
    call_command("seed_quizzes", verbosity=0)
    quiz = Quiz.objects.get(slug="zero-sharded-optimizers")
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 300
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    sign_in(context, live_server.url, administrator)
    page = context.new_page()
    page.goto(f"/ar/admin/quizzes/quiz/{quiz.pk}/change/")
    page.fill("#id_title_en", "Typed")

    with page.expect_response(lambda response: response.request.method == "POST") as posted:
        page.get_by_role("button", name="حفظ ومتابعة التعديل").click()

    assert posted.value.status == 413
    expect(page.locator("h1")).to_have_text("لم يُحفظ شيء: ما أُرسل أكثر مما يتّسع له الحفظ الواحد")
    expect(page.locator("html")).to_have_attribute("lang", "ar")
    page.go_back()
    expect(page.locator("#id_title_en")).to_have_value("Typed")
    assert Quiz.objects.get(pk=quiz.pk).title_en != "Typed"
    context.close()


def test_changing_a_kind_on_the_page_brings_that_kinds_section_from_its_template(
    page: Page, context: BrowserContext, live_server, administrator
):
    quiz = factories.make_quiz(questions=2, is_published=False)
    sign_in(context, live_server.url, administrator)
    page.goto(f"/en/admin/quizzes/quiz/{quiz.pk}/change/")
    expect(page.locator("#questions-1-accepted_texts-group")).to_have_count(0)

    page.select_option("#id_questions-1-kind", "short")
    texts = page.locator("#questions-1-accepted_texts-group")
    expect(texts).to_be_visible()
    # The choices it still holds stay, to be deleted (the server refuses them otherwise).
    expect(page.locator("#questions-1-choices-group")).to_be_visible()
    for index in range(4):
        page.check(f"#id_questions-1-choices-{index}-DELETE")
    texts.get_by_role("button", name="Add an accepted answer").click()
    page.fill("#id_questions-1-accepted_texts-0-text_en", "optimizer states")
    page.get_by_role("button", name="Save and continue editing").click()

    expect(page.locator(".messagelist .success")).to_be_visible()
    question = quiz.questions.get(position=2)
    assert question.kind == "short"
    assert not question.choices.exists()
    assert list(question.accepted_texts.values_list("text_en", "position")) == [
        ("optimizer states", 1)
    ]
