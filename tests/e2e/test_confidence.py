"""Confidence with each answer in Chromium (issue 56): by keyboard only, in both languages,
axe-clean; the calibration's bars mirrored in Arabic; without JavaScript."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from quizzes.models import Answer, Attempt
from tests import factories

from .support import assert_accessible

pytestmark = pytest.mark.e2e


def level_name(lang: str, level: int) -> str:
    return {
        "en": {1: "Not sure", 2: "Fairly sure", 3: "Very sure"},
        "ar": {1: "ثقة قليلة", 2: "ثقة متوسطة", 3: "ثقة عالية"},
    }[lang][level]


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_learner_answers_with_levels_by_keyboard_only(page: Page, signed_in, lang, axe_source):
    quiz = factories.make_quiz(questions=2, confidence="marking")
    one, two = quiz.questions.order_by("position")
    page.goto(f"/{lang}/quizzes/{quiz.slug}/")
    start = page.locator("form[action$='/start/'] button[type=submit]")
    start.focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    attempt = Attempt.objects.get(user=signed_in, quiz=quiz)
    expect(
        page.get_by_role("group", name=page.locator(".confidence__legend").inner_text())
    ).to_be_visible()
    assert_accessible(page, axe_source, f"a step with levels ({lang})")

    for question, level in ((one, 3), (two, 1)):
        choice = factories.correct_choice(question)
        page.get_by_role("radio", name=getattr(choice, f"text_{lang}")).focus()
        page.keyboard.press("Space")
        # Tab leaves the choices' group for the levels' group; arrows pick within it.
        page.keyboard.press("Tab")
        page.keyboard.press("Space")
        target = page.get_by_role("radio", name=level_name(lang, level))
        for _ in range(3):
            if target.is_checked():
                break
            page.keyboard.press("ArrowDown")
        expect(target).to_be_checked()
        page.keyboard.press("Enter")
        expect(page.locator("#quiz-area .feedback")).to_be_visible()
        expect(page.locator(".feedback__confidence")).to_contain_text(level_name(lang, level))
        assert Answer.objects.get(attempt=attempt, question=question).confidence == level
        if question == one:
            assert_accessible(page, axe_source, f"feedback with a level ({lang})")
            link = page.locator("#quiz-area .step__actions a").first
            link.focus()
            page.keyboard.press("Enter")
            expect(page.locator("#quiz-area form.question")).to_be_visible()

    attempt.refresh_from_db()
    assert attempt.cbm_score == 4
    page.goto(f"/{lang}/attempts/{attempt.pk}/result/")
    expect(page.locator(".confidence-summary")).to_be_visible()
    assert_accessible(page, axe_source, f"the result with levels ({lang})")

    page.goto(f"/{lang}/attempts/")
    bars = page.locator(".calibration__bar")
    expect(bars).to_have_count(3)
    assert_accessible(page, axe_source, f"the history's calibration ({lang})")
    # The bar fills from the start of the line: the left in English, the right in Arabic.
    track = bars.nth(2).bounding_box()
    fill = bars.nth(2).locator(".score-bars__fill").bounding_box()
    assert track and fill
    if lang == "ar":
        assert abs((fill["x"] + fill["width"]) - (track["x"] + track["width"])) < 2
    else:
        assert abs(fill["x"] - track["x"]) < 2


def test_without_javascript_a_learner_must_say_how_sure_and_the_page_shows_it(
    browser, live_server, learner
):
    """No script: the levels are plain radios in the step's form; the browser will not send
    an answer without one (the server's 422 is tested in tests/quizzes/test_confidence.py),
    and the whole page that comes back shows the level and, at the end, the CBM result."""
    from .support import sign_in

    quiz = factories.make_quiz(questions=2, confidence="marking")
    one, two = quiz.questions.order_by("position")
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    sign_in(context, live_server.url, learner)
    page = context.new_page()
    page.goto(f"/en/quizzes/{quiz.slug}/")
    page.locator("form[action$='/start/'] button[type=submit]").click()
    attempt = Attempt.objects.get(user=learner, quiz=quiz)

    page.get_by_role("radio", name=factories.correct_choice(one).text_en).check()
    submit = page.locator("form.question button[type=submit]")
    submit.click()  # no level: the browser keeps the form, nothing is sent
    assert page.locator("input[name=confidence]:invalid").count() == 3
    assert not Answer.objects.filter(attempt=attempt).exists()

    page.get_by_role("radio", name="Very sure").check()
    with page.expect_navigation():
        submit.click()
    expect(page.locator(".feedback__confidence")).to_contain_text("Very sure")
    assert Answer.objects.get(attempt=attempt, question=one).confidence == 3

    page.locator(".step__actions a").first.click()
    page.get_by_role("radio", name=factories.wrong_choice(two).text_en).check()
    page.get_by_role("radio", name="Fairly sure").check()
    with page.expect_navigation():
        page.locator("form.question button[type=submit]").click()
    assert Answer.objects.get(attempt=attempt, question=two).confidence == 2
    attempt.refresh_from_db()
    assert attempt.finished_at is not None and attempt.cbm_score == 3 - 2
    context.close()
