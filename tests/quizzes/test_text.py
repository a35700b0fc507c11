"""Long texts as Markdown: every construct, nothing executable, code and math left to right
inside Arabic, rendered once per content version, and plain seed texts as they were."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.template import Context, Template
from django.utils import translation
from django.utils.html import escape, linebreaks

from quizzes import text
from quizzes.content import content_changed
from quizzes.models import Choice, Question, Quiz
from quizzes.text import code_stylesheet, render_markdown, sanitise
from tests.factories import make_quiz

STYLESHEET = Path(__file__).resolve().parents[2] / "static" / "css" / "code.css"


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))


def elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Elements()
    parser.feed(html)
    return parser.elements


def executable_parts(html: str) -> list[str]:
    """What in `html` could run script, load something or submit anything."""
    found = []
    for tag, attrs in elements(html):
        if tag in {"script", "style", "iframe", "object", "embed", "form", "input", "button",
                   "img", "svg", "link", "meta", "base", "frame", "frameset", "textarea",
                   "select", "video", "audio", "source", "template"}:  # fmt: skip
            found.append(tag)
        for name, value in attrs.items():
            if name.startswith("on") or name in {"style", "src", "srcdoc", "formaction"}:
                found.append(f"{tag}[{name}]")
            if "xlink" in name or name == "xmlns:xlink":
                found.append(f"{tag}[{name}]")
            if name == "href" and value is not None:
                scheme = re.sub(r"[\s\x00-\x1f]", "", value).lower().split(":", 1)
                if len(scheme) == 2 and scheme[0] not in {"http", "https", "mailto"}:
                    found.append(f"{tag}[href={value}]")
    return found


# --- Every construct --------------------------------------------------------------------


def test_emphasis_strong_strikethrough_and_line_breaks_render():
    html = render_markdown("*one* **two** ~~three~~\nnext line", lang="en")
    assert html == "<p><em>one</em> <strong>two</strong> <s>three</s><br>\nnext line</p>"


def test_lists_and_quotes_render():
    html = render_markdown("- a\n- b\n\n3. c\n4. d\n\n> quoted", lang="en")
    assert "<ul>\n<li>a</li>\n<li>b</li>\n</ul>" in html
    assert '<ol start="3">\n<li>c</li>\n<li>d</li>\n</ol>' in html
    assert "<blockquote>\n<p>quoted</p>\n</blockquote>" in html


def test_a_link_opens_without_handing_over_the_page_or_the_referrer():
    html = render_markdown("[guide](https://example.com/zero)", lang="en")
    assert html == ('<p><a href="https://example.com/zero" rel="noopener noreferrer">guide</a></p>')


def test_inline_code_is_escaped_and_marked_left_to_right():
    html = render_markdown("Call `checkpoint(block, x, use_reentrant=False) < 1`.", lang="en")
    assert '<code dir="ltr">checkpoint(block, x, use_reentrant=False) &lt; 1</code>' in html


def test_a_fenced_code_block_is_highlighted_with_classes_and_scrolls_under_the_keyboard():
    html = render_markdown("```python\ndef f(x):\n    return x  # why\n```", lang="en")
    pre = elements(html)[0]
    assert pre == (
        "pre",
        {"class": "code", "dir": "ltr", "tabindex": "0", "role": "group", "aria-label": "Code"},
    )
    assert '<span class="tok-k">def</span>' in html
    assert '<span class="tok-c1"># why</span>' in html
    assert "style=" not in html


def test_a_code_block_is_named_in_the_pages_language():
    html = render_markdown("    indented code", lang="ar")
    assert elements(html)[0][1]["aria-label"] == "شيفرة برمجية"
    assert "<code>indented code\n</code>" in html


def test_code_in_an_unknown_language_shows_plain_and_escaped():
    html = render_markdown("```nosuchlanguage\n<b>x</b>\n```", lang="en")
    assert "<code>&lt;b&gt;x&lt;/b&gt;\n</code>" in html


def test_inline_math_becomes_mathml_carrying_its_tex():
    html = render_markdown("The bubble is $(p-1)/(m+p-1)$.", lang="en")
    assert '<span class="math" dir="ltr"><math display="inline" dir="ltr">' in html
    assert "<mfrac>" not in html and "<mo>/</mo>" in html
    assert '<annotation encoding="application/x-tex">(p-1)/(m+p-1)</annotation>' in html


def test_display_math_is_a_block_of_its_own():
    html = render_markdown("$$\n2\\Psi + 2\\Psi + 12\\Psi\n$$", lang="en")
    assert html.startswith('<div class="math-display" dir="ltr"><math display="block"')
    assert "<mi>Ψ</mi>" in html and "<mn>12</mn>" in html


def test_display_math_within_a_sentence_stays_in_its_paragraph():
    html = render_markdown("Total: $$\\frac{a}{b}$$ bytes.", lang="en")
    assert html.startswith("<p>Total: <span") and html.endswith(" bytes.</p>")
    assert '<math display="block"' in html and "<mfrac>" in html


def test_tex_that_cannot_be_read_shows_as_code_instead_of_failing():
    html = render_markdown("Broken: $x^$ here", lang="en")
    assert html == '<p>Broken: <code dir="ltr">x^</code> here</p>'


def test_dollar_amounts_stay_text():
    assert render_markdown("It costs $5 and $6.", lang="en") == "<p>It costs $5 and $6.</p>"


def test_a_table_renders_with_its_alignment_as_classes():
    html = render_markdown("| stage | bytes |\n|:--|--:|\n| 1 | 4Ψ |", lang="en")
    assert '<th class="align-left">stage</th>' in html
    assert '<td class="align-right">4Ψ</td>' in html
    assert "style" not in html


def test_headings_and_images_stay_text_so_the_page_outline_and_sources_are_ours():
    html = render_markdown("# Not a heading\n\n![alt](https://example.com/x.png)", lang="en")
    assert "<h1>" not in html and "<img" not in html
    assert "# Not a heading" in html


# --- Nothing executable -----------------------------------------------------------------

HOSTILE = [
    "<script>alert(1)</script>",
    "<ScRiPt>alert(1)</sCrIpT>",
    '<img src="x" onerror="alert(1)">',
    "<svg onload=alert(1)>",
    '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
    '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
    '<math href="javascript:alert(1)"><mtext>x</mtext></math>',
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](jav&#x61;script:alert(1))",
    "[x](&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1))",
    "[x](java\tscript:alert(1))",
    "[x](vbscript:msgbox(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![x](data:image/svg+xml,<svg onload=alert(1)>)",
    "<https://example.com/\"onmouseover=\"alert(1)>",
    '<a href="javascript:alert(1)">x</a>',
    '<a href="&#x6A;avascript:alert(1)">x</a>',
    '<iframe src="https://example.com"></iframe>',
    '<object data="x.swf"></object><embed src="x.swf">',
    '<form action="https://example.com"><input name="p"><button>go</button></form>',
    '<p style="background:url(javascript:alert(1))">x</p>',
    '<div style="position:fixed">x</div>',
    "<style>body{display:none}</style>",
    "<!-- <script>alert(1)</script> -->",
    '<base href="https://example.com/">',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<a href="https://example.com" onclick="alert(1)">x</a>',
    "$\\href{javascript:alert(1)}{x}$",
    "$x$ <img src=x onerror=alert(1)>",
    "```html\n<script>alert(1)</script>\n```",
    "`<script>alert(1)</script>`",
    '<details open ontoggle="alert(1)">',
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
    '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph>',
    '<select><template><style><img src=x onerror=alert(1)></style></template></select>',
]  # fmt: skip


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_markdown_renders_nothing_executable(hostile):
    html = render_markdown(hostile, lang="en")
    assert executable_parts(html) == []


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_html_sanitised_keeps_nothing_executable(hostile):
    assert executable_parts(sanitise(hostile)) == []


def test_raw_html_in_markdown_is_shown_as_text_not_obeyed():
    html = render_markdown('<img src="x" onerror="alert(1)">', lang="en")
    assert html == '<p>&lt;img src="x" onerror="alert(1)"&gt;</p>'


def test_sanitising_keeps_the_allowed_markup_and_drops_the_rest():
    html = sanitise(
        '<p class="x" id="y">a <strong>b</strong> <a href="https://e.com" target="_top">c</a>'
        '<iframe src="https://e.com"></iframe></p>'
    )
    assert (
        html
        == '<p>a <strong>b</strong> <a href="https://e.com" rel="noopener noreferrer">c</a></p>'
    )


# --- Direction --------------------------------------------------------------------------


def test_code_and_math_inside_arabic_text_are_isolated_left_to_right():
    html = render_markdown(
        "استدعِ `checkpoint(block, x)` فتصبح الكلفة $O(\\sqrt{N})$ فقط.", lang="ar"
    )
    assert html.startswith('<p>استدعِ <code dir="ltr">checkpoint(block, x)</code> فتصبح')
    assert '<span class="math" dir="ltr"><math display="inline" dir="ltr">' in html
    assert html.endswith("</span> فقط.</p>")  # the paragraph itself takes the page's direction


def _tag(source: str, **context) -> str:
    return Template("{% load daleel %}" + source).render(Context(context))


@pytest.mark.django_db
def test_a_text_in_its_fallback_language_keeps_its_own_language_and_direction(quiz):
    question = quiz.questions.first()
    question.explanation_ar = ""
    question.explanation_en = "Use `x`.\n\nThen $y$."
    with translation.override("ar"):
        html = _tag('{% md question "explanation" %}', question=question)
        inline = _tag('{% md question "prompt" inline=True %}', question=question)
    assert html.startswith('<div lang="en" dir="ltr"><p>Use <code dir="ltr">x</code>.</p>')
    assert inline == question.prompt_ar  # in its language: no marking, no paragraph


# --- Plain seed texts as before ---------------------------------------------------------


def _squeezed(value: str) -> str:
    return re.sub(r"\s+", " ", value).strip()


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "ar"])
def test_the_seed_quizzes_long_texts_render_exactly_as_before(seed_quizzes, language):
    """Before Markdown, a prompt or a choice was its escaped text (in a heading, a label), and
    a description, feedback or explanation its paragraphs (`linebreaks`)."""
    checked = 0
    with translation.override(language):
        for quiz in seed_quizzes:
            items = [(quiz, "description", True)]
            for question in Question.objects.filter(quiz=quiz):
                items += [(question, "prompt", False), (question, "explanation", True)]
            for choice in Choice.objects.filter(question__quiz=quiz):
                items += [(choice, "text", False), (choice, "feedback", True)]
            for obj, field, paragraphs in items:
                value = getattr(obj, f"{field}_{language}")
                if not value:
                    continue
                before = linebreaks(value, autoescape=True) if paragraphs else escape(value)
                inline = "" if paragraphs else " inline=True"
                after = _tag(f'{{% md obj "{field}"{inline} %}}', obj=obj)
                assert _squeezed(after.replace("<br>\n", "<br>")) == _squeezed(before)
                checked += 1
    assert checked > 90  # two quizzes of eight questions of four choices


# --- Rendered once per content version and language -------------------------------------


@pytest.fixture
def render_calls(monkeypatch):
    calls: list[tuple[str, str]] = []
    real = text.render_markdown

    def counting(value: str, *, lang: str):
        calls.append((value, lang))
        return real(value, lang=lang)

    monkeypatch.setattr(text, "render_markdown", counting)
    text.render_cached.cache_clear()
    yield calls
    text.render_cached.cache_clear()


@pytest.mark.django_db
def test_a_step_shown_again_renders_no_markdown_until_the_quiz_is_edited(
    learner_client, render_calls
):
    quiz = make_quiz(questions=2)
    learner_client.post(f"/en/quizzes/{quiz.slug}/start/")
    attempt = quiz.attempts.get()
    url = f"/en/attempts/{attempt.pk}/questions/1/"

    assert learner_client.get(url).status_code == 200
    first = len(render_calls)
    question = quiz.questions.get(position=1)
    assert (question.prompt_en, "en") in render_calls
    assert (question.prompt_ar, "ar") in render_calls  # every language at once

    learner_client.get(url)
    learner_client.get(f"/ar/attempts/{attempt.pk}/questions/1/")
    assert len(render_calls) == first

    Question.objects.filter(pk=question.pk).update(prompt_en="Edited *prompt*?")
    content_changed(quiz=quiz)
    page = learner_client.get(url).content.decode()
    assert "Edited <em>prompt</em>?" in page
    assert ("Edited *prompt*?", "en") in render_calls[first:]


@pytest.mark.django_db
def test_a_description_is_rendered_once_per_text_and_language(client, render_calls):
    quiz = make_quiz(description_en="About **ZeRO**.")
    for _ in range(3):
        page = client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    assert "About <strong>ZeRO</strong>." in page
    assert render_calls.count(("About **ZeRO**.", "en")) == 1
    Quiz.objects.filter(pk=quiz.pk).update(description_en="About *ZeRO*.")
    assert "About <em>ZeRO</em>." in client.get(f"/en/quizzes/{quiz.slug}/").content.decode()


# --- The stylesheet ---------------------------------------------------------------------


def test_the_committed_code_stylesheet_is_the_generated_one():
    """`make code-css` writes it; this fails when Pygments or the styles changed without it."""
    assert STYLESHEET.read_text() == code_stylesheet()


def test_the_code_stylesheet_has_light_and_dark_colours_for_the_token_classes():
    css = code_stylesheet()
    assert "pre.code .tok-k {" in css
    assert "@media (prefers-color-scheme: dark)" in css


def test_the_check_for_executable_parts_finds_them_in_unsanitised_html():
    raw = '<script>x</script><img src=x onerror=y><a href=" JaVa\tScript:x">a</a><p style="">'
    assert executable_parts(raw) == [
        "script",
        "img",
        "img[src]",
        "img[onerror]",
        "a[href= JaVa\tScript:x]",
        "p[style]",
    ]


class _Nesting(HTMLParser):
    """Each element's tag, attributes and open ancestors, in document order."""

    VOID = {"input", "br", "img", "meta", "link", "hr", "wbr", "source", "col"}

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.found: list[tuple[str, dict[str, str | None], tuple[str, ...]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs), tuple(self.open)))
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag) :]


