"""The same journey in Arabic: right to left, Arabic content, through the pages' own controls.

Interface wording is left to the Arabic catalogue; these tests check the language and the
direction of every page, the Arabic content of the quiz, and that the layout is mirrored.
"""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from quizzes.models import Attempt
from tests.factories import PASSWORD

from . import support
from .support import assert_whole_page, expect_feedback, expect_question, next_control


def _box(page: Page, selector: str) -> dict:
    box = page.locator(selector).first.bounding_box()
    assert box, f"{selector} is not rendered"
    return box


def test_the_whole_journey_in_arabic_right_to_left(page: Page, seeded, quiz):
    key = support.answer_key(quiz, "ar")

    # Sign up.
    page.goto("/ar/")
    assert_whole_page(page, "ar")
    page.locator(".nav-account a.button").click()
    expect(page).to_have_url(re.compile(r"/ar/accounts/signup/"))
    assert_whole_page(page, "ar")
    page.locator("#id_username").fill("layla")
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.locator("form.form button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/ar/$"))
    expect(page.locator(".nav-user")).to_have_text("layla")
    learner = get_user_model().objects.get(username="layla")

    # The catalogue lists the quiz by its Arabic title; the page reads right to left.
    page.get_by_role("link", name=quiz.title_ar, exact=True).click()
    expect(page).to_have_url(re.compile(rf"/ar/quizzes/{quiz.slug}/$"))
    assert_whole_page(page, "ar")
    expect(page.locator("h1")).to_have_text(quiz.title_ar)
    brand, account = _box(page, ".brand"), _box(page, ".nav-account")
    assert brand["x"] > account["x"], "the brand should sit at the right in Arabic"

    # Take the whole quiz with the mouse, one wrong answer.
    page.locator(".quiz-actions button[type=submit]").click()
    support.mark_document(page)
    for number, question in enumerate(key, start=1):
        expect(page).to_have_url(re.compile(rf"/ar/attempts/\d+/questions/{number}/$"))
        expect_question(page, question)
        assert page.evaluate("() => document.documentElement.dir") == "rtl"
        if number == 1:
            # Mirrored: each radio sits at the right of its answer.
            radio, text = _box(page, "label.choice input"), _box(page, "label.choice .choice__text")
            assert radio["x"] > text["x"], "radios should sit at the right in Arabic"
        choice = question.wrong if number == 4 else question.right
        page.locator("#quiz-area label.choice", has_text=choice).click()
        support.submit_button(page).click()
        expect_feedback(page, question, right=number != 4)
        next_control(page).click()

    expect(page).to_have_url(re.compile(r"/ar/attempts/\d+/result/$"))
    assert_whole_page(page, "ar")
    expect(page.locator("h1")).to_have_text(quiz.title_ar)
    expect(page.locator(".review__prompt").first).to_have_text(re.compile(re.escape(key[0].prompt)))
    expect(page.locator(".review__item--wrong")).to_have_count(1)
    attempt = Attempt.objects.get(user=learner, quiz=quiz)
    assert attempt.score == 7

    # The history lists it, still in Arabic.
    page.locator(".nav-links a[href$='/ar/attempts/']").click()
    expect(page).to_have_url(re.compile(r"/ar/attempts/$"))
    assert_whole_page(page, "ar")
    row = page.locator("section[aria-labelledby=attempts-heading] tbody tr")
    expect(row).to_have_count(1)
    expect(row).to_contain_text(quiz.title_ar)
    expect(row).to_contain_text("7 من 8")  # the score reads "7 of 8" in Arabic
    expect(row.locator(f"a[href$='/ar/attempts/{attempt.pk}/result/']")).to_be_visible()


def test_switching_language_mid_quiz_keeps_the_learner_on_the_step(page: Page, signed_in, quiz):
    en, ar = support.answer_key(quiz, "en"), support.answer_key(quiz, "ar")
    page.goto(f"/en/quizzes/{quiz.slug}/")
    page.get_by_role("button", name="Start quiz").click()
    page.get_by_role("radio", name=en[0].right).check()
    support.submit_button(page).click()
    expect_feedback(page, en[0], right=True)
    next_control(page).click()
    expect_question(page, en[1])

    # The switch was rendered on the quiz page; it must now return to step 2, in Arabic.
    page.locator(".language-switch button[value=ar]").click()
    expect(page).to_have_url(re.compile(r"/ar/attempts/\d+/questions/2/$"))
    assert_whole_page(page, "ar")
    expect_question(page, ar[1])

    page.locator("#quiz-area label.choice", has_text=ar[1].right).click()
    support.submit_button(page).click()
    expect_feedback(page, ar[1], right=True)
    page.locator(".language-switch button[value=en]").click()
    expect(page).to_have_url(re.compile(r"/en/attempts/\d+/questions/2/$"))
    expect_feedback(page, en[1], right=True)
    assert_whole_page(page, "en")
