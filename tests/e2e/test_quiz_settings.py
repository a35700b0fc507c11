"""An exam: a deferred, timed quiz taken through its navigator, in both languages."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from quizzes.models import Attempt, Quiz

from . import support


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_learner_takes_a_timed_exam_through_its_navigator(
    page: Page, signed_in, quiz, axe_source, console_errors, lang
):
    Quiz.objects.filter(pk=quiz.pk).update(
        feedback=Quiz.Feedback.DEFERRED, time_limit=timedelta(minutes=20)
    )
    key = support.answer_key(quiz, lang)
    page.goto(f"/{lang}/quizzes/{quiz.slug}/")
    expect(page.locator(".rules__list li")).to_have_count(2)  # 20 minutes; answers at the end
    support.assert_accessible(page, axe_source, "the quiz page with its rules")
    page.locator(".quiz-actions button[type=submit]").click()
    expect(page.locator("#quiz-area form.question")).to_be_visible()
    support.mark_document(page)

    # The countdown runs from the server's deadline.
    timer = page.locator(".timer__value")
    expect(timer).to_have_text(re.compile(r"^(19|20):\d\d$"))
    first = timer.inner_text()
    expect(timer).not_to_have_text(first)

    # Answer question 1 wrong, then jump to question 3 through the navigator.
    page.get_by_role("radio", name=key[0].wrong).check()
    page.locator("#quiz-area form.question button[type=submit]").click()
    expect(page.locator("#quiz-area .message--success")).to_be_visible()
    expect(page.locator("#quiz-area .feedback")).to_have_count(0)
    expect(page.get_by_role("radio", name=key[0].wrong)).to_be_checked()
    support.assert_accessible(page, axe_source, "a saved exam answer")

    navigator = page.locator("nav.navigator")
    navigator.locator("a").nth(2).click()
    expect(page).to_have_url(re.compile(r"/questions/3/$"))
    expect(page.locator("#quiz-area #question-heading")).to_have_text(key[2].prompt)
    expect(navigator.locator("a").nth(0)).to_have_class(re.compile("navigator__item--answered"))
    expect(navigator.locator("a").nth(2)).to_have_attribute("aria-current", "step")
    page.get_by_role("radio", name=key[2].right).check()
    page.locator("#quiz-area form.question button[type=submit]").click()
    expect(page.locator("#quiz-area .message--success")).to_be_visible()

    # Back to question 1: change the answer, nothing about correctness anywhere.
    navigator.locator("a").nth(0).click()
    expect(page.get_by_role("radio", name=key[0].wrong)).to_be_checked()
    page.get_by_role("radio", name=key[0].right).check()
    page.locator("#quiz-area form.question button[type=submit]").click()
    expect(page.locator("#quiz-area .message--success")).to_be_visible()
    assert support.same_document(page)
    assert "feedback--" not in page.content()

    # Submit all: the confirmation lists what is unanswered, then the result shows it all.
    page.locator("#quiz-area a[href$='/finish/']").click()
    unanswered = page.locator(".finish__unanswered li")
    expect(unanswered).to_have_count(len(key) - 2)
    support.assert_accessible(page, axe_source, "the confirmation before submitting")
    page.locator("#quiz-area form button.button--primary").click()
    expect(page).to_have_url(re.compile(r"/result/$"))
    attempt = Attempt.objects.get(user=signed_in, quiz=quiz)
    assert attempt.is_finished and (attempt.score, attempt.total) == (2, len(key))
    expect(page.locator(".score-summary__big")).to_contain_text(str(len(key)))
    assert not [error for error in console_errors if "Content Security Policy" in error]


def test_the_countdown_is_right_on_a_device_whose_clock_is_off(page: Page, signed_in, quiz):
    Quiz.objects.filter(pk=quiz.pk).update(time_limit=timedelta(minutes=20))
    # This device's clock runs 10 minutes ahead of the server's.
    page.clock.install(time=timezone.now() + timedelta(minutes=10))
    page.goto(f"/en/quizzes/{quiz.slug}/")
    page.locator(".quiz-actions button[type=submit]").click()

    expect(page.locator(".timer__value")).to_have_text(re.compile(r"^(19|20):\d\d$"))


def test_a_time_left_of_hours_counts_down_in_hours_minutes_and_seconds(page: Page, signed_in, quiz):
    Quiz.objects.filter(pk=quiz.pk).update(time_limit=timedelta(minutes=90))
    page.goto(f"/en/quizzes/{quiz.slug}/")
    page.locator(".quiz-actions button[type=submit]").click()

    expect(page.locator(".timer__value")).to_have_text(re.compile(r"^1:(29|30):\d\d$"))


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_at_the_deadline_the_page_says_time_is_up_and_then_shows_the_result(
    page: Page, signed_in, quiz, console_errors, lang
):
    Quiz.objects.filter(pk=quiz.pk).update(time_limit=timedelta(minutes=20))
    key = support.answer_key(quiz, lang)
    page.goto(f"/{lang}/quizzes/{quiz.slug}/")
    page.locator(".quiz-actions button[type=submit]").click()
    page.get_by_role("radio", name=key[0].right).check()
    page.locator("#quiz-area form.question button[type=submit]").click()
    expect(page.locator("#quiz-area .feedback")).to_be_visible()
    # The deadline comes near; the next step's page counts down to it.
    attempt = Attempt.objects.get(user=signed_in, quiz=quiz)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() + timedelta(seconds=2))
    page.goto(f"/{lang}/attempts/{attempt.pk}/questions/2/")

    said = "Time is up" if lang == "en" else "انتهى الوقت"
    expect(page.locator("#announcer")).to_have_text(said, timeout=5_000)
    # Nothing else to press: after the server's grace the result comes by itself.
    expect(page).to_have_url(re.compile(rf"/{lang}/attempts/{attempt.pk}/result/$"), timeout=20_000)
    attempt.refresh_from_db()
    assert attempt.is_finished and attempt.score == 1
    score = "1 / 8" if lang == "en" else "1 من 8"
    assert score in page.locator("main").inner_text()