def nesting(html: str) -> list[tuple[str, dict[str, str | None], tuple[str, ...]]]:
    parser = _Nesting()
    parser.feed(html)
    return parser.found


BLOCKS = {"p", "div", "pre", "table", "ul", "ol", "blockquote"}


def blocks_in_phrasing_only_places(html: str) -> list[str]:
    return [
        tag
        for tag, _attrs, ancestors in nesting(html)
        if tag in BLOCKS and {"h2", "legend"} & set(ancestors)
    ]


def heading(html: str) -> tuple[str, dict[str, str | None], tuple[str, ...]]:
    return next(found for found in nesting(html) if found[1].get("id") == "question-heading")


def _step_pages(client, prompt_en: str, prompt_ar: str = "") -> list[str]:
    """A one-question quiz with this prompt: its question step and its feedback."""
    quiz = make_quiz(questions=1)
    question = quiz.questions.get()
    Question.objects.filter(pk=question.pk).update(prompt_en=prompt_en, prompt_ar=prompt_ar)
    content_changed(quiz=quiz)
    client.post(f"/en/quizzes/{quiz.slug}/start/")
    url = f"/en/attempts/{quiz.attempts.get().pk}/questions/1/"
    return [
        client.get(url).content.decode(),
        client.post(
            url,
            {"choice": question.choices.first().pk, "question": question.pk},
            HTTP_HX_REQUEST="true",
        ).content.decode(),  # the feedback
    ]


