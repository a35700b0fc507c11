"""Other systems' HTML as the site's Markdown, and the site's Markdown as QTI's XHTML: what
each element becomes, what is dropped (and said), and Markdown written the plain way coming
back as written."""

from __future__ import annotations

import pytest
from lxml import etree

from quizzes.instructors.exchange.qti_write import QTI_NS
from quizzes.instructors.exchange.rich_text import (
    html_to_markdown,
    html_to_text,
    markdown_to_xhtml,
)
from quizzes.text import render_markdown


def through_xhtml(markdown: str) -> str:
    container = etree.Element(f"{{{QTI_NS}}}div")
    markdown_to_xhtml(markdown, namespace=QTI_NS, container=container)
    return html_to_markdown(container).markdown


@pytest.mark.parametrize(
    ("html", "markdown"),
    [
        ("<p>What is <strong>2+2</strong>?</p>", "What is **2+2**?"),
        ("<p>One<br>two</p><p>Three</p>", "One\ntwo\n\nThree"),
        ("<p><em>x</em> and <i>y</i>, <b>z</b></p>", "*x* and *y*, **z**"),
        ("<p>Use <code>a_b*c</code></p>", "Use `a_b*c`"),
        ('<pre><code class="language-python">x = 1\n</code></pre>', "```python\nx = 1\n```"),
        ('<p><a href="https://example.org/a b">docs</a></p>', "[docs](https://example.org/a%20b)"),
        ("<ul><li>a</li><li>b<ol><li>c</li></ol></li></ul>", "- a\n- b\n  1. c"),
        ("<blockquote><p>said</p></blockquote>", "> said"),
        ("<h3>Heading</h3><p>text</p>", "**Heading**\n\ntext"),
        ("<p>H<sub>2</sub>O and x<sup>2</sup></p>", "H₂O and x²"),
        ("<p>\\(x^2\\) and \\[y\\]</p>", "$x^2$ and $$y$$"),
        ("<p>a * b, snake_case, 5$ or $6</p>", "a * b, snake_case, 5$ or $6"),
        ("<p>1. not a list</p>", "1\\. not a list"),
        ("<p>$x$ is literal here</p>", "\\$x\\$ is literal here"),
        (
            '<table><tr><th>a</th><th style="text-align:right">b</th></tr>'
            "<tr><td>1</td><td>2</td></tr></table>",
            "| a | b |\n| --- | ---: |\n| 1 | 2 |",
        ),
        ("<p>ما سرعة الصوت عند ٢٠ درجة؟ المُحسِّن</p>", "ما سرعة الصوت عند ٢٠ درجة؟ المُحسِّن"),
    ],
)
def test_html_becomes_the_markdown_that_shows_it(html, markdown):
    assert html_to_markdown(html).markdown == markdown


def test_literal_text_renders_as_it_read_in_html():
    html = "<p>1. not a list, $x$ is money, &lt;b&gt; is a tag, *stars*</p>"

    markdown = html_to_markdown(html).markdown

    shown = render_markdown(markdown, lang="en")
    assert "<ol" not in shown and "<math" not in shown and "<em>" not in shown
    assert "&lt;b&gt;" in shown


def test_what_markdown_cannot_hold_is_dropped_and_named():
    html = (
        '<p>See <img src="@@PLUGINFILE@@/a.png" alt="A"><iframe src="x"></iframe>'
        '<a href="javascript:alert(1)">this</a><script>alert(2)</script>'
        '<video src="v.mp4"></video> <u>underlined</u></p>'
    )

    converted = html_to_markdown(html)

    assert converted.markdown == "See this underlined"
    assert [(image.src, image.alt) for image in converted.images] == [("@@PLUGINFILE@@/a.png", "A")]
    assert converted.dropped == [
        "<iframe>",
        "<a href=“javascript:alert(1)”>",
        "<script>",
        "<video>",
    ]


def test_mathml_with_its_tex_becomes_math_and_without_it_is_said():
    math = (
        '<p><math xmlns="http://www.w3.org/1998/Math/MathML" display="block"><semantics>'
        '<mi>x</mi><annotation encoding="application/x-tex">x^2</annotation></semantics>'
        '</math> and <math xmlns="http://www.w3.org/1998/Math/MathML"><mi>y</mi></math></p>'
    )

    converted = html_to_markdown(math)

    assert converted.markdown == "$$x^2$$ and y"
    assert converted.dropped == ["MathML"]


def test_plain_texts_are_one_line():
    assert html_to_text("<p>frog <b>and</b><br>toad</p>").markdown == "frog and toad"


@pytest.mark.parametrize(
    "markdown",
    [
        "What is **ZeRO-1**?",
        "Costs $5 and *more* than `x = 1`",
        "Line one\nline two\n\nWith $x^2$ math and $$\\frac{a}{b}$$ shown",
        "- item one\n- item two\n\n1. first\n2. second",
        "```python\nprint('hi')\n```",
        "> quoted *text*",
        "A [link](https://example.org/a) and <https://example.org>",
        "~~gone~~ text",
        "a * b and snake_case_name",
        "أيُّ مرحلةٍ تُجزِّئ حالاتِ المُحسِّن؟ ٣ مراحل، $\\sqrt{N}$",
    ],
)
def test_markdown_written_the_plain_way_comes_back_through_xhtml_as_written(markdown):
    assert through_xhtml(markdown) == markdown


def test_markdown_written_otherwise_comes_back_rendering_the_same():
    markdown = "_em_ and __strong__\n\n* item"

    back = through_xhtml(markdown)

    assert back == "*em* and **strong**\n\n- item"
    assert render_markdown(back, lang="en") == render_markdown(markdown, lang="en")
