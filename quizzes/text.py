"""Learner-visible long texts as Markdown, rendered on the server and sanitised.

Quiz descriptions, question prompts, choice texts, per-choice feedback and explanations are
CommonMark with tables, fenced code, and math (`$…$` inline, `$$…$$` display). markdown-it-py
renders them with raw HTML off; code is highlighted by Pygments with CSS classes (the CSP
blocks `style=`; the stylesheet is generated, see `code_stylesheet`), math becomes MathML by
latex2mathml with its TeX kept as an annotation, and nh3 cleans the result against one
explicit allowlist. Code and math are marked `dir="ltr"`, so inside Arabic text they stay
left to right while the paragraph around them stays right to left.

Rendering is not free: the cached quiz content (quizzes/content.py) renders each text once
per content version and language; `render_cached` serves the few texts read outside it.
"""

from __future__ import annotations

import re
from contextlib import suppress
from functools import lru_cache
from types import SimpleNamespace
from typing import Any
from xml.etree.ElementTree import tostring
from xml.sax.saxutils import escape as xml_escape
from xml.sax.saxutils import unescape as xml_unescape

import nh3
from django.conf import settings
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import override, pgettext
from latex2mathml.converter import convert_to_element as latex_to_mathml
from markdown_it import MarkdownIt
from markdown_it import helpers as markdown_helpers
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.token import STANDARD_TYPES
from pygments.util import ClassNotFound

# Pygments' token classes carry this prefix so they cannot collide with the site's classes.
TOKEN_PREFIX = "tok-"
LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"
# Longer sources are not highlighted (Pygments' time grows with the text); they show plain.
HIGHLIGHT_LIMIT = 20_000
# The longest text an instructor may write in one field (a prompt, an explanation, a
# feedback, a quiz's description): checked by the admin's forms, the preview and the GIFT
# import before anything is rendered, so that no hostile text costs a worker more than a
# fraction of a second. A choice's text is shorter still (its column: 500).
TEXT_MAX_LENGTH = 10_000
# Brackets nested deeper than this are not a link's text: a link's label is then read as
# text. markdown-it scans from each `[` to its `]`, so without a bound a run of unclosed
# brackets costs the square of its length.
LINK_MAX_NESTING = 8

_FORMATTER = HtmlFormatter(nowrap=True, classprefix=TOKEN_PREFIX)
_TOKEN_CLASSES = {TOKEN_PREFIX + name for name in STANDARD_TYPES.values() if name}

_MATHML_TAGS = {
    "math", "semantics", "annotation", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace",
    "msub", "msup", "msubsup", "mfrac", "msqrt", "mroot", "mover", "munder", "munderover",
    "mtable", "mtr", "mtd", "mstyle", "mpadded", "mphantom", "menclose", "merror",
    "mmultiscripts", "mprescripts", "none",
}  # fmt: skip
_MATHML_ATTRIBUTES = {
    "math": {"display", "dir"},
    "annotation": {"encoding"},
    "mi": {"mathvariant"},
    "mn": {"mathvariant"},
    "mtext": {"mathvariant"},
    "mo": {"stretchy", "fence", "separator", "lspace", "rspace", "form", "largeop",
           "movablelimits", "accent", "minsize", "maxsize", "symmetric"},
    "mstyle": {"displaystyle", "scriptlevel", "mathvariant"},
    "mspace": {"width", "height", "depth"},
    "mpadded": {"width", "height", "depth", "lspace", "voffset"},
    "mfrac": {"linethickness"},
    "mover": {"accent"},
    "munder": {"accentunder"},
    "munderover": {"accent", "accentunder"},
    "mtable": {"columnalign", "rowspacing", "columnspacing", "displaystyle"},
    "mtd": {"columnalign", "columnspan", "rowspan"},
    "menclose": {"notation"},
}  # fmt: skip

# The one allowlist: anything else (scripts, event attributes, style, iframes, objects,
# forms, images, xlink:href) is removed, and links keep only http(s) and mailto URLs.
ALLOWED_TAGS = {
    "p", "br", "em", "strong", "del", "s", "code", "pre", "span", "div", "a", "ul", "ol",
    "li", "blockquote", "hr", "table", "thead", "tbody", "tr", "th", "td",
} | _MATHML_TAGS  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "pre": {"dir", "tabindex", "role", "aria-label"},
    "code": {"dir"},
    "span": {"dir"},
    "div": {"dir"},
    "ol": {"start"},
    **_MATHML_ATTRIBUTES,
}
ALLOWED_CLASSES = {
    "pre": {"code"},
    "span": _TOKEN_CLASSES | {"math"},
    "div": {"math-display"},
    "th": {"align-left", "align-center", "align-right"},
    "td": {"align-left", "align-center", "align-right"},
}
URL_SCHEMES = {"http", "https", "mailto"}


