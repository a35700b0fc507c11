"""On a 360 px phone, an exam step's three buttons keep a tidy layout in both languages: the
primary action a whole row, the other two sharing a row evenly (or each a whole row when the
primary one comes between them)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from quizzes.models import Quiz

from . import support

NARROW_PHONE = {"width": 360, "height": 780}


def _boxes(page: Page) -> dict:
    return page.locator("#quiz-area form.question .step__actions").evaluate(
        """row => ({
          row: row.getBoundingClientRect().toJSON(),
          buttons: [...row.querySelectorAll(".button")].map(b => ({
            primary: b.classList.contains("button--primary"),
            box: b.getBoundingClientRect().toJSON(),
          })),
        })"""
    )


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_exam_buttons_on_a_narrow_phone_are_one_full_row_and_one_shared_row(
    page: Page, signed_in, quiz, screenshots_dir, lang
):
    Quiz.objects.filter(pk=quiz.pk).update(feedback=Quiz.Feedback.DEFERRED)
    quiz.refresh_from_db()
    key = support.answer_key(quiz, lang)
    attempt = support.answer_in_db(signed_in, quiz, 0)
    page.set_viewport_size(NARROW_PHONE)

    # Unanswered: "Save answer" is the primary action, first and alone on its row.
    page.goto(support.step_url(attempt, 2, lang))
    shape = _boxes(page)
    save, following, finish = shape["buttons"]
    assert save["primary"] and not following["primary"] and not finish["primary"]
    assert _same(save["box"]["width"], shape["row"]["width"])
    assert _same(following["box"]["top"], finish["box"]["top"])
    assert following["box"]["top"] >= save["box"]["bottom"]
    assert _same(following["box"]["width"], finish["box"]["width"])
    assert _same(following["box"]["height"], finish["box"]["height"])
    assert following["box"]["width"] * 2 < shape["row"]["width"]
    # In reading order: "Next question" at the start of the line (the right in Arabic).
    if lang == "ar":
        assert following["box"]["left"] > finish["box"]["left"]
    else:
        assert following["box"]["left"] < finish["box"]["left"]
    support.screenshot(page, screenshots_dir, f"exam-controls-360-{lang}")

    # Saved: "Next question" becomes the primary action; each button then has a whole row.
    page.get_by_role("radio", name=key[1].right).check()
    page.locator("#quiz-area form.question button[type=submit]").click()
    expect(page.locator("#quiz-area .message--success")).to_be_visible()
    shape = _boxes(page)
    assert [button["primary"] for button in shape["buttons"]] == [False, True, False]
    tops = [button["box"]["top"] for button in shape["buttons"]]
    assert tops == sorted(tops) and len(set(tops)) == 3
    for button in shape["buttons"]:
        assert _same(button["box"]["width"], shape["row"]["width"])
    support.screenshot(page, screenshots_dir, f"exam-controls-360-saved-{lang}")
