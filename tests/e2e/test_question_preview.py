"""The question form's preview follows what the instructor types, under the strict CSP."""

from __future__ import annotations

from playwright.sync_api import BrowserContext, Page, expect

from tests import factories

from .support import sign_in
from .test_csp import _RECORD_VIOLATIONS, _violations


def test_the_preview_follows_the_prompt_as_it_is_typed(
    page: Page, context: BrowserContext, live_server, console_errors, transactional_db
):
    quiz = factories.make_quiz(questions=1)
    question = quiz.questions.get()
    # An administrator: earlier browser tests flush the Instructors group away.
    sign_in(
        context, live_server.url, factories.make_user("admin", is_staff=True, is_superuser=True)
    )
    page.add_init_script(_RECORD_VIOLATIONS)
    page.goto(f"/en/admin/quizzes/question/{question.pk}/change/")

    preview = page.locator("#rich-preview")
    english = preview.locator('[lang="en"]')
    arabic = preview.locator('[lang="ar"]')
    expect(english.locator(".rich-preview__prompt")).to_have_text(question.prompt_en)
    expect(arabic).to_have_attribute("dir", "rtl")

    page.locator("#id_prompt_ar").fill("استدعِ `checkpoint(block, x)` مرة، والكلفة $\\sqrt{N}$.")
    expect(arabic.locator(".rich-preview__prompt code")).to_have_text("checkpoint(block, x)")
    expect(arabic.locator(".rich-preview__prompt math")).to_be_visible()
    direction = arabic.locator(".rich-preview__prompt code").evaluate(
        "e => getComputedStyle(e).direction"
    )
    assert direction == "ltr"

    assert _violations(page) == []
    # (The admin names no favicon: Chromium's own request for one logs a 404, left aside.)
    problems = [e for e in console_errors if "Security Policy" in e or e.startswith("uncaught")]
    assert problems == []
