"""Short-answer, matching and ordering questions taken end to end in Chromium: with the
keyboard only and with JavaScript (ordering's Move up / Move down), and without JavaScript
(the selects alone), in both languages, axe-clean."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from quizzes.models import Attempt
from tests import factories

from . import support

WORDS = {
    "en": {
        "answer": "Your answer",
        "typed": "Optimizer States",
        "prompts": ["ZeRO-1", "ZeRO-2", "ZeRO-3"],
        "matches": ["optimizer states", "gradients", "parameters"],
        "order": ["forward", "backward", "all-reduce", "optimizer step"],
        "up": "Move up",
        "score": "3 / 3",
    },
    "ar": {
        "answer": "إجابتك",
        "typed": "حالات المحسن",  # without the shadda the accepted answer has
        "prompts": ["مرحلة ZeRO-1", "مرحلة ZeRO-2", "مرحلة ZeRO-3"],
        "matches": ["حالات المحسّن", "التدرّجات", "المعاملات"],
        "order": ["التمرير الأمامي", "التمرير الخلفي", "الاختزال الشامل", "خطوة المحسّن"],
        "up": "تحريك لأعلى",
        "score": "3 من 3",
    },
}


@pytest.fixture
def typed(live_server, transactional_db):
    return factories.make_typed_quiz()


def _tab_to(page: Page, locator, limit: int = 60) -> None:
    for _ in range(limit):
        if locator.evaluate("el => el === document.activeElement"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {locator}")


def _press(page: Page, control) -> None:
    _tab_to(page, control)
    page.keyboard.press("Enter")


def _choose_by_keyboard(page: Page, select, label: str) -> None:
    """Pick `label` in a select with the keyboard: focus it, then type the option's start
    (Chromium's select follows typed letters), as keyboard users do."""
    _tab_to(page, select)
    options = select.locator("option").all_inner_texts()
    target = options.index(label)
    current = select.evaluate("el => el.selectedIndex")
    key = "ArrowDown" if target > current else "ArrowUp"
    for _ in range(abs(target - current)):
        page.keyboard.press(key)
    expect(select).to_have_value(select.locator("option").nth(target).get_attribute("value"))


def _items(page: Page) -> list[str]:
    return [t.strip() for t in page.locator(".order-item__text").all_inner_texts()]


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_each_new_kind_is_answered_with_the_keyboard_only(
    page: Page, signed_in, typed, axe_source, screenshots_dir, console_errors, lang
):
    words = WORDS[lang]
    page.goto(f"/{lang}/quizzes/{typed.slug}/")
    _press(page, page.locator(".quiz-actions button[type=submit]"))

    # 1. Short answer: typed as the learner types it (no shadda, another case).
    box = page.get_by_role("textbox", name=words["answer"])
    support.assert_accessible(page, axe_source, f"a short answer ({lang})")
    support.screenshot(page, screenshots_dir, f"kinds-short-{lang}")
    _tab_to(page, box)
    page.keyboard.type(words["typed"])
    page.keyboard.press("Enter")
    expect(page.locator("#quiz-area .feedback")).to_have_class(re.compile("feedback--right"))
    _press(page, support.next_control(page))

    # 2. Matching: a select per prompt, each chosen with the arrow keys.
    expect(page.locator("#quiz-area select")).to_have_count(3)
    support.assert_accessible(page, axe_source, f"matching ({lang})")
    support.screenshot(page, screenshots_dir, f"kinds-matching-{lang}")
    for prompt, match in zip(words["prompts"], words["matches"], strict=True):
        _choose_by_keyboard(page, page.get_by_role("combobox", name=prompt), match)
    _press(page, support.submit_button(page))
    expect(page.locator("#quiz-area .feedback")).to_have_class(re.compile("feedback--right"))
    support.assert_accessible(page, axe_source, f"matching's feedback ({lang})")
    _press(page, support.next_control(page))

    # 3. Ordering: Move up, pressed with the keyboard, until the items are in order.
    expect(page.locator(".order-item")).to_have_count(4)
    support.assert_accessible(page, axe_source, f"ordering ({lang})")
    support.screenshot(page, screenshots_dir, f"kinds-ordering-{lang}")
    for place, text in enumerate(words["order"]):
        while _items(page).index(text) > place:
            item = page.locator(".order-item", has_text=text)
            button = item.get_by_role("button", name=f"{words['up']}: {text}")
            _press(page, button)
            expect(button).to_be_focused()
    assert _items(page) == words["order"]
    selects = page.locator(".order-item__position")
    assert [selects.nth(n).input_value() for n in range(4)] == ["1", "2", "3", "4"]
    _press(page, support.submit_button(page))
    expect(page.locator("#quiz-area .feedback")).to_have_class(re.compile("feedback--right"))
    _press(page, support.next_control(page))

    expect(page.locator(".score-summary__big")).to_have_text(words["score"])
    support.assert_accessible(page, axe_source, f"the result of the new kinds ({lang})")
    attempt = Attempt.objects.get(user=signed_in, quiz=typed)
    assert attempt.is_finished and attempt.score == 3
    assert console_errors == []


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_each_new_kind_works_without_javascript(
    browser, live_server, transactional_db, typed, lang
):
    words = WORDS[lang]
    learner = factories.make_user()
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    support.sign_in(context, live_server.url, learner)
    page = context.new_page()
    page.goto(f"/{lang}/quizzes/{typed.slug}/")
    page.locator(".quiz-actions button[type=submit]").click()

    page.get_by_role("textbox", name=words["answer"]).fill(words["typed"])
    support.submit_button(page).click()
    expect(page.locator(".feedback")).to_have_class(re.compile("feedback--right"))
    support.next_control(page).click()

    # Matching: one right, two wrong (each picks the first match listed that is not its own).
    for prompt, match in zip(words["prompts"], words["matches"], strict=True):
        page.get_by_role("combobox", name=prompt).select_option(label=match)
    support.submit_button(page).click()
    expect(page.locator(".feedback")).to_have_class(re.compile("feedback--right"))
    support.next_control(page).click()

    # Ordering without its buttons: no Move up, positions chosen in the selects; a
    # position given twice is refused with the form's error, nothing recorded.
    expect(page.get_by_role("button", name=re.compile(words["up"]))).to_have_count(0)
    shown = _items(page)
    selects = page.locator(".order-item__position")
    for n in range(4):
        selects.nth(n).select_option("1")
    support.submit_button(page).click()
    # (axe runs in the page's JavaScript: the keyboard test checks these pages with it.)
    expect(page.locator(".field__error")).to_be_visible()
    expect(page.locator(".order-item__position").first).to_have_attribute("aria-invalid", "true")
    for n, text in enumerate(shown):
        page.locator(".order-item__position").nth(n).select_option(
            str(words["order"].index(text) + 1)
        )
    support.submit_button(page).click()
    expect(page.locator(".feedback")).to_have_class(re.compile("feedback--right"))
    support.next_control(page).click()
    expect(page.locator(".score-summary__big")).to_have_text(words["score"])
    context.close()


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_ordering_steps_end_moves_are_disabled_and_a_move_says_its_place_of_all(
    page: Page, signed_in, typed, console_errors, lang
):
    attempt = support.answer_in_db(signed_in, typed, 2)
    page.goto(support.step_url(attempt, 3, lang))
    expect(page.locator(".order-item")).to_have_count(4)
    ups = page.locator(".order-item__move[data-move=up]")
    downs = page.locator(".order-item__move[data-move=down]")

    def disabled(buttons) -> list[str]:
        return [buttons.nth(n).get_attribute("aria-disabled") for n in range(4)]

    assert disabled(ups) == ["true", "false", "false", "false"]
    assert disabled(downs) == ["false", "false", "false", "true"]

    second = _items(page)[1]
    ups.nth(1).click()  # the second item goes first
    of = {"en": "1 of 4", "ar": "1 من 4"}[lang]
    expect(page.locator("#announcer")).to_have_text(f"{second}: {of}")
    assert _items(page)[0] == second
    # Its Move up is now the disabled one; pressed, it moves nothing and says the place again.
    assert disabled(ups) == ["true", "false", "false", "false"]
    ups.nth(0).focus()  # still in the focus order, as a keyboard user reaches it
    page.keyboard.press("Enter")
    expect(ups.nth(0)).to_be_focused()
    assert _items(page)[0] == second
    expect(page.locator("#announcer")).to_have_text(f"{second}: {of}")
    assert console_errors == []
