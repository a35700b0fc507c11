"""An instructor reads a seed quiz's grades after two learners took it, in both languages:
the marks match their answers, and every report page is axe-clean."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from playwright.sync_api import Page, expect

from tests import factories

from . import support

# What an instructor needs to read the reports (the Instructors group has it, among more;
# the group comes from a migration, which the browser tests' emptied database has lost).
REPORT_PERMISSIONS = ["view_quiz", "view_question", "view_choice", "view_attempt", "view_answer"]
WRONG = {"Amina": {2, 5}, "Bilal": {1}}


@pytest.fixture
def instructor_browser(context, live_server, transactional_db):
    instructor = factories.make_user("Ustadha", is_staff=True)
    instructor.user_permissions.add(*Permission.objects.filter(codename__in=REPORT_PERMISSIONS))
    support.sign_in(context, live_server.url, instructor)
    return instructor


def _check(page: Page, axe_source: str, screenshots_dir, name: str) -> None:
    support.assert_accessible(page, axe_source, name)
    support.screenshot(page, screenshots_dir, name)


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_instructor_reads_two_learners_marks_in_both_languages(
    page: Page, seeded, instructor_browser, axe_source, screenshots_dir, lang
):
    quiz = seeded["activation-recomputation"]
    for name, wrong in WRONG.items():
        support.answer_in_db(factories.make_user(name), quiz, 8, wrong=frozenset(wrong))

    response = page.goto(f"/{lang}/admin/quizzes/quiz/{quiz.pk}/results/")
    assert response is not None and response.status == 200
    assert page.evaluate("document.documentElement.dir") == ("rtl" if lang == "ar" else "ltr")
    rows = page.locator("#grades tbody tr")
    expect(rows).to_have_count(2)
    for name, wrong in WRONG.items():
        symbols = rows.filter(has_text=name).locator("td.mark span[aria-hidden=true]")
        expected = ["✗" if number in wrong else "✓" for number in range(1, 9)]
        assert symbols.all_text_contents() == expected
    chart = page.locator("svg.score-histogram__svg")
    expect(chart).to_have_attribute("role", "img")
    assert chart.locator("title").text_content().strip()
    # 6 of 8 (75 %) and 7 of 8 (87.5 %): one attempt in each of two bands, shown as numbers.
    assert chart.locator("text.chart-count").all_text_contents().count("1") == 2
    _check(page, axe_source, screenshots_dir, f"admin-grades-{lang}")

    rows.filter(has_text="Amina").get_by_role("link", name="Amina", exact=True).click()
    expect(page.locator("#learner-attempts tbody tr")).to_have_count(1)
    _check(page, axe_source, screenshots_dir, f"admin-learner-record-{lang}")

    page.locator("#learner-attempts tbody tr a").last.click()
    expect(page.locator(".review__item--wrong")).to_have_count(2)
    expect(page.locator(".review__item--right")).to_have_count(6)
    _check(page, axe_source, screenshots_dir, f"admin-attempt-review-{lang}")

    page.goto(f"/{lang}/admin/quizzes/quiz/{quiz.pk}/item-analysis/")
    expect(page.locator("svg.share-bar").first).to_be_visible()
    _check(page, axe_source, screenshots_dir, f"admin-item-analysis-{lang}")


# Per footer cell: its column (colspans counted), where its text starts and ends, how big it is
# drawn; the same for the first body row, to compare with.
_CELLS = """table => {
  const rows = [table.tBodies[0].rows[0], ...table.tFoot.rows];
  return rows.map(row => {
    let column = 0;
    return [...row.cells].map(cell => {
      // The visible text only: a mark's words for screen readers are drawn off-screen.
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      const boxes = [];
      while (walker.nextNode()) {
        const node = walker.currentNode;
        if (!node.textContent.trim() || node.parentElement.closest(".visually-hidden")) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        boxes.push(range.getBoundingClientRect());
      }
      const text = boxes.length ? {
        left: Math.min(...boxes.map(b => b.left)), right: Math.max(...boxes.map(b => b.right)),
        top: Math.min(...boxes.map(b => b.top)),
      } : {left: 0, right: 0, top: 0};
      const style = getComputedStyle(cell);
      const found = {
        column, mark: cell.classList.contains("mark"), empty: !cell.textContent.trim(),
        left: text.left, right: text.right, top: text.top, fontSize: style.fontSize,
        start: style.direction === "rtl" ? text.right : text.left,
      };
      column += cell.colSpan;
      return found;
    });
  });
}"""


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_grades_footer_lines_up_with_its_columns(
    page: Page, seeded, instructor_browser, screenshots_dir, lang
):
    quiz = seeded["activation-recomputation"]
    for name, wrong in WRONG.items():
        support.answer_in_db(factories.make_user(name), quiz, 8, wrong=frozenset(wrong))
    page.goto(f"/{lang}/admin/quizzes/quiz/{quiz.pk}/results/")

    body, *feet = page.locator("#grades").evaluate(_CELLS)
    by_column = {cell["column"]: cell for cell in body}
    assert len(feet) == 2
    for foot in feet:
        label, *cells = foot
        assert {cell["top"] for cell in foot if not cell["empty"]} == {label["top"]}
        for cell in cells:
            if cell["empty"]:
                continue
            above = by_column[cell["column"]]
            assert cell["fontSize"] == above["fontSize"]
            if cell["mark"]:  # centred under the mark above
                middle = (cell["left"] + cell["right"]) / 2
                assert abs(middle - (above["left"] + above["right"]) / 2) <= 1, (lang, cell)
            else:  # from the same edge as the score above
                assert abs(cell["start"] - above["start"]) <= 1, (lang, cell)
    support.screenshot(page, screenshots_dir, f"admin-grades-footer-{lang}")


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_item_analysis_shows_prompts_and_choices_as_learners_read_them(
    page: Page, seeded, instructor_browser, axe_source, screenshots_dir, lang
):
    from quizzes.content import content_changed
    from quizzes.models import Choice, Question

    quiz = seeded["activation-recomputation"]
    first = quiz.questions.get(position=1)
    Question.objects.filter(pk=first.pk).update(
        prompt_en="What does **this** print?\n\n```python\nprint(2 ** 3)\n```",
        prompt_ar="ماذا **يطبع** هذا؟\n\n```python\nprint(2 ** 3)\n```",
    )
    Choice.objects.filter(question=first, is_correct=True).update(
        text_en="`8`, that is $2^3$", text_ar="`8`، أي $2^3$"
    )
    content_changed(quiz=quiz)
    for name, wrong in WRONG.items():
        support.answer_in_db(factories.make_user(name), quiz, 8, wrong=frozenset(wrong))

    page.goto(f"/{lang}/admin/quizzes/quiz/{quiz.pk}/item-analysis/")
    row = page.locator("#question-1")
    expect(row.locator("strong")).to_have_count(1)
    expect(row.locator("pre.code")).to_be_visible()
    expect(page.locator("#item-analysis .rich-text code").filter(has_text="8")).to_have_count(1)
    expect(page.locator("#item-analysis .rich-text math").first).to_be_attached()
    assert "**this**" not in row.inner_text() and "**يطبع**" not in row.inner_text()
    support.assert_accessible(page, axe_source, f"item analysis with rich text ({lang})")
    support.screenshot(page, screenshots_dir, f"admin-item-analysis-rich-{lang}-desktop")
    page.set_viewport_size(support.PHONE)
    support.screenshot(page, screenshots_dir, f"admin-item-analysis-rich-{lang}-phone")
