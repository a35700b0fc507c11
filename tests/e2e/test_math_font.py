"""Math draws: `\\sqrt{2}` with a radical, a fraction with its bar, a sum with a big sigma, in
the shipped Noto Sans Math (static/css/math.css), which only pages with math download.

Without a font that has an OpenType MATH table Chromium lays `\\sqrt{2}` out as a bare «2»: the
square root's box is then no wider and no taller than the 2's."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from quizzes.content import content_changed
from tests.factories import make_quiz

from . import support

PROMPT = "Which is $\\sqrt{2}$ beside $2$, $\\frac{a}{b}$ beside $a$?\n\n$$\n\\sum_{i=1}^{n} i\n$$"

_BOX = "e => { const r = e.getBoundingClientRect(); return {w: r.width, h: r.height}; }"


@pytest.fixture
def math_quiz(transactional_db):
    quiz = make_quiz(questions=1)
    question = quiz.questions.get()
    question.prompt_en = question.prompt_ar = PROMPT
    question.save()
    content_changed(quiz=quiz)
    return quiz


def _font_requests(page: Page) -> list[str]:
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if "noto-sans-math" in r.url else None)
    return requests


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_roots_fractions_and_sums_draw_with_their_radicals_bars_and_sigma(
    page: Page, signed_in, learner, math_quiz, screenshots_dir, lang
):
    fonts = _font_requests(page)
    attempt = support.answer_in_db(learner, math_quiz, 0)
    page.goto(f"/{lang}/attempts/{attempt.pk}/questions/1/")
    prompt = page.locator("#question-heading")
    expect(prompt.locator("msqrt")).to_be_visible()
    page.evaluate("document.fonts.ready")
    root = prompt.locator("msqrt").evaluate(_BOX)
    two = prompt.locator("math").nth(1).locator("mn").evaluate(_BOX)
    # The radical sign stands before the 2 and its bar above it.
    assert root["w"] > two["w"] + 5 and root["h"] > two["h"]

    fraction = prompt.locator("mfrac").evaluate(_BOX)
    letter = prompt.locator("math").nth(3).locator("mi").evaluate(_BOX)
    # Numerator over denominator, a bar between: more than two letters high.
    assert fraction["h"] > 2 * letter["h"]

    sigma = page.locator("math[display=block] mo").first.evaluate(_BOX)
    index = page.locator("math[display=block] munderover > mrow mi").first.evaluate(_BOX)
    assert sigma["h"] > 1.3 * index["h"]  # a display-size operator
    assert page.evaluate("document.fonts.check('16px \"Noto Sans Math\"')")
    assert any(url.endswith(".woff2") for url in fonts)
    assert (
        prompt.locator("math")
        .first.evaluate("e => getComputedStyle(e).fontFamily")
        .startswith('"Noto Sans Math"')
    )

    support.screenshot(page, screenshots_dir, f"math-{lang}")


def test_a_page_without_math_does_not_download_the_math_font(page: Page, live_server):
    fonts = _font_requests(page)
    page.goto("/ar/")
    page.evaluate("document.fonts.ready")
    assert fonts == []
