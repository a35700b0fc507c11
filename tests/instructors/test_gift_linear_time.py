"""The GIFT parser reads a hostile file in about the time an ordinary file of its size takes.

Instructors import third-party files, and a parser step that is quadratic in some span
turned a 100 KB file into minutes of a server worker (issue 23). Each test here parses a
pathological input of about 1 MB and compares the processor time it takes with the time
an ordinary GIFT file of the same size takes: a ratio, not an absolute time, so that a
slow or loaded machine does not matter. Processor time (not wall-clock time) leaves out
the time other processes hold the processor. Linear code stays within a small factor of
the ordinary file; quadratic code, at this size, takes thousands of times longer, so the
bound below is loose for the one and fails the other by far. A deadline stops a runaway
parse so that such a failure is reported instead of hanging the suite.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from quizzes.instructors.gift.format import parse_gift

SIZE = 1_000_000
# A pathological input may take at most this many times the ordinary file's time. Files
# of many tiny items get more: each item costs about what one of an ordinary question's
# fields does, and they have ten to a hundred times more items per byte (measured: up to
# about 5 times the ordinary file). Quadratic code at this size takes thousands of times.
BOUND = 5
ITEMS_BOUND = 10

# An ordinary file: bilingual questions as the exporter and Moodle write them, of each kind.
_ORDINARY = (
    "// Chapter {n}\n"
    '::Q{n}::[html]<p><span lang\\="en" class\\="multilang">How fast does sound travel in air '
    'at 20 °C?</span><span lang\\="ar" class\\="multilang">ما سرعة الصوت في الهواء؟</span></p>{{\n'
    '\t=<span lang\\="en" class\\="multilang">About 343 m/s</span>'
    '<span lang\\="ar" class\\="multilang">نحو ٣٤٣ م/ث</span>#Right.\n'
    "\t~About 3 × 10<sup>8</sup> m/s#That is the speed of light.\n"
    "\t~%-50%About 1,500 m/s\n"
    "\t####Sound needs a medium\\: air, water or rock.\n"
    "}}\n\n"
    "::T{n}::Sound travels in a vacuum.{{F#No\\: it needs a medium.#Right.}}\n\n"
    "::N{n}::How many hertz in a kilohertz?{{#=1000:0#Yes. =%50%1000..1010#Close.}}\n\n"
    "::M{n}::Which are waves?{{~%50%Sound ~%50%Light ~%-100%A rock ####Rocks are not.}}\n\n"
)


def _ordinary(size: int) -> str:
    parts, length, number = [], 0, 0
    while length < size:
        number += 1
        part = _ORDINARY.format(n=number)
        parts.append(part)
        length += len(part)
    return "".join(parts)


def _fill(prefix: str, unit: str, suffix: str = "") -> str:
    """`prefix`, then `unit` repeated up to SIZE characters, then `suffix`."""
    return prefix + unit * ((SIZE - len(prefix) - len(suffix)) // len(unit)) + suffix


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    def stop(_signal, _frame):
        raise TimeoutError(f"the parse took more than {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _seconds(text: str, *, runs: int, deadline: float = 600) -> float:
    """The least processor time of `runs` parses."""
    best = float("inf")
    for _run in range(runs):
        with _deadline(deadline):
            start = time.process_time()
            parse_gift(text)
            best = min(best, time.process_time() - start)
    return best


@pytest.fixture(scope="module")
def ordinary_seconds() -> float:
    text = _ordinary(SIZE)
    assert parse_gift(text).errors == []
    return _seconds(text, runs=2)


PATHOLOGICAL = {
    # The four inputs of issue 23.
    "spaces-in-an-html-prompt": _fill("::q::[html]a", " ", "b{=a ~b}"),
    "unclosed-script-tags": _fill("::q::[html]", "<script>", "{=a ~b}"),
    "unclosed-multilang-spans": _fill(
        "::q::[html]", '<span lang="ar" class="multilang">', "{=a ~b}"
    ),
    "unclosed-mlang-tags": _fill("::q::", "{mlang ar}", "{=a ~b}"),
    # Deep nesting, closed and not.
    "nested-multilang-spans": (
        "::q::[html]"
        + '<span lang="en" class="multilang"><b>' * (SIZE // 48)
        + "x"
        + "</b></span>" * (SIZE // 48)
        + "{=a ~b}"
    ),
    "nested-block-tags": _fill("::q::[html]", "<li><div> ", "{=a ~b}"),
    "tag-openings-never-closed": _fill("::q::[html]", "<br", "{=a ~b}"),
    "unclosed-superscripts": _fill("::q::[html]", "<sup>1", "{=a ~b}"),
    "mlang-tag-never-closed": _fill("::q::{mlang ", " ", "{=a ~b}"),
    "endless-character-reference": _fill("::q::[html]&#", "1", ";{=a ~b}"),
    # Escapes, names and braces.
    "long-escape-runs": _fill("::q::", "\\\\\\{\\~", "{=a ~b}"),
    "many-double-colons": _fill("", "::", "{=a ~b}"),
    "many-opening-braces": _fill("Q?", "{"),
    "many-answer-blocks": _fill("Q?", "{=a ~b}"),
    # Spacing that the text normalization works through.
    "spaces-around-a-line-break-in-an-answer": _fill("Q?{=a", " ", "\\nb ~c}"),
    "spaces-then-line-break-in-a-moodle-prompt": _fill("::q::a", "  \\n", "b{=a ~b}"),
    "many-true-false-hashes": _fill("Q?{T", "#", "}"),
    "a-very-long-weight": _fill("Q?{=a ~%", "1", "%b}"),
}
MANY_ITEMS = {
    "many-tiny-questions": _fill("", "Q?{=a ~b}\n\n"),
    "many-tiny-choices": _fill("Q?{=a", " ~b", "}"),
    "many-numerical-answers": _fill("Q?{#", "=1:1", "}"),
    "many-tiny-errors": _fill("", "Q?{~a ~}\n\n"),
}


def _assert_within(text: str, bound: float, ordinary_seconds: float) -> None:
    assert SIZE * 0.99 <= len(text) <= SIZE * 1.01
    deadline = 60 + 20 * bound * ordinary_seconds

    seconds = _seconds(text, runs=1, deadline=deadline)
    if seconds > bound * ordinary_seconds:  # a second chance, for a burst of load
        seconds = _seconds(text, runs=1, deadline=deadline)

    assert seconds <= bound * ordinary_seconds, (
        f"{seconds:.2f} s against {ordinary_seconds:.2f} s for an ordinary file"
    )


@pytest.mark.parametrize("text", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_a_pathological_file_parses_about_as_fast_as_an_ordinary_one(text, ordinary_seconds):
    _assert_within(text, BOUND, ordinary_seconds)


@pytest.mark.parametrize("text", MANY_ITEMS.values(), ids=MANY_ITEMS.keys())
def test_a_file_of_many_tiny_items_parses_in_time_proportional_to_its_size(text, ordinary_seconds):
    _assert_within(text, ITEMS_BOUND, ordinary_seconds)


def test_an_endless_character_reference_is_the_replacement_character_not_a_crash():
    # int() refuses more than 4,300 digits; html.unescape used to pass them on.
    document = parse_gift("::q::[html]Sign &#" + "1" * 5000 + "; here{=a ~b}")

    assert document.questions[0].prompt.en == "Sign \ufffd here"
