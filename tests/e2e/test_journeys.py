"""A learner's journeys through the site in Chromium, through the pages' own controls."""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from quizzes.models import Attempt
from tests.factories import PASSWORD

from . import support
from .support import assert_whole_page, expect_feedback, expect_question, next_control


def _start(page: Page, quiz) -> None:
    page.goto(f"/en/quizzes/{quiz.slug}/")
    page.get_by_role("button", name="Start quiz").click()


def test_a_visitor_signs_up_and_is_signed_in(page: Page, seeded):
    page.goto("/en/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Sign up").click()
    expect(page).to_have_url(re.compile(r"/en/accounts/signup/"))
    assert_whole_page(page)

    page.get_by_label("Username").fill("yusuf")
    page.get_by_label("Email (optional)").fill("yusuf@example.org")
    page.get_by_label("Password", exact=True).fill("a-long-test-passphrase-42")
    page.get_by_label("Password (again)").fill("a-long-test-passphrase-42")
    page.get_by_role("button", name="Sign up").click()

    # Back where the learner came from, signed in.
    expect(page).to_have_url(re.compile(r"/en/$"))
    expect(page.locator(".nav-user")).to_have_text("yusuf")
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    assert get_user_model().objects.filter(username="yusuf").exists()


def test_a_learner_signs_up_with_mistakes_and_is_told_what_to_fix(page: Page, seeded):
    page.goto("/en/accounts/signup/")
    page.get_by_label("Username").fill("yusuf")
    page.get_by_label("Password", exact=True).fill("a-long-test-passphrase-42")
    page.get_by_label("Password (again)").fill("something else entirely")
    page.get_by_role("button", name="Sign up").click()

    summary = page.get_by_role("alert")
    expect(summary).to_be_visible()
    expect(summary.get_by_role("link")).to_have_count(1)
    summary.get_by_role("link").click()
    expect(page.get_by_label("Password (again)")).to_be_focused()


def test_a_learner_takes_a_whole_quiz_with_the_mouse(page: Page, signed_in, quiz):
    key = support.answer_key(quiz, "en")
    _start(page, quiz)
    support.mark_document(page)

    # Submitting with no answer chosen is stopped by the browser: nothing is sent.
    posts: list[str] = []
    page.on(
        "request", lambda request: posts.append(request.url) if request.method == "POST" else None
    )
    support.submit_button(page).click()
    expect(page.get_by_role("radio").first).to_be_focused()
    assert posts == []
    expect_question(page, key[0])

    wrong_on = {2, 5}
    for number, question in enumerate(key, start=1):
        expect(page).to_have_url(re.compile(rf"/attempts/\d+/questions/{number}/$"))
        expect_question(page, question)
        choice = question.wrong if number in wrong_on else question.right
        page.locator("#quiz-area label.choice", has_text=choice).click()
        expect(page.get_by_role("radio", name=choice)).to_be_checked()
        support.submit_button(page).click()
        expect_feedback(page, question, right=number not in wrong_on)
        next_control(page).click()

    # Every step swapped in place; only "See results" loads a page.
    expect(page).to_have_url(re.compile(r"/attempts/\d+/result/$"))
    assert not support.same_document(page)
    assert_whole_page(page)
    expect(page.locator(".score-summary__big")).to_have_text(f"{len(key) - 2} / {len(key)}")
    expect(page.locator(".review__item")).to_have_count(len(key))
    expect(page.locator(".review__item--wrong")).to_have_count(2)
    attempt = Attempt.objects.get(user=signed_in, quiz=quiz)
    assert attempt.is_finished and attempt.score == len(key) - 2


def test_stepping_swaps_in_place_with_no_page_load(page: Page, signed_in, quiz):
    key = support.answer_key(quiz, "en")
    page.goto(f"/en/quizzes/{quiz.slug}/")
    support.mark_document(page)
    loads: list[str] = []
    page.on("load", lambda: loads.append(page.url))

    page.get_by_role("button", name="Start quiz").click()
    expect_question(page, key[0])
    # The step has its own address, title and history entry, all without leaving the page.
    expect(page).to_have_url(re.compile(r"/attempts/\d+/questions/1/$"))
    expect(page).to_have_title(f"Question 1 of 8 · {quiz.title_en} · Daleel")

    page.get_by_role("radio", name=key[0].right).check()
    page.get_by_role("button", name="Submit answer").click()
    expect_feedback(page, key[0], right=True)
    expect(page).to_have_url(re.compile(r"/attempts/\d+/questions/1/$"))

    page.get_by_role("link", name="Next question").click()
    expect_question(page, key[1])
    expect(page).to_have_url(re.compile(r"/attempts/\d+/questions/2/$"))
    expect(page).to_have_title(f"Question 2 of 8 · {quiz.title_en} · Daleel")

    assert support.same_document(page)
    assert loads == []
    assert_whole_page(page)


def test_a_reload_mid_quiz_returns_to_the_same_step(page: Page, signed_in, quiz):
    key = support.answer_key(quiz, "en")
    _start(page, quiz)
    page.get_by_role("radio", name=key[0].right).check()
    support.submit_button(page).click()
    expect_feedback(page, key[0], right=True)

    page.reload()
    expect_feedback(page, key[0], right=True)
    assert_whole_page(page)

    next_control(page).click()
    expect_question(page, key[1])
    page.reload()
    expect(page).to_have_url(re.compile(r"/attempts/\d+/questions/2/$"))
    expect_question(page, key[1])
    assert_whole_page(page)


