"""A whole quiz on one admin page: questions with their choices nested (django-nested-admin),
added and saved in one go, under the strict CSP."""

from __future__ import annotations

from playwright.sync_api import BrowserContext, Page, expect

from quizzes.models import Quiz
from tests import factories

from .support import sign_in
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

    page.locator(
        "#questions-group > .djn-items + .djn-add-item a, #questions-group .djn-add-handler"
    ).last.click()
    new = page.locator("#questions-1")
    new.locator("#id_questions-1-prompt_en").fill("What does ZeRO-2 add?")
    new.locator("#id_questions-1-explanation_en").fill("Gradients are sharded too.")
    add_choice = page.locator("#questions-1-choices-group .djn-add-handler").last
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
