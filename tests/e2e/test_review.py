"""A learner reviews the questions they missed, by keyboard, in both languages."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from quizzes.models import Attempt, ReviewAnswer, ReviewCard

from . import support
from .support import assert_whole_page


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_learner_reviews_missed_questions_by_keyboard(page: Page, signed_in, quiz, lang):
    key = support.answer_key(quiz, lang)
    support.answer_in_db(signed_in, quiz, 3, wrong={1, 3})
    ReviewCard.objects.update(due=timezone.now())
    scores = list(Attempt.objects.values_list("pk", "score", "finished_at"))

    page.goto(f"/{lang}/")
    review_link = page.get_by_role("navigation").locator("a[href$='/review/']")
    expect(review_link.locator(".count-badge")).to_contain_text("2")
    review_link.focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/review/$"))
    assert_whole_page(page, lang)
    support.mark_document(page)

    steps = ((key[0].prompt, key[0].right), (key[2].prompt, key[2].wrong))
    for number, (prompt, right) in enumerate(steps):
        expect(page.locator("#quiz-area form.question #question-heading")).to_have_text(prompt)
        if number:  # swapped in by htmx: focus moves to it (a page load starts at the top)
            expect(page.locator("#question-heading")).to_be_focused()
        else:
            page.locator("#question-heading").focus()
        page.keyboard.press("Tab")
        page.keyboard.press("Space")
        radios = page.get_by_role("radio")
        pick = page.get_by_role("radio", name=right)
        for _ in range(radios.count()):
            if pick.is_checked():
                break
            page.keyboard.press("ArrowDown")
        expect(pick).to_be_checked()
        page.keyboard.press("Enter")  # the form's implicit submission, through htmx
        expect(page.locator("#quiz-area .feedback")).to_be_visible()
        expect(page.locator("#question-heading")).to_be_focused()
        expect(page).to_have_url(
            f"{page.url.split('/review/')[0]}/review/answers/"
            f"{ReviewAnswer.objects.latest('answered_at').pk}/"
        )
        next_review = page.locator("#quiz-area .step__actions a")
        next_review.focus()
        page.keyboard.press("Enter")

    # Both reviewed: nothing is due, and the page says when the next one comes back.
    expect(page.locator("#quiz-area .empty #question-heading")).to_be_visible()
    assert support.same_document(page)
    assert [a.is_correct for a in ReviewAnswer.objects.order_by("answered_at")] == [True, False]
    assert list(Attempt.objects.values_list("pk", "score", "finished_at")) == scores


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_after_a_right_answer_a_key_rates_it_and_brings_the_next_question(
    page: Page, signed_in, quiz, lang
):
    key = support.answer_key(quiz, lang)
    support.answer_in_db(signed_in, quiz, 3, wrong={1, 2})
    ReviewCard.objects.update(due=timezone.now())
    first = ReviewCard.objects.get(question__position=1)
    ReviewCard.objects.filter(pk=first.pk).update(due=timezone.now() - timezone.timedelta(hours=1))

    page.goto(f"/{lang}/review/")
    expect(page.locator("#question-heading")).to_have_text(key[0].prompt)
    page.get_by_role("radio", name=key[0].right).check()
    page.locator("#quiz-area form.question button[type=submit]").click()
    rating = page.locator("#quiz-area form.rating")
    expect(rating).to_be_visible()
    expect(rating.get_by_role("button")).to_have_count(3)
    if lang == "en":
        expect(rating.get_by_role("button")).to_have_text(["Hard", "Good", "Easy"])
    good_due = ReviewCard.objects.get(pk=first.pk).due

    page.keyboard.press("4")  # Easy

    expect(page.locator("#quiz-area form.question #question-heading")).to_have_text(key[1].prompt)
    expect(page).to_have_url(re.compile(r"/review/$"))
    answer = ReviewAnswer.objects.get(card=first)
    assert answer.rating == ReviewAnswer.Rating.EASY
    assert ReviewCard.objects.get(pk=first.pk).due > good_due

    # A wrong answer is Again without asking: key 1 goes on.
    page.get_by_role("radio", name=key[1].wrong).check()
    page.locator("#quiz-area form.question button[type=submit]").click()
    expect(page.locator("#quiz-area .feedback")).to_be_visible()
    expect(page.locator("#quiz-area form.rating")).to_have_count(0)
    page.keyboard.press("1")
    expect(page.locator("#quiz-area .empty #question-heading")).to_be_visible()
    assert ReviewAnswer.objects.latest("answered_at").rating == ReviewAnswer.Rating.AGAIN
