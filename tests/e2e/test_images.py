"""An instructor adds an image to a question in the admin, as the README tells them; a
learner sees it on the question's step in English and Arabic, loaded, sized for the screen,
under the strict CSP, and axe finds nothing on the pages that show it."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from playwright.sync_api import BrowserContext, Page, expect

from quizzes.models import Question
from tests import factories

from . import support
from .test_csp import _RECORD_VIOLATIONS, _violations

ALT_EN = "A wide blue banner with a white stripe."
ALT_AR = "شريط أزرق عريض تتوسطه خطوط بيضاء."


def _wide_png() -> bytes:
    # Wider than a phone's screen (and a desktop's column): the page must shrink it.
    image = Image.new("RGB", (1200, 300), (20, 60, 160))
    for x in range(1200):
        for y in range(140, 160):
            image.putpixel((x, y), (255, 255, 255))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _expect_loaded_image(page: Page, alt: str) -> None:
    image = page.locator("img.content-image--question")
    expect(image).to_have_attribute("alt", alt)
    expect(image).to_have_attribute("loading", "lazy")
    expect(image).to_have_attribute("width", "1200")
    expect(image).to_have_attribute("height", "300")
    image.scroll_into_view_if_needed()
    page.wait_for_function(
        "() => { const i = document.querySelector('img.content-image--question');"
        " return i.complete && i.naturalWidth === 1200; }"
    )
    box = image.bounding_box()
    viewport = page.viewport_size
    assert box is not None and viewport is not None
    assert box["width"] <= viewport["width"]
    # In proportion: four times as wide as high, whatever width the column gives it.
    assert abs(box["width"] / box["height"] - 4) < 0.05
    # Never mirrored on a right-to-left page.
    assert image.evaluate("i => getComputedStyle(i).transform") == "none"


@pytest.fixture
def serving_media(settings):
    # The live server stands for `make run`: Django serves the media folder.
    settings.SERVE_MEDIA = True


def test_an_image_added_in_the_admin_shows_on_the_learners_step_in_both_languages(
    page: Page,
    context: BrowserContext,
    live_server,
    transactional_db,
    serving_media,
    console_errors,
    axe_source,
):
    quiz = factories.make_quiz(questions=1)
    question = quiz.questions.get()
    admin = factories.make_user("admin", is_staff=True, is_superuser=True)
    support.sign_in(context, live_server.url, admin)
    page.goto(f"/en/admin/quizzes/question/{question.pk}/change/")
    page.set_input_files(
        "#id_image", files=[{"name": "banner.png", "mimeType": "image/png", "buffer": _wide_png()}]
    )
    page.fill("#id_image_alt_en", ALT_EN)
    page.fill("#id_image_alt_ar", ALT_AR)
    page.set_input_files(
        "#id_explanation_image",
        files=[{"name": "why.png", "mimeType": "image/png", "buffer": _wide_png()}],
    )
    page.fill("#id_explanation_image_alt_en", "The banner again, explained.")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".messagelist .success")).to_contain_text("was changed successfully")
    question = Question.objects.get(pk=question.pk)
    assert (question.image_width, question.image_height) == (1200, 300)
    page.goto(f"/en/admin/quizzes/quiz/{quiz.pk}/preview/1/")
    _expect_loaded_image(page, ALT_EN)
    support.assert_accessible(page, axe_source, "the quiz's preview with an image")
    previews: list[str] = []
    page.on(
        "request",
        lambda request: (
            previews.append(request.headers.get("content-type", ""))
            if "/question/preview/" in request.url
            else None
        ),
    )
    page.goto(f"/en/admin/quizzes/question/{question.pk}/change/")
    # The live preview shows the stored image, and posts the texts without the files.
    expect(page.locator("#rich-preview img.rich-preview__image").first).to_have_attribute(
        "alt", ALT_EN
    )
    assert previews and all(t.startswith("application/x-www-form-urlencoded") for t in previews)
    support.assert_accessible(page, axe_source, "the question's admin page with an image")

    context.clear_cookies()
    support.sign_in(context, live_server.url, factories.make_user("Amina"))
    page.add_init_script(_RECORD_VIOLATIONS)
    page.goto(f"/en/quizzes/{quiz.slug}/")
    page.get_by_role("button", name="Start quiz").click()
    _expect_loaded_image(page, ALT_EN)
    support.assert_accessible(page, axe_source, "a step with an image (en)")
    attempt = quiz.attempts.get()

    page.set_viewport_size(support.PHONE)
    page.goto(support.step_url(attempt, 1, "ar"))
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    _expect_loaded_image(page, ALT_AR)
    support.assert_accessible(page, axe_source, "a step with an image (ar, phone)")

    page.locator("input[name=choice]").first.check()
    support.submit_button(page).click()
    explanation = page.locator("img.content-image--explanation")
    # No Arabic alt text given: the English one stands in.
    expect(explanation).to_have_attribute("alt", "The banner again, explained.")
    _expect_loaded_image(page, ALT_AR)
    support.assert_accessible(page, axe_source, "the feedback with images (ar, phone)")

    assert _violations(page) == []
    assert console_errors == []
