"""Accounts in Chromium: a password reset through the mail, deleting an account, and reporting
a problem with a question from its feedback."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from quizzes.models import Attempt, QuestionReport
from tests.factories import PASSWORD, make_user

from . import support
from .support import assert_whole_page

NEW_PASSWORD = "a-brand-new-passphrase-31"
LINK = re.compile(r"https?://\S+/accounts/password/reset/\S+/")


def test_a_learner_who_forgot_the_password_resets_it_through_the_mail(
    page: Page, seeded, mailoutbox
):
    make_user("Huda", email="huda@example.org")
    page.goto("/en/accounts/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    assert_whole_page(page)
    page.get_by_label("Email").fill("HUDA@example.org")
    page.get_by_role("button", name="Send the link").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Check your email")

    assert len(mailoutbox) == 1 and mailoutbox[0].to == ["huda@example.org"]
    link = LINK.search(mailoutbox[0].body).group(0)
    page.goto(link)
    expect(page.get_by_role("heading", level=1)).to_have_text("Choose a new password")
    page.get_by_label("New Password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("New Password (again)").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Set the new password").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your new password is set")

    page.get_by_role("main").get_by_role("link", name="Sign in").click()
    page.get_by_label("Username").fill("huda")
    page.get_by_label("Password").fill(NEW_PASSWORD)
    page.get_by_role("main").get_by_role("button", name="Sign in", exact=True).click()
    expect(page.locator(".nav-user")).to_have_text("Huda")  # signed in as "huda"

    # The link worked once.
    page.goto(link)
    expect(page.get_by_role("heading", level=1)).to_have_text("This link no longer works")


def test_a_learner_deletes_their_account_from_the_profile(page: Page, signed_in, quiz):
    support.answer_in_db(signed_in, quiz, 3)
    page.goto("/en/")
    page.locator(".nav-user").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your profile")
    page.get_by_role("link", name="Delete my account").click()
    expect(page.get_by_text("Instructors' statistics lose your attempts")).to_be_visible()

    page.get_by_label("Your password").fill("not my password")
    page.get_by_role("button", name="Delete my account for good").click()
    expect(page.get_by_role("alert")).to_be_visible()
    assert get_user_model().objects.filter(pk=signed_in.pk).exists()

    page.get_by_label("Your password").fill(PASSWORD)
    page.get_by_role("button", name="Delete my account for good").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your account is deleted")
    expect(
        page.get_by_role("navigation", name="Main").get_by_role("link", name="Sign in")
    ).to_be_visible()
    assert not get_user_model().objects.filter(pk=signed_in.pk).exists()
    assert not Attempt.objects.filter(user_id=signed_in.pk).exists()


def test_a_learner_reports_a_problem_in_place_from_the_feedback(page: Page, signed_in, quiz):
    attempt = support.answer_in_db(signed_in, quiz, 2)
    page.goto(support.step_url(attempt, 2))
    support.mark_document(page)
    page.get_by_role("link", name="Report a problem with this question").click()

    reason = page.get_by_label("The wording is unclear")
    expect(reason).to_be_visible()
    assert support.same_document(page)
    reason.check()
    page.get_by_label("Details (optional)").fill("<b>Which GPU?</b>")
    page.get_by_role("button", name="Send the report").click()
    expect(page.locator("#report-box")).to_contain_text("Thank you")
    expect(page.locator("#report-box [data-autofocus]")).to_be_focused()
    assert support.same_document(page)
    report = QuestionReport.objects.get()
    assert (report.user, report.reason, report.text) == (signed_in, "unclear", "<b>Which GPU?</b>")


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_new_learner_is_welcomed_with_links_to_the_catalog_review_and_profile(
    page: Page, seeded, axe_source, screenshots_dir, lang
):
    page.set_viewport_size(support.PHONE)
    page.goto(f"/{lang}/accounts/signup/")
    page.locator("#id_username").fill("yusuf")
    page.locator("#id_password1").fill("a-long-test-passphrase-42")
    page.locator("#id_password2").fill("a-long-test-passphrase-42")
    page.locator("form.form button[type=submit]").click()

    welcome = page.locator(".messages .message--success")
    expect(welcome).to_contain_text("yusuf")
    expect(welcome.get_by_role("link")).to_have_count(3)
    hrefs = welcome.get_by_role("link").evaluate_all("links => links.map(a => a.pathname)")
    assert hrefs == [f"/{lang}/", f"/{lang}/review/", f"/{lang}/accounts/profile/"]
    support.assert_accessible(page, axe_source, f"the welcome ({lang})")
    support.screenshot(page, screenshots_dir, f"welcome-{lang}-phone")
    page.set_viewport_size(support.DESKTOP)
    support.screenshot(page, screenshots_dir, f"welcome-{lang}-desktop")

    welcome.get_by_role("link").nth(1).click()
    expect(page).to_have_url(re.compile(rf"/{lang}/review/$"))
    expect(page.locator(".messages .message--success")).to_have_count(0)  # once only
