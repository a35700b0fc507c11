"""Hyphenated Latin terms in Arabic text stay whole on their line: the seed's «all‑gather»
is written with a non-breaking hyphen (U+2011), which the page's fonts draw as a hyphen."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from . import support

NB_TERM = "all\u2011gather"


@pytest.mark.parametrize("width", [1280, 360])
def test_all_gather_stays_on_one_line_in_an_arabic_explanation(
    page: Page, signed_in, seeded, screenshots_dir, width
):
    page.set_viewport_size({"width": width, "height": 900})
    attempt = support.answer_in_db(signed_in, seeded["zero-sharded-optimizers"], 4)
    page.goto(support.step_url(attempt, 4, "ar"))
    explanation = page.locator("#quiz-area .explanation")
    expect(explanation).to_contain_text(NB_TERM)
    boxes = page.evaluate(
        """(term) => {
          const root = document.querySelector("#quiz-area .explanation");
          const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const at = node.data.indexOf(term);
            if (at < 0) continue;
            return [...term].map((_, i) => {
              const range = document.createRange();
              range.setStart(node, at + i);
              range.setEnd(node, at + i + 1);
              const box = range.getClientRects()[0];
              return {top: Math.round(box.top), width: box.width};
            });
          }
          return [];
        }""",
        NB_TERM,
    )
    assert boxes, "the term is not in the explanation"
    assert len({box["top"] for box in boxes}) == 1  # one line
    assert boxes[3]["width"] > 1  # the hyphen is drawn
    support.screenshot(page, screenshots_dir, f"hyphen-all-gather-ar-{width}")
