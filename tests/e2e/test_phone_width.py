"""Pages fit a 390-pixel phone in both languages: every page type is measured so in its one
visit (tests/e2e/test_pages.py); here, the admin's page that shows a quiz as learners see it,
and the charts' labels whole at that width. Statistics and history are photographed at
that width in both languages; the admin's quiz list at 1280 pixels, where all its columns fit.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests import factories

from . import support
from .page_types import PAGE_TYPES, Scene
from .support import DESKTOP, PHONE

# What sticks out, named, when a page is too wide: every element past the viewport's edge.
_OVERFLOW = """() => {
  const root = document.documentElement;
  const width = root.clientWidth;
  const wide = [...document.querySelectorAll("body *")].filter((el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && (box.right > width + 1 || box.left < -1);
  }).slice(0, 8).map((el) => {
    const box = el.getBoundingClientRect();
    const name = `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}`;
    return `${name} [${Math.round(box.left)}, ${Math.round(box.right)}]`;
  });
  return {scroll: root.scrollWidth, client: width, wide};
}"""


def assert_fits(page: Page, where: str) -> None:
    shape = page.evaluate(_OVERFLOW)
    assert shape["scroll"] <= shape["client"], f"{where} runs off a phone ({page.url}): {shape}"


def assert_labels_whole(page: Page, where: str) -> None:
    """Every label of a chart lies inside its drawing: none cut at the edge ("Today" was
    drawn "oday")."""
    cut = page.evaluate(
        """() => [...document.querySelectorAll("svg.due-chart, svg.chart__svg")].flatMap((svg) => {
          const box = svg.getBoundingClientRect();
          return [...svg.querySelectorAll("text")].filter((text) => {
            const label = text.getBoundingClientRect();
            return label.left < box.left - 0.5 || label.right > box.right + 0.5;
          }).map((text) => text.textContent);
        })"""
    )
    assert cut == [], f"chart labels cut on {where}: {cut}"


def _admin_preview(scene: Scene) -> None:
    """The quiz as learners see it, from the admin ("Preview as a learner"), a step answered."""
    admin = factories.make_user("admin", is_staff=True, is_superuser=True)
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(scene.page.url))
    support.sign_in(scene.page.context, origin, admin)
    quiz = scene.quiz
    scene.go(f"/admin/quizzes/quiz/{quiz.pk}/preview/1/")
    scene.page.locator("#quiz-area label.choice").first.click()
    scene.page.locator("form.question button[type=submit]").click()
    expect(scene.page.locator(".feedback")).to_be_visible()


LEARNER_TOOLS = {"admin-preview": _admin_preview}


# The pages with charts (their labels), and the admin's learner-facing tool.
PHONE_PAGES = {
    **{name: PAGE_TYPES[name] for name in ("review-statistics", "history", "history-few")},
    **LEARNER_TOOLS,
}


@pytest.mark.parametrize("page_type", list(PHONE_PAGES))
@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_chart_pages_and_the_admin_preview_fit_a_phone_with_whole_labels(
    page: Page, request, seeded, live_server, screenshots_dir, lang, page_type
):
    page.set_viewport_size(PHONE)
    page.goto(live_server.url)  # a page of the site, for the cookies set below
    scene = Scene(page, lang, seeded, lambda: request.getfixturevalue("signed_in"))
    PHONE_PAGES[page_type](scene)
    page.set_viewport_size(PHONE)

    assert_fits(page, f"{page_type} ({lang})")
    assert_labels_whole(page, f"{page_type} ({lang})")
    if page_type in {"review-statistics", "history", "history-few"}:
        support.screenshot(page, screenshots_dir, f"phone-{page_type}-{lang}")


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_admins_quiz_list_shows_every_column_at_1280_pixels(
    page: Page, context: BrowserContext, live_server, seeded, screenshots_dir, lang
):
    support.sign_in(
        context, live_server.url, factories.make_user("admin", is_staff=True, is_superuser=True)
    )
    page.set_viewport_size(DESKTOP)
    page.goto(f"/{lang}/admin/quizzes/quiz/")

    results = page.locator("#changelist .results")
    expect(results).to_be_visible()
    width = results.evaluate("el => [el.scrollWidth, el.clientWidth]")
    columns = page.locator("#result_list thead th").evaluate_all(
        "els => els.map(e => [e.className, Math.round(e.getBoundingClientRect().width)])"
    )
    assert width[0] <= width[1], f"the list scrolls sideways: {width} {columns}"
    for header in page.locator("#result_list thead th").all():
        assert header.is_visible()
        box = header.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= DESKTOP["width"]
    # The Grades link, first, in view.
    first_row = page.locator("#result_list tbody tr").first
    expect(first_row.locator("td.action-checkbox + td.field-results_link")).to_contain_text(
        "Grades" if lang == "en" else "الدرجات"
    )
    support.screenshot(page, screenshots_dir, f"desktop-admin-quiz-list-{lang}")