def _element(html: str, element_id: str) -> str:
    """The inner HTML of the (non-nesting) element with this id."""
    found = re.search(rf'<(\w+)[^>]* id="{element_id}"[^>]*>(.*?)</\1>', html, re.S)
    assert found, element_id
    return found[2]


@pytest.mark.django_db
def test_a_prompt_with_code_is_headed_by_its_first_paragraph_and_the_code_is_body_text(
    learner_client,
):
    pages = _step_pages(
        learner_client,
        "What does this print?\n\n```python\nprint(2 ** 3)\n```\n\nAnswer in **bytes**.",
    )
    for page in pages:
        assert blocks_in_phrasing_only_places(page) == []
        tag, attrs, ancestors = heading(page)
        assert tag == "h2" and "role" not in attrs
        assert _element(page, "question-heading") == "What does this print?"
        assert attrs["aria-describedby"] == "question-body"
        body = page.split('id="question-body">', 1)[1]
        assert body.index('<pre class="code"') < body.index("Answer in <strong>bytes</strong>")
        assert "<h2" not in body.split("</div>", 1)[0]
    question_page = pages[0]
    assert heading(question_page)[2][-2:] == ("fieldset", "legend")
    fieldset = next(attrs for tag, attrs, _ in nesting(question_page) if tag == "fieldset")
    assert fieldset["aria-describedby"] == "question-body progress-label"
    assert "aria-labelledby" not in fieldset  # named by its legend
    body_ancestors = next(
        a for t, at, a in nesting(question_page) if at.get("id") == "question-body"
    )
    assert "fieldset" in body_ancestors and "legend" not in body_ancestors


