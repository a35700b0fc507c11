"""Each question kind answered with the keyboard alone, in both languages, axe-clean."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from quizzes.models import Attempt, ReviewAnswer, ReviewCard
from tests import factories

from . import support

LABELS = {
    "en": {
        "box": "Box 2.{}",
        "true": "True",
        "number": "Your answer (a number)",
        "partly": "Partly correct: 0.5 of 1.",
        "bad_number": "Type a number with digits only",
        "typed": "16",
        "score": "3.5 / 4",
    },
    "ar": {
        "box": "المربع 2.{}",
        "true": "صواب",
        "number": "إجابتك (عدد)",
        "partly": "إجابة صحيحة جزئيًّا: 0.5 من 1.",
        "bad_number": "اكتب العدد بالأرقام وحدها",
        "typed": "١٦",
        "score": "3.5 من 4",
    },
}


def _tab_to(page: Page, locator, limit: int = 40) -> None:
    for _ in range(limit):
        if locator.evaluate("el => el === document.activeElement"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {locator}")


def _press(page: Page, control) -> None:
    """Reach `control` with Tab and press it with Enter."""
    _tab_to(page, control)
    page.keyboard.press("Enter")


def _tick(page: Page, box) -> None:
    """Reach a checkbox with Tab and tick it with Space."""
    _tab_to(page, box)
    page.keyboard.press("Space")
    expect(box).to_be_checked()


def _next(page: Page) -> None:
    _press(page, support.next_control(page))


@pytest.fixture
def mixed(live_server, transactional_db):
    return factories.make_mixed_quiz()


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_learner_answers_every_kind_with_the_keyboard_only(
    page: Page, signed_in, mixed, axe_source, screenshots_dir, console_errors, lang
):
    words = LABELS[lang]
    page.goto(f"/{lang}/quizzes/{mixed.slug}/")
    support.mark_document(page)
    _press(page, page.locator(".quiz-actions button[type=submit]"))

    # 1. One answer: radio buttons; Space picks the first, which is the right one here.
    expect(page.locator("#question-heading")).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    page.keyboard.press("Enter")
    expect(page.locator("#quiz-area .feedback")).to_have_class(re.compile("feedback--right"))
    _next(page)

    # 2. Several answers: checkboxes, each ticked with Space; only one of the two right ones.
    expect(page.locator("#quiz-area form.question")).to_be_visible()
    boxes = page.get_by_role("checkbox")
    expect(boxes).to_have_count(4)
    support.assert_accessible(page, axe_source, f"several answers ({lang})")
    support.screenshot(page, screenshots_dir, f"kinds-multiple-{lang}")
    _tick(page, page.get_by_role("checkbox", name=words["box"].format(1)))
    _press(page, support.submit_button(page))
    expect(page.locator("#quiz-area .feedback")).to_have_class(re.compile("feedback--partly"))
    expect(page.locator("#quiz-area .feedback")).to_contain_text(words["partly"])
    # Every choice gets its verdict: both right boxes are shown as right.
    expect(page.locator("#quiz-area .choice--correct")).to_have_count(2)
    support.assert_accessible(page, axe_source, f"partial feedback ({lang})")
    support.screenshot(page, screenshots_dir, f"kinds-multiple-feedback-{lang}")
    _next(page)

    # 3. True or false: two radio buttons named in the page's language.
    expect(page.get_by_role("radio")).to_have_count(2)
    true = page.get_by_role("radio", name=words["true"])
    # Focus moves to the new question once it is swapped in; Tab from anywhere else (a busy
    # machine) would go elsewhere.
    expect(page.locator("#question-heading")).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    expect(true).to_be_checked()
    page.keyboard.press("Enter")
    expect(page.locator("#quiz-area .feedback")).to_have_class(re.compile("feedback--right"))
    _next(page)

    # 4. A number: a text box; words are refused with a message, digits of either script read.
    number = page.get_by_role("textbox", name=words["number"])
    expect(number).to_have_attribute("inputmode", "decimal")
    support.assert_accessible(page, axe_source, f"a number to type ({lang})")
    _tab_to(page, number)
    page.keyboard.type("sixteen")
    page.keyboard.press("Enter")
    expect(page.locator("#quiz-area")).to_contain_text(words["bad_number"])
    number = page.get_by_role("textbox", name=words["number"])
    expect(number).to_have_attribute("aria-invalid", "true")
    support.assert_accessible(page, axe_source, f"a number refused ({lang})")
    support.screenshot(page, screenshots_dir, f"kinds-number-refused-{lang}")
    _tab_to(page, number)
    page.keyboard.press("Control+A")
    page.keyboard.type(words["typed"])
    page.keyboard.press("Enter")
    expect(page.locator("#quiz-area .feedback")).to_have_class(re.compile("feedback--right"))
    _next(page)

    expect(page.locator(".score-summary__big")).to_have_text(words["score"])
    support.assert_accessible(page, axe_source, f"the result of mixed kinds ({lang})")
    support.screenshot(page, screenshots_dir, f"kinds-result-{lang}")
    attempt = Attempt.objects.get(user=signed_in, quiz=mixed)
    assert attempt.score == Decimal("3.5") and attempt.is_finished
    assert [a.fraction for a in attempt.answers.order_by("question__position")] == [
        1,
        Decimal("0.5"),
        1,
        1,
    ]

    # Half the mark counts as missed for the schedule: that question comes back for review,
    # asked as the quiz asked it, and marked alike.
    assert list(ReviewCard.objects.values_list("question__position", flat=True)) == [2]
    ReviewCard.objects.update(due=timezone.now())
    page.goto(f"/{lang}/review/")
    expect(page.get_by_role("checkbox")).to_have_count(4)
    support.assert_accessible(page, axe_source, f"several answers in review ({lang})")
    for position in (1, 2):
        _tick(page, page.get_by_role("checkbox", name=words["box"].format(position)))
    _press(page, support.submit_button(page))
    expect(page.locator("#quiz-area .feedback")).to_have_class(re.compile("feedback--right"))
    assert ReviewAnswer.objects.get(user=signed_in).fraction == 1

    # The browser logs the refused number's 422 itself; nothing else may go wrong.
    assert [e for e in console_errors if "status of 422" not in e] == []