def sanitise(html: str) -> str:
    """`html` with nothing executable left: the allowlist above, links `noopener noreferrer`."""
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        allowed_classes=ALLOWED_CLASSES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer",
        strip_comments=True,
    )


def _code_block(code: str, info: str, lang: str) -> str:
    name = info.split()[0] if info.strip() else ""
    body = escape(code)
    if name and len(code) <= HIGHLIGHT_LIMIT:
        with suppress(ClassNotFound):  # an unknown language shows plain
            body = highlight(code, get_lexer_by_name(name), _FORMATTER)
    with override(lang):
        label = pgettext("a block of program code", "Code")
    # Wide code scrolls (see the stylesheet); a scrolling region must take the keyboard focus,
    # and a focusable element needs a name.
    return (
        f'<pre class="code" dir="ltr" tabindex="0" role="group" aria-label="{escape(label)}">'
        f"<code>{body}</code></pre>\n"
    )


# What latex2mathml writes into an element's text itself: character references.
_MATHML_REFERENCE = re.compile(r"(&#x[0-9A-Fa-f]+;)")


def _mathml(tex: str, *, display: bool) -> str:
    """latex2mathml's MathML for `tex`, whose texts are escaped.

    latex2mathml serialises its tree and then unescapes it all, so that its own character
    references (`&#x0002B;`) come through; the text of `\\text{…}` came through raw with
    them, markup included. Every text but those references is escaped first here.
    """
    tree = latex_to_mathml(tex, display="block" if display else "inline")
    for element in tree.iter():
        if element.text:
            element.text = "".join(
                part if _MATHML_REFERENCE.fullmatch(part) else xml_escape(part)
                for part in _MATHML_REFERENCE.split(element.text)
            )
    return xml_unescape(tostring(tree, encoding="unicode"))


def _math(tex: str, *, display: bool, inline: bool) -> str:
    try:
        mathml = _mathml(tex, display=display)
    except Exception:  # noqa: BLE001 - any TeX latex2mathml cannot read is shown as code
        mathml = ""
    if not mathml.startswith("<math"):
        fallback = f'<code dir="ltr">{escape(tex)}</code>'
        return fallback if inline else f"<p>{fallback}</p>\n"
    # The TeX source rides along as MathML's annotation: screen readers and copy-paste get it.
    head, _, rest = mathml.partition(">")
    body = rest.removesuffix("</math>")
    annotation = f'<annotation encoding="application/x-tex">{escape(tex)}</annotation>'
    math = f'{head} dir="ltr"><semantics>{body}{annotation}</semantics></math>'
    if inline:
        return f'<span class="math" dir="ltr">{math}</span>'
    return f'<div class="math-display" dir="ltr">{math}</div>\n'


def _table_alignment(state: Any) -> None:
    """markdown-it aligns table cells with `style=`, which the CSP blocks: use classes."""
    for token in state.tokens:
        if token.type in ("th_open", "td_open"):
            style = token.attrs.pop("style", None)
            if isinstance(style, str) and style.startswith("text-align:"):
                token.attrSet("class", "align-" + style.removeprefix("text-align:"))


def _link_label_end(state: StateInline, start: int, disableNested: bool = False) -> int:  # noqa: N803
    """markdown-it's `parseLinkLabel`, which gives up past LINK_MAX_NESTING open brackets."""
    label_end = -1
    old_pos = state.pos
    state.pos = start + 1
    level = 1
    found = False
    while state.pos < state.posMax:
        marker = state.src[state.pos]
        if marker == "]":
            level -= 1
            if level == 0:
                found = True
                break
        previous = state.pos
        state.md.inline.skipToken(state)
        if marker == "[":
            if previous == state.pos - 1:
                level += 1
                if level > LINK_MAX_NESTING:
                    break
            elif disableNested:
                state.pos = old_pos
                return -1
    if found:
        label_end = state.pos
    state.pos = old_pos
    return label_end


def _parser(lang: str) -> MarkdownIt:
    # js-default: CommonMark plus tables and strikethrough, with raw HTML off ("commonmark"
    # would pass `<img onerror>` through). `breaks`: a single newline is a line break, as in
    # the plain texts written before Markdown.
    md = MarkdownIt("js-default", {"breaks": True, "html": False})
    # Headings would break the page's outline; images would load from anywhere.
    md.disable(["heading", "lheading", "image"])
    # This parser's own helpers (markdown-it's module is shared by every parser).
    md.helpers = SimpleNamespace(  # type: ignore[assignment]
        parseLinkDestination=markdown_helpers.parseLinkDestination,
        parseLinkLabel=_link_label_end,
        parseLinkTitle=markdown_helpers.parseLinkTitle,
    )
    dollarmath_plugin(
        md, allow_labels=False, allow_space=False, allow_digits=False, double_inline=True
    )
    md.core.ruler.push("table_alignment", _table_alignment)

    def fence(_renderer: Any, tokens: list[Token], idx: int, _options: Any, _env: Any) -> str:
        return _code_block(tokens[idx].content, tokens[idx].info, lang)

    def code_inline(_renderer: Any, tokens: list[Token], idx: int, _options: Any, _env: Any) -> str:
        return f'<code dir="ltr">{escape(tokens[idx].content)}</code>'

    def math_inline(_renderer: Any, tokens: list[Token], idx: int, _options: Any, _env: Any) -> str:
        # `$$…$$` within a paragraph is displayed, but stays inside its paragraph.
        display = tokens[idx].type == "math_inline_double"
        return _math(tokens[idx].content, display=display, inline=True)

    def math_block(_renderer: Any, tokens: list[Token], idx: int, _options: Any, _env: Any) -> str:
        return _math(tokens[idx].content, display=True, inline=False)

    md.add_render_rule("math_inline", math_inline)
    md.add_render_rule("math_inline_double", math_inline)
    md.add_render_rule("math_block", math_block)
    md.add_render_rule("fence", fence)
    md.add_render_rule("code_block", fence)
    md.add_render_rule("code_inline", code_inline)
    return md