@pytest.mark.django_db
def test_several_paragraphs_head_the_step_with_the_first_and_read_the_rest_as_text(
    learner_client,
):
    page = _step_pages(learner_client, "Which is right?\n\nThink of $N$ GPUs.\n\nOne more.")[0]

    assert _element(page, "question-heading") == "Which is right?"
    body = page.split('id="question-body">', 1)[1].split("</fieldset>", 1)[0]
    assert "<p>Think of" in body and "<p>One more.</p>" in body


@pytest.mark.django_db
def test_a_prompt_that_opens_with_code_is_named_for_screen_readers_and_shows_the_code_as_body(
    learner_client,
):
    page = _step_pages(learner_client, "```python\nprint(1)\n```\n\nWhat does it print?")[0]

    tag, attrs, _ = heading(page)
    assert tag == "h2" and "visually-hidden" in attrs["class"]
    assert _element(page, "question-heading") == "Question 1 of 1"  # the step names it
    body = page.split('id="question-body">', 1)[1]
    assert body.index('<pre class="code"') < body.index("<p>What does it print?</p>")
    assert blocks_in_phrasing_only_places(page) == []


@pytest.mark.django_db
def test_a_prompt_in_a_fallback_language_keeps_its_language_on_heading_and_body(learner_client):
    learner_client.post("/i18n/setlang/", {"language": "ar", "next": "/ar/"})
    quiz = make_quiz(questions=1)
    question = quiz.questions.get()
    Question.objects.filter(pk=question.pk).update(
        prompt_en="What does this print?\n\n```python\nprint(1)\n```", prompt_ar=""
    )
    content_changed(quiz=quiz)
    learner_client.post(f"/ar/quizzes/{quiz.slug}/start/")
    page = learner_client.get(f"/ar/attempts/{quiz.attempts.get().pk}/questions/1/")
    page = page.content.decode()

    assert _element(page, "question-heading") == (
        '<span lang="en" dir="ltr">What does this print?</span>'
    )
    assert 'id="question-body"><div lang="en" dir="ltr"><pre class="code"' in page


@pytest.mark.django_db
def test_a_one_line_prompt_stays_the_legend_of_its_choices(learner_client):
    quiz = make_quiz(questions=1)
    learner_client.post(f"/en/quizzes/{quiz.slug}/start/")
    page = learner_client.get(f"/en/attempts/{quiz.attempts.get().pk}/questions/1/")
    tag, _attrs, ancestors = heading(page.content.decode())
    assert tag == "h2" and ancestors[-2:] == ("fieldset", "legend")
