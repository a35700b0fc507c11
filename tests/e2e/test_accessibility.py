"""Keyboard-only answering, focus, the skip link, and axe-core on the pages no page type
reaches (the 503 page). Every page type's axe audit and screenshots are in test_pages.py.
"""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.utils import translation
from playwright.sync_api import Page, expect

from quizzes.models import Attempt

from . import support
from .support import expect_feedback, expect_question


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_database_unavailable_page_has_no_axe_violations(
    page: Page, live_server, axe_source, screenshots_dir, lang
):
    """The 503 page exists only while PostgreSQL is down (tests/outages stops it for real); here
    the page the handler renders is served at a live URL, so its stylesheet loads as it would."""
    path = f"/{lang}/attempts/1/questions/3/"
    with translation.override(lang):
        html = render_to_string("errors/503.html", request=RequestFactory().get(path))
    page.route(
        f"**{path}", lambda route: route.fulfill(status=503, body=html, content_type="text/html")
    )
    response = page.goto(path)
    assert response is not None and response.status == 503
    assert page.evaluate("document.documentElement.dir") == ("rtl" if lang == "ar" else "ltr")
    failures = support.check_every_variant(
        page, axe_source, screenshots_dir, f"99-unavailable-{lang}"
    )
    assert not failures, "\n".join(failures)


def test_the_axe_check_reports_a_violation_when_there_is_one(page: Page, seeded, axe_source):
    """The harness itself: an unlabelled field must fail, or zero violations means nothing."""
    page.goto("/en/")
    assert support.axe_violations(page, axe_source) == []
    page.evaluate("() => document.querySelector('main').append(document.createElement('input'))")
    assert "label" in {v["id"] for v in support.axe_violations(page, axe_source)}


def _focused(page: Page) -> str:
    return page.evaluate(
        """() => {
          const el = document.activeElement;
          return el.id ? `${el.tagName.toLowerCase()}#${el.id}` : el.outerHTML.slice(0, 80);
        }"""
    )


def _tab_to(page: Page, locator, limit: int = 40) -> None:
    """Press Tab until `locator` has the focus, as a keyboard user would."""
    for _ in range(limit):
        if locator.evaluate("el => el === document.activeElement"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {locator}; focus is on {_focused(page)}")


def _focus_ring(page: Page, selector: str) -> dict:
    return page.locator(selector).evaluate(
        """el => { const s = getComputedStyle(el);
                   return {style: s.outlineStyle, width: parseFloat(s.outlineWidth)}; }"""
    )


def _assert_visible_focus(page: Page, selector: str) -> None:
    ring = _focus_ring(page, selector)
    assert ring["style"] != "none" and ring["width"] >= 2, f"no visible focus on {selector}: {ring}"


def _expect_announced(page: Page) -> None:
    """The live region speaks the new step: its question number, or the verdict."""
    words = page.locator("#quiz-area .step").get_attribute("data-announce")
    assert words and words.strip()
    expect(page.locator("#announcer")).to_have_text(words)


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_learner_answers_with_the_keyboard_only(
    page: Page, signed_in, quiz, axe_source, screenshots_dir, lang
):
    key = support.answer_key(quiz, lang)
    page.goto(f"/{lang}/quizzes/{quiz.slug}/")
    support.mark_document(page)

    start = page.locator(".quiz-actions button[type=submit]")
    _tab_to(page, start)
    _assert_visible_focus(page, ".quiz-actions button[type=submit]")
    page.keyboard.press("Enter")

    # The first question is swapped in; focus moves to it and it is announced.
    expect_question(page, key[0])
    expect(page.locator("#question-heading")).to_be_focused()
    expect(page.locator("#announcer")).to_have_attribute("aria-live", "polite")
    _expect_announced(page)
    support.assert_accessible(page, axe_source, "the first question, swapped in")

    # Into the radio group, then arrow keys to the right answer (no mouse anywhere).
    page.keyboard.press("Tab")
    radios = page.get_by_role("radio")
    expect(radios.first).to_be_focused()
    _assert_visible_focus(page, "#quiz-area label.choice:has(input:focus-visible)")
    page.keyboard.press("Space")
    right = page.get_by_role("radio", name=key[0].right)
    for _ in range(radios.count()):
        if right.is_checked():
            break
        page.keyboard.press("ArrowDown")
    expect(right).to_be_checked()
    expect(right).to_be_focused()
    support.screenshot(page, screenshots_dir, f"focus-choice-{lang}")

    submit = support.submit_button(page)
    _tab_to(page, submit)
    _assert_visible_focus(page, "#quiz-area form.question button[type=submit]")
    page.keyboard.press("Enter")

    # The feedback replaces the form in place; focus moves into it and it is announced.
    expect_feedback(page, key[0], right=True)
    expect(page.locator("#question-heading")).to_be_focused()
    expect(page.locator("#quiz-area .feedback")).to_have_attribute("role", "status")
    _expect_announced(page)
    support.assert_accessible(page, axe_source, "the feedback, swapped in")

    following = support.next_control(page)
    _tab_to(page, following)
    _assert_visible_focus(page, "#quiz-area .step__actions a.button--primary")
    support.screenshot(page, screenshots_dir, f"focus-next-{lang}")
    page.keyboard.press("Enter")

    expect_question(page, key[1])
    expect(page.locator("#question-heading")).to_be_focused()
    _expect_announced(page)

    # Enter on a chosen radio submits too (the form's implicit submission, through htmx).
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    wrong = page.get_by_role("radio", name=key[1].wrong)
    for _ in range(radios.count()):
        if wrong.is_checked():
            break
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect_feedback(page, key[1], right=False)
    expect(page.locator("#question-heading")).to_be_focused()
    _expect_announced(page)

    assert support.same_document(page)
    attempt = Attempt.objects.get(user=signed_in, quiz=quiz)
    assert [a.is_correct for a in attempt.answers.order_by("question__position")] == [True, False]


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_skip_link_is_first_shows_on_focus_and_moves_focus_to_the_content(
    page: Page, seeded, lang
):
    page.goto(f"/{lang}/")
    skip = page.locator("a.skip-link")
    expect(skip).not_to_be_in_viewport()
    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    _assert_visible_focus(page, "a.skip-link")
    page.keyboard.press("Enter")
    expect(page.locator("main#main")).to_be_focused()
    # The next Tab continues inside the content, past the site navigation.
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.querySelector('main').contains(document.activeElement)")
