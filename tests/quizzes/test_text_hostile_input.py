"""Markdown and math from a hostile author (issue 32): `\\text{…}` stays text, links keep
only our own schemes, and rendering takes time in proportion to the text's length.

The timing tests follow tests/instructors/test_gift_linear_time.py: the processor time of a
pathological text compared with an ordinary Markdown text of the same size, a ratio rather
than an absolute time. At this size quadratic code takes a hundred times the ordinary text's
time (200,000 unclosed brackets took 17 s before); linear code stays within a small factor.
"""

from __future__ import annotations

import time

import pytest

from quizzes.text import render_markdown
from tests.instructors.test_gift_linear_time import _deadline

# --- \text{…} ------------------------------------------------------------------------------


def test_html_inside_text_in_math_is_shown_as_text():
    html = render_markdown(r"$\text{<b>bold</b> & co} + 1$", lang="en")

    assert "<mtext>&lt;b&gt;bold&lt;/b&gt;&nbsp;&amp;&nbsp;co</mtext>" in html
    assert "<b>" not in html


def test_a_script_tag_inside_text_swallows_neither_the_formula_nor_its_tex():
    html = render_markdown(r"Before $a\text{<script>}b+c$ after.", lang="en")

    assert "<mtext>&lt;script&gt;</mtext><mi>b</mi><mo>+</mo><mi>c</mi>" in html
    assert (
        r'<annotation encoding="application/x-tex">a\text{&lt;script&gt;}b+c</annotation>' in html
    )
    assert html.endswith("after.</p>")


def test_maths_own_characters_still_come_through_as_characters():
    html = render_markdown(r"$\text{a b} \times \alpha$", lang="en")

    assert "<mtext>a&nbsp;b</mtext><mo>×</mo><mi>α</mi>" in html


# --- Link schemes --------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["ftp://example.org/f", "tel:+15551234", "ssh://host", "sms:1"])
def test_a_link_to_a_scheme_outside_ours_loses_its_address(url):
    # nh3's own list allows these; ours is http, https and mailto.
    html = render_markdown(f"[there]({url})", lang="en")

    assert "href" not in html and "there" in html


@pytest.mark.parametrize(
    "url", ["https://example.org/a", "http://example.org/b", "mailto:someone@example.org"]
)
def test_a_link_to_one_of_our_schemes_keeps_its_address(url):
    assert f'href="{url}"' in render_markdown(f"[there]({url})", lang="en")


def test_brackets_nested_a_few_deep_still_make_a_link():
    html = render_markdown("[a [b [c] d] e](https://example.org)", lang="en")

    assert '<a href="https://example.org" rel="noopener noreferrer">a [b [c] d] e</a>' in html


# --- Time in proportion to the length --------------------------------------------------------

SIZE = 100_000
# Many tiny items (a bracket, a formula per two characters) cost more per character than
# prose: up to about 6 times the ordinary text, measured. Quadratic code takes over 100.
BOUND = 12
_ORDINARY = (
    "Sharding splits **optimizer states** across GPUs, so each holds $\\frac{1}{N}$ of "
    "them. See [the guide](https://example.org/zero) and `torch.distributed`; a list:\n\n"
    "- one *item*\n- two ~~items~~\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
)


def _fill(unit: str, prefix: str = "", suffix: str = "") -> str:
    return prefix + unit * ((SIZE - len(prefix) - len(suffix)) // len(unit)) + suffix


def _seconds(text: str, *, deadline: float = 300) -> float:
    with _deadline(deadline):
        start = time.process_time()
        render_markdown(text, lang="en")
        return time.process_time() - start


@pytest.fixture(scope="module")
def ordinary_seconds() -> float:
    text = _fill(_ORDINARY)
    return min(_seconds(text), _seconds(text))


HOSTILE = {
    "unclosed-brackets": _fill("["),
    "brackets-closed-once-at-the-end": _fill("[", suffix="]"),
    "brackets-between-words": _fill("[a"),
    "inline-math": _fill("$a"),
    "display-math": _fill("$$a"),
    "a-table": _fill("| x | y |\n", prefix="| a | b |\n|---|---|\n"),
    "emphasis-never-closed": _fill("*a"),
}


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_text_renders_in_time_proportional_to_its_length(text, ordinary_seconds):
    assert SIZE * 0.99 <= len(text) <= SIZE
    deadline = 60 + 20 * BOUND * ordinary_seconds

    seconds = _seconds(text, deadline=deadline)
    if seconds > BOUND * ordinary_seconds:  # a second chance, for a burst of load
        seconds = _seconds(text, deadline=deadline)

    assert seconds <= BOUND * ordinary_seconds, (
        f"{seconds:.2f} s against {ordinary_seconds:.2f} s for an ordinary text"
    )
