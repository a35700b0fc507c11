"""Code and math tokens in Arabic pages are drawn in their own left-to-right order.

Chromium lays the text out; each character's box (Range.getClientRects) tells where it was
drawn. A token read left to right has every character to the right of the one before it on
its line. In a right-to-left run the order flips: `\\{` would show as `}\\`, `√N` as `N√`.
"""

from __future__ import annotations

from django.conf import settings
from django.test import Client
from playwright.sync_api import BrowserContext, Page, expect

from tests import factories

from .support import answer_in_db, step_url

LRI, PDI = "\u2066", "\u2069"

# For each occurrence of `token` in the text under `root`: the horizontal centres of its
# non-space characters, each with the top of its line box.
_CHARACTER_BOXES = """([root, token]) => {
  const found = [];
  const walker = document.createTreeWalker(document.querySelector(root), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let at = node.data.indexOf(token); at >= 0; at = node.data.indexOf(token, at + 1)) {
      const boxes = [];
      for (let i = at; i < at + token.length; i++) {
        if (/\\s/.test(node.data[i])) continue;
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getClientRects()[0];
        boxes.push({char: node.data[i], x: box.left + box.width / 2, top: Math.round(box.top)});
      }
      found.push(boxes);
    }
  }
  return found;
}"""


def drawn_left_to_right(page: Page, root: str, token: str) -> list[bool]:
    """For each occurrence of `token` under `root`: is it drawn in its own order, left to
    right? (Characters are compared with the next one on the same line.)"""
    results = []
    for boxes in page.evaluate(_CHARACTER_BOXES, [root, token]):
        pairs = [(a, b) for a, b in zip(boxes, boxes[1:], strict=False) if a["top"] == b["top"]]
        assert pairs, f"{token!r} has no two characters on one line"
        results.append(all(a["x"] < b["x"] for a, b in pairs))
    return results


def _show_unisolated(page: Page, text: str) -> None:
    """A right-to-left paragraph with `text` as the page's strings were before isolating."""
    page.evaluate(
        """(text) => {
          const p = document.createElement("p");
          p.id = "unisolated";
          p.dir = "rtl";
          p.textContent = text;
          document.body.append(p);
        }""",
        text,
    )


def _sign_in(context: BrowserContext, live_server, user) -> None:
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies(
        [{"name": cookie.key, "value": cookie.value, "url": live_server.url, "httpOnly": True}]
    )


def test_the_gift_import_help_and_errors_show_braces_and_names_in_order_in_arabic(
    page: Page, context: BrowserContext, live_server, transactional_db
):
    # An administrator: earlier browser tests flush the database, and with it the Instructors
    # group that a migration creates.
    _sign_in(context, live_server, factories.make_user("admin", is_staff=True, is_superuser=True))
    page.goto("/ar/admin/quizzes/quiz/import/")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")

    # The method tells the two apart: the same tokens left bare in Arabic text flip.
    _show_unisolated(page, "اكتب \\{ أو $CATEGORY أو {mlang ar} هنا")
    for token in ("\\{", "$CATEGORY", "{mlang"):
        assert drawn_left_to_right(page, "#unisolated", token) == [False], token

    # The help under the form: template HTML, isolated by <code dir="ltr">.
    help_list = "#content-main .module:last-of-type ul"
    for token in (
        "$CATEGORY:",
        "::names::",
        "\\~ \\= \\# \\{ \\} \\:",
        '<span lang="ar" class="multilang">…</span>',
        "{mlang ar}…{mlang}",
    ):
        assert drawn_left_to_right(page, help_list, token) == [True], token
    # The short-answer and matching samples, each one isolate (issue 53): «=%50%tcp» was
    # drawn «tcp=%50%» when its weight and its text were isolated apart.
    assert drawn_left_to_right(page, help_list, "=%50%tcp") == [True, True]
    assert drawn_left_to_right(page, help_list, "{=TCP =%50%tcp}") == [True]
    matching = "{=ZeRO-1 -> optimizer states =ZeRO-2 -> gradients = -> training data}"
    assert drawn_left_to_right(page, help_list, matching) == [True]
    # The field's help text: escaped plain text, isolated by LRI…PDI.
    help_text = page.locator("#id_quiz_helptext").text_content()
    assert f"{LRI}$CATEGORY{PDI}" in help_text
    assert drawn_left_to_right(page, "#id_quiz_helptext", "$CATEGORY") == [True]

    # The parser's message about an unclosed brace tells to type \{, drawn as \{.
    page.locator("#id_file").set_input_files(
        files=[{"name": "quiz.gift", "mimeType": "text/plain", "buffer": b"What? {=4 ~5\n"}]
    )
    page.locator("input[type=submit]").click()
    errors = page.locator(".errornote .errorlist")
    expect(errors).to_contain_text("لم يُغلق")
    assert f"{LRI}\\{{{PDI}" in errors.text_content()
    assert drawn_left_to_right(page, ".errornote .errorlist", "\\{") == [True]


def test_question_four_of_the_activation_quiz_shows_the_square_root_of_n_in_order_in_arabic(
    page: Page, signed_in, quiz
):
    attempt = answer_in_db(signed_in, quiz, 4)
    page.goto(step_url(attempt, 4, "ar"))
    explanation = "#quiz-area .explanation"
    expect(page.locator(explanation)).to_be_visible()
    text = page.locator(explanation).text_content()
    assert text.count(f"{LRI}√N{PDI}") == 3

    assert drawn_left_to_right(page, explanation, "√N") == [True] * 4  # three alone, one in O(√N)
    assert drawn_left_to_right(page, explanation, "O(√N)") == [True]

    _show_unisolated(page, "بتقسيم السلسلة إلى نحو √N مقطعًا")
    assert drawn_left_to_right(page, "#unisolated", "√N") == [False]
