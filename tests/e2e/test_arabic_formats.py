"""Dates and numbers in Arabic pages, as Chromium draws them: day first, the decimal point,
and every signed number and percentage in its own order («−1.00» and «50%», never «1.00-»
or «%50»). Glyph order is read from each character's box, as in test_direction.py."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import Permission
from playwright.sync_api import Page, expect

from tests import factories

from . import support
from .test_direction import _CHARACTER_BOXES, _show_unisolated

REPORT_PERMISSIONS = ["view_quiz", "view_question", "view_choice", "view_attempt", "view_answer"]
# 17:34 UTC on 1 December 2026: the pages show it in UTC.
WHEN = dt.datetime(2026, 12, 1, 17, 34, tzinfo=dt.UTC)


# Only text that is drawn: a <meter>'s fallback and an SVG <title> have no boxes.
_DRAWN_BOXES = _CHARACTER_BOXES.replace(
    "const box = range.getClientRects()[0];",
    "const box = range.getClientRects()[0];\n        if (!box) { boxes.length = 0; break; }",
).replace("found.push(boxes);", "if (boxes.length) found.push(boxes);")


def drawn_left_to_right(page: Page, root: str, token: str) -> list[bool]:
    """For each drawn occurrence of `token` under `root`: is it drawn left to right?"""
    results = []
    for boxes in page.evaluate(_DRAWN_BOXES, [root, token]):
        pairs = [(a, b) for a, b in zip(boxes, boxes[1:], strict=False) if a["top"] == b["top"]]
        assert pairs, f"{token!r} has no two characters on one line"
        results.append(all(a["x"] < b["x"] for a, b in pairs))
    return results


@pytest.fixture
def two_attempts(seeded, time_machine):
    """Amina misses questions 2 and 5 (75%), Bilal question 1 (87.5%): with two learners
    question 1's discrimination is −1 (the one who missed it did better on the rest)."""
    time_machine.move_to(WHEN, tick=False)
    quiz = seeded["activation-recomputation"]
    amina = factories.make_user("Amina")
    attempts = {
        "Amina": support.answer_in_db(amina, quiz, 8, wrong=frozenset({2, 5})),
        "Bilal": support.answer_in_db(factories.make_user("Bilal"), quiz, 8, wrong=frozenset({1})),
    }
    time_machine.move_to(WHEN + dt.timedelta(hours=2), tick=True)
    return quiz, amina, attempts


def test_the_method_tells_isolated_numbers_from_bare_ones(page: Page, live_server):
    page.goto("/ar/")
    _show_unisolated(page, "معامل التمييز -1.00 ونحو 50% من الإجابات")
    assert drawn_left_to_right(page, "#unisolated", "-1.00") == [False]
    assert drawn_left_to_right(page, "#unisolated", "50%") == [False]


def test_grades_and_item_analysis_show_day_first_dates_and_signed_numbers_in_order_in_arabic(
    page: Page, context, live_server, two_attempts, screenshots_dir
):
    quiz, _amina, _attempts = two_attempts
    instructor = factories.make_user("Ustadha", is_staff=True)
    instructor.user_permissions.add(*Permission.objects.filter(codename__in=REPORT_PERMISSIONS))
    support.sign_in(context, live_server.url, instructor)

    page.goto(f"/ar/admin/quizzes/quiz/{quiz.pk}/results/")
    table = "#grades tbody"
    started = page.locator("#grades tbody tr").first.locator("time").first
    # The site's own date format, as the learner's pages write it (issue 52, point 15).
    expect(started).to_have_text("1 ديسمبر 2026، 5:34 م")
    assert drawn_left_to_right(page, table, "5:34") == [True] * 4  # started, finished
    assert drawn_left_to_right(page, table, "75%") == [True]
    assert drawn_left_to_right(page, table, "88%") == [True]
    # The mean, in the histogram's caption and the table's foot: (75 + 87.5) / 2.
    means = drawn_left_to_right(page, "#content-main", "81%")
    assert len(means) >= 2 and all(means)
    support.screenshot(page, screenshots_dir, "formats-grades-ar")

    page.goto(f"/ar/admin/quizzes/quiz/{quiz.pk}/item-analysis/")
    analysis = "#content-main"
    text = page.locator(analysis).text_content()
    assert "-1.00" in text
    assert "1,00" not in text and "0,3" not in text
    assert drawn_left_to_right(page, analysis, "-1.00") == [True]
    # Each choice's share: 50% where the two learners parted.
    shares = drawn_left_to_right(page, analysis, "50%")
    assert shares and all(shares)
    support.screenshot(page, screenshots_dir, "formats-item-analysis-ar")


def test_learner_pages_show_day_first_dates_and_percentages_in_order_in_arabic(
    page: Page, context, live_server, two_attempts, screenshots_dir, time_machine
):
    _quiz, amina, attempts = two_attempts
    support.sign_in(context, live_server.url, amina)

    page.goto(f"/ar/attempts/{attempts['Amina'].pk}/result/")
    summary = ".score-summary"
    expect(page.locator(summary)).to_contain_text("1 ديسمبر 2026، 5:34 م")
    assert drawn_left_to_right(page, summary, "75%") == [True]
    assert drawn_left_to_right(page, summary, "5:34") == [True]
    support.screenshot(page, screenshots_dir, "formats-result-ar")

    page.goto("/ar/attempts/")
    main = "main"
    expect(page.locator(main)).to_contain_text("1 ديسمبر 2026، 5:34 م")
    percentages = drawn_left_to_right(page, main, "75%")
    assert percentages and all(percentages)
    labels = page.locator("text.chart__label")
    if labels.count():
        # SVG labels are isolated by CSS: "100%" has its digits left of its sign.
        boxes = page.evaluate(
            """() => [...document.querySelectorAll('text.chart__label')].map((t) => {
                 const n = t.getNumberOfChars();
                 return [t.getStartPositionOfChar(0).x, t.getStartPositionOfChar(n - 1).x];
               })"""
        )
        assert all(first < last for first, last in boxes)
    support.screenshot(page, screenshots_dir, "formats-history-ar")

    # The two missed questions come back the same day (learning steps of minutes, not days):
    # both are due already, counted in Arabic's dual.
    page.goto("/ar/review/")
    expect(page.locator("main")).to_contain_text("سؤالان مستحقان الآن")
    support.screenshot(page, screenshots_dir, "formats-review-ar")

    # Two days on both are due: the badge shows 2, its hidden label reads after its number.
    time_machine.move_to(WHEN + dt.timedelta(days=2), tick=True)
    page.goto("/ar/review/")
    expect(page.locator("nav .count-badge")).to_have_text("2")
    expect(page.locator("nav .count-badge + .visually-hidden")).to_have_text("سؤالان للمراجعة")
    support.screenshot(page, screenshots_dir, "formats-review-due-ar")
