"""A clean console everywhere: through htmx swaps and exam saves, and on every admin page, in
both languages, at phone and desktop widths (every learner page type: test_pages.py), logs no
error, breaks the Content-Security-Policy nowhere (`securitypolicyviolation` events, which the
browser reports whether or not it also logs them) and has no request fail.

A page that answers an error on purpose (the 404 page, a form sent back with its errors as a
400 or 422) is not a failed request; anything 5xx is, and so is any stylesheet, script, font or
image that does not load.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from quizzes.models import Quiz, ReviewCard
from tests import factories
from tests.site_urls import every_url, url_values

from . import support
from .support import DESKTOP, PHONE

VIEWPORTS = {"phone": PHONE, "desktop": DESKTOP}

Problems = support.Problems


@pytest.fixture
def problems(page: Page) -> Problems:
    """Everything that would show in the console or the network panel as a problem."""
    return support.record_problems(page)


def _assert_clean(page: Page, problems: Problems, where: str) -> None:
    support.settle(page)
    assert not problems, f"{where} ({page.url}): {problems}"


def test_the_recorder_catches_an_inline_style_a_console_error_and_a_failed_request(
    page: Page, problems, seeded
):
    """The harness itself: each kind of problem is caught, or a clean run means nothing."""
    page.goto("/en/")
    page.wait_for_timeout(100)
    assert not problems, problems
    page.evaluate("() => document.querySelector('main').setAttribute('style', 'color: red')")
    page.evaluate("() => console.error('something broke')")
    page.evaluate(
        """() => { const link = document.createElement("link"); link.rel = "stylesheet";
                   link.href = "/static/css/no-such.css"; document.head.append(link); }"""
    )
    page.wait_for_timeout(300)
    assert any("style-src" in violation for violation in problems.violations), problems
    assert any("something broke" in message for message in problems.console), problems
    assert any("no-such.css" in failure for failure in problems.failed), problems


# ---------- Through htmx: a practice quiz, an exam, the catalog, a review ----------


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_practice_quiz_through_htmx_keeps_a_clean_console(
    page: Page, problems, signed_in, quiz, lang, viewport
):
    page.set_viewport_size(VIEWPORTS[viewport])
    key = support.answer_key(quiz, lang)
    page.goto(f"/{lang}/quizzes/{quiz.slug}/")
    page.locator(".quiz-actions button[type=submit]").click()
    support.expect_question(page, key[0])
    support.mark_document(page)
    for number, question in enumerate(key[:3], start=1):
        page.get_by_role("radio", name=question.right if number != 2 else question.wrong).check()
        support.submit_button(page).click()
        expect(page.locator("#quiz-area .feedback")).to_be_visible()
        if number == 2:  # the report form swaps into the feedback, and is sent
            page.locator("#report-box a").click()
            page.locator("#report-box input[type=radio]").first.check()
            page.locator("#report-box button[type=submit]").click()
            expect(page.locator("#report-box form")).to_have_count(0)
        _assert_clean(page, problems, f"practice step {number}")
        support.next_control(page).click()
        support.expect_question(page, key[number])
    assert support.same_document(page)


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("lang", ["en", "ar"])
def test_saving_exam_answers_keeps_a_clean_console(
    page: Page, problems, signed_in, quiz, lang, viewport
):
    # A timed exam, its countdown running; with motion, as most learners' browsers are set.
    Quiz.objects.filter(pk=quiz.pk).update(
        feedback=Quiz.Feedback.DEFERRED, time_limit=timedelta(minutes=20)
    )
    page.set_viewport_size(VIEWPORTS[viewport])
    page.emulate_media(reduced_motion="no-preference")
    key = support.answer_key(quiz, lang)
    page.goto(f"/{lang}/quizzes/{quiz.slug}/")
    page.locator(".quiz-actions button[type=submit]").click()
    expect(page.locator("#quiz-area form.question")).to_be_visible()
    support.mark_document(page)
    for number in (1, 2):
        page.get_by_role("radio", name=key[number - 1].right).check()
        page.locator("#quiz-area form.question button[type=submit]").click()
        expect(page.locator("#quiz-area .message--success")).to_be_visible()
        _assert_clean(page, problems, f"exam answer {number} saved")
        page.locator("#quiz-area .step__actions a.button--primary").click()
        expect(page).to_have_url(re.compile(rf"/questions/{number + 1}/$"))
    page.locator("nav.navigator a").first.click()
    expect(page).to_have_url(re.compile(r"/questions/1/$"))
    page.get_by_role("radio", name=key[0].wrong).check()
    page.locator("#quiz-area form.question button[type=submit]").click()
    expect(page.locator("#quiz-area .message--success")).to_be_visible()
    assert support.same_document(page)
    page.locator("#quiz-area a[href$='/finish/']").click()
    page.locator("#quiz-area form button.button--primary").click()
    expect(page).to_have_url(re.compile(r"/result/$"))
    _assert_clean(page, problems, "exam submitted")


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("lang", ["en", "ar"])
def test_catalog_search_and_review_through_htmx_keep_a_clean_console(
    page: Page, problems, signed_in, seeded, quiz, lang, viewport
):
    page.set_viewport_size(VIEWPORTS[viewport])
    page.goto(f"/{lang}/")
    support.mark_document(page)
    page.locator("#results").wait_for()
    page.get_by_role("searchbox").first.press_sequentially("zero", delay=30)
    expect(page).to_have_url(re.compile(r"q=zero"))
    page.get_by_role("searchbox").first.fill("")
    expect(page).not_to_have_url(re.compile(r"q=zero"))
    assert support.same_document(page)
    _assert_clean(page, problems, "catalog search")

    support.answer_in_db(signed_in, quiz, 8, wrong={1, 2})
    ReviewCard.objects.update(due=timezone.now())
    page.goto(f"/{lang}/review/")
    for _ in range(2):
        page.locator("#quiz-area label.choice").first.click()
        support.submit_button(page).click()
        expect(page.locator("#quiz-area .feedback")).to_be_visible()
        support.next_control(page).click()
    _assert_clean(page, problems, "review")


# ---------- Every admin page ----------


@pytest.fixture
def admin_pages(context, live_server, seeded, transactional_db) -> list[str]:
    """Every admin page an administrator can open, about a quiz that learners have taken."""
    administrator = factories.make_user("admin", is_staff=True, is_superuser=True)
    learner = factories.make_user("Amina")
    quiz = seeded["activation-recomputation"]
    attempt = support.answer_in_db(learner, quiz, 8, wrong={2})
    support.sign_in(context, live_server.url, administrator)
    values = url_values(quiz=quiz, attempt=attempt, user=learner)
    values |= {"attempt_id": str(attempt.pk), "user_id": str(learner.pk)}
    # Downloads, POST-only views (the preview, accepting an answer, signing out) and confirmations
    # of deletion.
    skip = re.compile(
        r"csv|export_|accept_answer|jsi18n|autocomplete|view_on_site|logout|preview|delete$"
    )
    urls = every_url(values)
    return sorted(
        {
            url
            for (name, lang), url in urls.items()
            if name.startswith("admin:") and lang == "en" and not skip.search(name)
        }
    )


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_every_admin_page_keeps_a_clean_console(page: Page, problems, admin_pages, lang):
    """Each page loaded once, then checked at every width (the console keeps recording)."""
    found = {}
    for url in admin_pages:
        page.set_viewport_size(DESKTOP)
        response = page.goto(url.replace("/en/", f"/{lang}/", 1))
        assert response is not None and response.status < 500, url
        for viewport, size in VIEWPORTS.items():
            page.set_viewport_size(size)
            page.wait_for_timeout(50)
            if problems:
                found[f"{page.url} ({viewport})"] = str(problems)
                problems.clear()
    assert not found, "\n".join(f"{url}: {what}" for url, what in found.items())
    assert len(admin_pages) > 30
