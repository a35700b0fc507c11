"""A whole quiz on one admin page: questions with their parts (quizzes/instructors/parts.py),
added and saved in one go, under the strict CSP."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from quizzes.models import Attempt, Quiz
from tests import factories

from .support import assert_accessible, sign_in
from .test_csp import _RECORD_VIOLATIONS, _violations


def test_an_instructor_adds_a_question_with_its_choices_on_the_quizs_page(
    page: Page, context: BrowserContext, live_server, console_errors, transactional_db
):
    quiz = factories.make_quiz(questions=1, is_published=False)
    sign_in(
        context, live_server.url, factories.make_user("admin", is_staff=True, is_superuser=True)
    )
    page.add_init_script(_RECORD_VIOLATIONS)
    page.goto(f"/en/admin/quizzes/quiz/{quiz.pk}/change/")

    page.locator("#questions-group .add-row a").click()
    new = page.locator("#questions-1")
    new.locator("#id_questions-1-prompt_en").fill("What does ZeRO-2 add?")
    new.locator("#id_questions-1-explanation_en").fill("Gradients are sharded too.")
    add_choice = page.locator("#questions-1-choices-group").get_by_role(
        "button", name="Add a choice"
    )
    for index, text in enumerate(["Gradients", "Parameters"]):
        add_choice.click()
        page.fill(f"#id_questions-1-choices-{index}-text_en", text)
    page.check("#id_questions-1-choices-0-is_correct")
    page.get_by_role("button", name="Save", exact=True).click()

    expect(page.locator(".messagelist .success")).to_be_visible()
    question = Quiz.objects.get(pk=quiz.pk).questions.get(prompt_en="What does ZeRO-2 add?")
    assert [(c.text_en, c.is_correct) for c in question.choices.order_by("position")] == [
        ("Gradients", True),
        ("Parameters", False),
    ]
    assert _violations(page) == []
    assert [e for e in console_errors if "Security Policy" in e or e.startswith("uncaught")] == []


def test_an_instructor_reorders_choices_by_dragging_and_by_typing_their_positions(
    page: Page, context: BrowserContext, live_server, transactional_db
):
    quiz = factories.make_quiz(questions=1, choices=3)
    question = quiz.questions.get()
    sign_in(
        context, live_server.url, factories.make_user("admin", is_staff=True, is_superuser=True)
    )
    page.set_viewport_size({"width": 1280, "height": 2400})  # every choice in view
    page.goto(f"/en/admin/quizzes/question/{question.pk}/change/")

    # The third choice's heading dragged above the first's (the browser's own drag and drop).
    page.locator("#choices-2 > h3").drag_to(
        page.locator("#choices-0 > h3"), target_position={"x": 30, "y": 2}
    )
    page.get_by_role("button", name="Save and continue editing").click()
    expect(page.locator(".messagelist .success")).to_be_visible()
    assert [c.text_en for c in question.choices.order_by("position")] == [
        "Choice 1.3",
        "Choice 1.1",
        "Choice 1.2",
    ]
    assert [c.position for c in question.choices.order_by("position")] == [1, 2, 3]

    # By keyboard: the positions typed, the first choice sent last.
    page.fill("#id_choices-0-position", "9")
    with page.expect_navigation():
        page.get_by_role("button", name="Save and continue editing").click()
    expect(page.locator(".messagelist .success")).to_be_visible()
    assert [c.text_en for c in question.choices.order_by("position")] == [
        "Choice 1.1",
        "Choice 1.2",
        "Choice 1.3",
    ]


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_quiz_page_and_its_preview_as_a_learner_are_accessible_and_record_nothing(
    lang, page: Page, context: BrowserContext, live_server, axe_source, transactional_db
):
    quiz = factories.make_mixed_quiz(is_published=False)
    sign_in(
        context, live_server.url, factories.make_user("admin", is_staff=True, is_superuser=True)
    )
    page.add_init_script(_RECORD_VIOLATIONS)
    page.goto(f"/{lang}/admin/quizzes/quiz/{quiz.pk}/change/")
    assert_accessible(page, axe_source, f"the quiz's admin page ({lang})")

    page.locator(f'a[hreflang="{lang}"]').first.click()
    expect(page.locator("html")).to_have_attribute("lang", lang)
    assert_accessible(page, axe_source, f"the preview's first question ({lang})")
    first = quiz.questions.get(position=1)
    page.locator(f'input[name="choice"][value="{first.choices.get(is_correct=True).pk}"]').check()
    page.locator('form.question button[type="submit"]').click()
    expect(page.locator(".feedback--right")).to_be_visible()
    assert_accessible(page, axe_source, f"the preview's feedback ({lang})")
    assert _violations(page) == []
    assert not Attempt.objects.exists()


def test_an_instructor_duplicates_a_quiz_from_the_list(
    page: Page, context: BrowserContext, live_server, transactional_db
):
    quiz = factories.make_mixed_quiz()
    sign_in(
        context, live_server.url, factories.make_user("admin", is_staff=True, is_superuser=True)
    )
    page.goto("/en/admin/quizzes/quiz/")
    page.locator(f'input[name="_selected_action"][value="{quiz.pk}"]').check()
    page.select_option('select[name="action"]', "duplicate")
    page.get_by_role("button", name="Run").click()

    expect(page.locator(".messagelist .success")).to_contain_text("unpublished")
    copy = Quiz.objects.get(slug=f"{quiz.slug}-copy")
    assert not copy.is_published
    assert copy.questions.count() == quiz.questions.count() == 4


@pytest.mark.parametrize("lang", ["en", "ar"])
@pytest.mark.parametrize("width", [1280, 390])
def test_the_quiz_pages_tools_leave_its_heading_the_whole_width(
    page: Page, context: BrowserContext, live_server, transactional_db, lang, width
):
    """A dozen tools (grades, exports, previews…) sit on rows of their own under "Change quiz"
    and its title, not floated beside them into a narrow column (issue 52, point 15)."""
    quiz = factories.make_quiz(questions=1, title_en="ZeRO and sharded optimizers")
    sign_in(
        context, live_server.url, factories.make_user("admin", is_staff=True, is_superuser=True)
    )
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"/{lang}/admin/quizzes/quiz/{quiz.pk}/change/")

    subtitle = page.locator("#content h2").first.bounding_box()
    tools = page.locator("#content .object-tools")
    assert tools.locator("li").count() >= 10
    # Floated, the tools began level with the heading and its text wrapped beside them: now
    # they begin under the quiz's title, and the title is on one line.
    assert tools.bounding_box()["y"] >= subtitle["y"] + subtitle["height"]
    line = page.locator("#content h2").first.evaluate(
        "h => parseFloat(getComputedStyle(h).lineHeight)"
        " || 1.3 * parseFloat(getComputedStyle(h).fontSize)"
    )
    assert subtitle["height"] < 1.8 * line