def test_the_back_button_shows_whole_pages_never_a_fragment(page: Page, signed_in, quiz):
    key = support.answer_key(quiz, "en")
    quiz_page = f"/en/quizzes/{quiz.slug}/"
    _start(page, quiz)
    for question in key[:2]:
        page.get_by_role("radio", name=question.right).check()
        support.submit_button(page).click()
        expect_feedback(page, question, right=True)
        next_control(page).click()
    expect_question(page, key[2])

    # Back through the entries htmx pushed: each is restored as a whole page.
    page.go_back()
    expect(page).to_have_url(re.compile(r"/questions/2/$"))
    expect_feedback(page, key[1], right=True)
    assert_whole_page(page)
    page.go_back()
    expect(page).to_have_url(re.compile(r"/questions/1/$"))
    expect_feedback(page, key[0], right=True)
    assert_whole_page(page)
    page.go_back()
    expect(page).to_have_url(re.compile(f"{quiz_page}$"))
    expect(page.get_by_role("button", name="Resume quiz")).to_be_visible()
    assert_whole_page(page)

    # Forward again, then away to another page and back: the step URL was last fetched as a
    # fragment, and the browser must not show that cached fragment as the page.
    page.go_forward()
    expect(page).to_have_url(re.compile(r"/questions/1/$"))
    page.go_forward()
    page.go_forward()
    expect(page).to_have_url(re.compile(r"/questions/3/$"))
    expect_question(page, key[2])
    page.get_by_role("navigation", name="Main").get_by_role("link", name="My history").click()
    expect(page).to_have_url(re.compile(r"/en/attempts/$"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/questions/3/$"))
    expect_question(page, key[2])
    assert_whole_page(page)


def test_the_history_lists_the_attempt(page: Page, signed_in, seeded, quiz):
    other = seeded["zero-sharded-optimizers"]
    _start(page, quiz)
    for number, question in enumerate(support.answer_key(quiz, "en"), start=1):
        page.get_by_role("radio", name=question.right if number != 3 else question.wrong).check()
        support.submit_button(page).click()
        expect_feedback(page, question, right=number != 3)
        next_control(page).click()
    expect(page).to_have_url(re.compile(r"/result/$"))
    support.answer_in_db(signed_in, other, 2)

    page.get_by_role("navigation", name="Main").get_by_role("link", name="My history").click()
    assert_whole_page(page)
    rows = page.locator("section[aria-labelledby=attempts-heading] tbody tr")
    expect(rows).to_have_count(2)
    finished = rows.filter(has_text=quiz.title_en)
    expect(finished).to_contain_text("7 / 8")
    expect(finished).to_contain_text("Finished")
    in_progress = rows.filter(has_text=other.title_en)
    expect(in_progress).to_contain_text("In progress")

    finished.get_by_role("link", name="Answers").click()
    expect(page).to_have_url(re.compile(r"/result/$"))
    expect(page.locator(".score-summary__big")).to_have_text("7 / 8")
    page.go_back()
    rows.filter(has_text=other.title_en).get_by_role("link", name="Resume").click()
    expect(page).to_have_url(re.compile(r"/questions/3/$"))
    expect_question(page, support.answer_key(other, "en")[2])


def test_a_learner_signs_out_and_in_again_and_finds_the_attempt(page: Page, seeded, learner, quiz):
    support.answer_in_db(learner, quiz, 3)
    page.goto("/en/attempts/")
    # Signed out, the history asks for a sign-in and comes back after it.
    expect(page).to_have_url(re.compile(r"/en/accounts/login/\?next="))
    page.get_by_label("Username").fill(learner.username.lower())  # "Amina" typed "amina"
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in", exact=True).click()
    expect(page).to_have_url(re.compile(r"/en/attempts/$"))
    expect(page.locator("tbody tr", has_text=quiz.title_en)).to_contain_text("In progress")


def test_a_double_click_on_submit_sends_one_answer(page: Page, signed_in, quiz):
    key = support.answer_key(quiz, "en")
    _start(page, quiz)
    expect_question(page, key[0])
    posts: list[str] = []
    page.on(
        "request", lambda request: posts.append(request.url) if request.method == "POST" else None
    )

    page.get_by_role("radio", name=key[0].right).check()
    support.submit_button(page).dblclick()

    expect_feedback(page, key[0], right=True)
    page.wait_for_load_state("networkidle")
    assert len(posts) == 1, posts
    expect(page.get_by_text("You had already answered")).to_have_count(0)


def test_a_form_that_expired_in_another_tab_reloads_the_step_instead_of_nesting_a_page(
    page: Page, signed_in, quiz
):
    key = support.answer_key(quiz, "en")
    _start(page, quiz)
    expect_question(page, key[0])
    # Signing out and in elsewhere gives the browser a new CSRF token; this page has the old.
    token = next(c for c in page.context.cookies() if c["name"] == "csrftoken")
    page.context.add_cookies([{**token, "value": "x" * 32}])

    page.get_by_role("radio", name=key[0].right).check()
    support.mark_document(page)
    # HX-Refresh reloads the page: wait for that load to finish before looking at the page.
    with page.expect_navigation():
        support.submit_button(page).click()

    # The page reloads, whole, on the same step: nothing was recorded, the learner answers again.
    assert not support.same_document(page)
    expect_question(page, key[0])
    assert_whole_page(page)
    assert not Attempt.objects.get().answers.exists()
