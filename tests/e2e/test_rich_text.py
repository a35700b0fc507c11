"""A step with code and math, in both languages and both colour schemes: axe-clean, no CSP
violation, code and math left to right inside Arabic, wide code scrollable by keyboard."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from quizzes.content import content_changed
from tests.factories import make_quiz

from . import support
from .test_csp import _RECORD_VIOLATIONS, _violations

WIDE = "total_bytes = " + " + ".join(
    f"shard_{n}.numel() * shard_{n}.element_size()" for n in range(8)
)

PROMPT = {
    "en": "Which call keeps $O(\\sqrt{N})$ activations?\n\n```python\n{wide}\n```\n\n"
    "Assume **no** offloading.",
    "ar": "أيّ استدعاء يُبقي $O(\\sqrt{N})$ من التنشيطات؟\n\n```python\n{wide}\n```\n\n"
    "افترض أنه **لا** تفريغ.",
}
EXPLANATION = {
    "en": (
        "`checkpoint(block, x, use_reentrant=False)` replays the block.\n\n"
        "$$\n\\frac{p-1}{m+p-1}\n$$\n\n| Stage | Bytes |\n|:--|--:|\n| 3 | $16\\Psi/N$ |"
    ),
    "ar": (
        "يعيد `checkpoint(block, x, use_reentrant=False)` تنفيذ الكتلة.\n\n"
        "$$\n\\frac{p-1}{m+p-1}\n$$\n\n| المرحلة | البايتات |\n|:--|--:|\n| 3 | $16\\Psi/N$ |"
    ),
}


@pytest.fixture
def rich_quiz(transactional_db):
    quiz = make_quiz(questions=1, description_en="Covers `torch.utils.checkpoint`.")
    question = quiz.questions.get()
    for lang in ("en", "ar"):
        setattr(question, f"prompt_{lang}", PROMPT[lang].replace("{wide}", WIDE))
        setattr(question, f"explanation_{lang}", EXPLANATION[lang])
    question.save()
    right = question.choices.get(is_correct=True)
    right.text_en = "`use_reentrant=False` with $\\sqrt{N}$ segments"
    right.text_ar = "`use_reentrant=False` مع $\\sqrt{N}$ من المقاطع"
    right.feedback_en = "Yes: **one** replay per segment."
    right.feedback_ar = "نعم: إعادة **واحدة** لكل مقطع."
    right.save()
    content_changed(quiz=quiz)
    return quiz


def _described_by(page: Page, selector: str) -> list[str]:
    return (page.locator(selector).get_attribute("aria-describedby") or "").split()


def _direction(page: Page, selector: str) -> str:
    return page.locator(selector).first.evaluate("e => getComputedStyle(e).direction")


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_step_with_code_and_math_is_accessible_and_within_the_policy(
    page: Page,
    console_errors,
    signed_in,
    learner,
    rich_quiz,
    axe_source,
    screenshots_dir,
    lang,
    scheme,
):
    page.add_init_script(_RECORD_VIOLATIONS)
    page.emulate_media(color_scheme=scheme)

    attempt = support.answer_in_db(learner, rich_quiz, 0)
    page.goto(f"/{lang}/attempts/{attempt.pk}/questions/1/")

    # The first paragraph (with its math) heads the question; the code is its body, as text.
    prompt = page.locator("#question-heading")
    expect(prompt.locator("math").first).to_be_visible()
    expect(prompt.locator("annotation")).to_be_hidden()  # the TeX is for assistive tech
    expect(prompt.locator("pre.code")).to_have_count(0)
    heading_size = prompt.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    code = page.locator("#question-body pre.code")
    assert code.evaluate("e => parseFloat(getComputedStyle(e).fontSize)") < heading_size
    assert code.evaluate("e => getComputedStyle(e).fontWeight") == "400"
    # Text after the code reads as text, not as the heading.
    after = page.locator("#question-body > p")
    expect(after).to_have_count(1)
    assert after.evaluate("e => parseFloat(getComputedStyle(e).fontSize)") < heading_size
    assert after.evaluate("e => getComputedStyle(e).fontWeight") == "400"
    assert _described_by(page, "fieldset.question__fieldset") == ["question-body", "progress-label"]
    assert _described_by(page, "#question-heading") == ["question-body"]
    for variant, viewport in (("desktop", support.DESKTOP), ("phone", support.PHONE)):
        page.set_viewport_size(viewport)
        support.screenshot(page, screenshots_dir, f"rich-text-question-{lang}-{scheme}-{variant}")
    page.set_viewport_size(support.DESKTOP)
    expect(code).to_be_visible()
    # Wide code scrolls inside its box, which the keyboard can reach and scroll.
    assert code.evaluate("e => e.scrollWidth > e.clientWidth")
    code.focus()
    assert code.evaluate("e => document.activeElement === e")
    page.keyboard.press("ArrowRight" if lang == "en" else "ArrowLeft")
    assert _direction(page, "#question-body pre.code") == "ltr"
    assert _direction(page, "#question-heading .math") == "ltr"
    assert _direction(page, "html") == ("rtl" if lang == "ar" else "ltr")
    support.assert_accessible(page, axe_source, f"a question with code and math ({lang})")

    page.locator("label.choice").filter(has=page.locator("code")).click()
    support.submit_button(page).click()
    explanation = page.locator(".explanation")
    expect(explanation.locator("table")).to_be_visible()
    expect(explanation.locator(".math-display math")).to_be_visible()
    expect(page.locator(".choice-feedback strong")).to_be_visible()
    assert _direction(page, ".explanation p code") == "ltr"
    if lang == "ar":
        assert _direction(page, ".explanation p") == "rtl"
    support.assert_accessible(page, axe_source, f"feedback with code and math ({lang})")
    support.screenshot(page, screenshots_dir, f"rich-text-feedback-{lang}-{scheme}")

    assert _violations(page) == []
    assert console_errors == []