@lru_cache(maxsize=8)
def _parser_for(lang: str) -> MarkdownIt:
    return _parser(lang)


def markdown_syntax() -> MarkdownIt:
    """A parser of the Markdown `render_markdown` reads, with its rules and limits, for code
    that renders it otherwise (the QTI export's XHTML replaces its render rules)."""
    return _parser("en")


def render_markdown(text: str, *, lang: str) -> SafeString:
    """`text` (Markdown) as sanitised HTML, labelled for a page in `lang`."""
    if not text:
        return SafeString("")
    html = sanitise(_parser_for(lang).render(text)).strip()
    # Apostrophes escaped as Django's templates escape them, so a plain text renders as it did
    # before Markdown (attributes are double-quoted: the entity is right there too).
    return mark_safe(html.replace("'", "&#x27;"))  # noqa: S308 - sanitised just above


@lru_cache(maxsize=2048)
def render_cached(text: str, lang: str) -> SafeString:
    """`render_markdown` for texts read outside the cached quiz content (a quiz's
    description in the catalogue, a choice loaded with an answer): once per text and process."""
    return render_markdown(text, lang=lang)


def unwrap_paragraph(html: str) -> str:
    """A lone paragraph's content, for places that hold phrasing content (a heading, a label);
    anything with more structure is returned whole."""
    stripped = html.strip()
    if stripped.startswith("<p>") and stripped.endswith("</p>") and stripped.count("<p>") == 1:
        return stripped[3:-4]
    return html


def code_stylesheet() -> str:
    """The stylesheet for highlighted code, light and dark (static/css/code.css)."""

    def rules(style: str) -> list[str]:
        formatter = HtmlFormatter(style=style, classprefix=TOKEN_PREFIX)
        return formatter.get_background_style_defs("pre.code") + formatter.get_token_style_defs(
            "pre.code"
        )

    light = "\n".join(rules(LIGHT_STYLE))
    dark = "\n".join("  " + line for line in rules(DARK_STYLE))
    return (
        "/* Generated by `make code-css` from Pygments' styles "
        f"({LIGHT_STYLE}, {DARK_STYLE}); do not edit. */\n"
        f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n"
    )


def prerender(obj: Any, fields: tuple[str, ...]) -> None:
    """Render `obj`'s translated `fields` in every language once, onto `obj.rendered`; the
    cached quiz content keeps them with the objects (see quizzes/content.py)."""
    obj.rendered = {
        (field, code): render_markdown(value, lang=code)
        for field in fields
        for code, _name in settings.LANGUAGES
        if (value := getattr(obj, f"{field}_{code}", ""))
    }


def rendered(obj: Any, field: str, lang: str, value: str) -> SafeString:
    """`obj`'s `field` in `lang` (whose text is `value`) as HTML, rendered beforehand when it
    came from the cached content."""
    html = getattr(obj, "rendered", {}).get((field, lang))
    return html if html is not None else render_cached(value, lang)


# Backslash-escaping ASCII punctuation is literal in CommonMark: these can start or end markup
# anywhere (math's `$` and tables' `|` among them; `~~` and an autolink's `<x` too), the
# others only at the start of a line.
_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]$|]|~(?=~)|<(?=[A-Za-z]))")
_MARKDOWN_LINE_START = re.compile(r"^([ \t]*)([#>+\-=]|[0-9]+[.)])", re.MULTILINE)
_ENTITY = re.compile(r"&(?=#?[0-9A-Za-z]+;)")


def markdown_escape(plain: str) -> str:
    """Plain text (GIFT's [plain], or HTML read as text) as Markdown showing that very text."""
    text = _ENTITY.sub(r"\\&", _MARKDOWN_INLINE.sub(r"\\\1", plain))
    return _MARKDOWN_LINE_START.sub(lambda m: m[1] + m[2][:-1] + "\\" + m[2][-1], text)
