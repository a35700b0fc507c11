"""Rich text across formats: other systems' HTML as the site's Markdown (`html_to_markdown`),
and the site's Markdown as XHTML for QTI (`markdown_to_xhtml`).

HTML comes in as the Markdown that renders it (quizzes/text.py): paragraphs, line breaks,
emphasis, code and code blocks (with their language), links (http, https and mailto), lists,
quotes, rules, tables and math (MathML with its TeX, or TeX between `\\(…\\)`, `\\[…\\]` or
`$$…$$`). Headings become bold paragraphs; superscript and subscript digits become their
Unicode forms. Images are taken out for the caller, which puts the first one on the question,
the explanation or the choice the text belongs to. What Markdown cannot hold (scripts, frames,
media, forms, links elsewhere, MathML without its TeX) is dropped and listed in `dropped`,
for the import's report; formatting alone (colours, fonts, underlining) goes silently.

Text is escaped where Markdown would read it as markup, and only there: the unescaped text is
kept whenever it renders the same. So Markdown written as `markdown_to_xhtml` renders it comes
back as written, in its plain form (`*em*`, `**strong**`, `- item`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import escape as html_escape
from typing import Any
from urllib.parse import urlsplit

import lxml.html
from latex2mathml.converter import convert_to_element as latex_to_mathml
from lxml import etree

from ...text import markdown_escape, markdown_syntax, render_markdown
from .safety import local

MATHML = "http://www.w3.org/1998/Math/MathML"
LINK_SCHEMES = {"http", "https", "mailto"}

_BLOCK = {
    "p", "div", "section", "article", "header", "footer", "aside", "main", "nav", "center",
    "address", "figure", "figcaption", "details", "summary", "dl", "dt", "dd", "fieldset",
    "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "ul", "ol", "li", "pre", "table", "hr",
    "body", "html", "form",
}  # fmt: skip
_DROPPED = {
    "script", "style", "iframe", "object", "embed", "video", "audio", "canvas", "svg", "form",
    "input", "button", "select", "textarea", "noscript", "template", "applet", "frame",
    "frameset", "map", "source", "track", "picture",
}  # fmt: skip
_SILENT = {"head", "meta", "link", "title", "base"}
_SUPERSCRIPT = str.maketrans("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ")
_SUBSCRIPT = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")
_SPACES = re.compile(r"[ \t\r\n\f\u00a0]+")
_DOUBLE_SPACES = re.compile(r" {2,}")
_CHAR_REFERENCE = re.compile(r"&#x([0-9A-Fa-f]+);")
# TeX between Moodle's MathJax delimiters, as the site writes math.
_TEX_INLINE = re.compile(r"\\\((.+?)\\\)", re.DOTALL)
_TEX_DISPLAY = re.compile(r"\\\[(.+?)\\\]", re.DOTALL)


@dataclass(frozen=True, slots=True)
class ImageRef:
    src: str
    alt: str


@dataclass(slots=True)
class Converted:
    markdown: str
    images: list[ImageRef] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def parse_html(html: str) -> etree._Element:
    """An HTML fragment (or page) as an element holding it (libxml2's HTML parser, which reads
    no DTD and nothing outside the text)."""
    if not html.strip():
        return lxml.html.fragment_fromstring("<div></div>")
    return lxml.html.fragment_fromstring(html, create_parent="div")


def html_to_markdown(html: str | etree._Element) -> Converted:
    """`html` (a string, or an element whose content it is) as the site's Markdown."""
    element = parse_html(html) if isinstance(html, str) else html
    escaped = _Converter(escape=True)
    markdown = escaped.convert(element)
    plain = _Converter(escape=False).convert(element)
    if plain != markdown and _renders_the_same(plain, markdown):
        markdown = plain
    return Converted(markdown=markdown, images=escaped.images, dropped=escaped.dropped)


def html_to_text(html: str | etree._Element) -> Converted:
    """`html` as one line of plain text (for accepted answers, pairs, items and titles)."""
    element = parse_html(html) if isinstance(html, str) else html
    converter = _Converter(escape=False, plain=True)
    text = converter.inline_children(element)
    return Converted(
        markdown=_SPACES.sub(" ", text).strip(),
        images=converter.images,
        dropped=converter.dropped,
    )


def _renders_the_same(one: str, other: str) -> bool:
    return render_markdown(one, lang="en") == render_markdown(other, lang="en")


def tex_to_dollars(text: str) -> str:
    """Moodle's MathJax delimiters, `\\(…\\)` and `\\[…\\]`, as the site's `$…$` and `$$…$$`."""
    if "\\(" not in text and "\\[" not in text:
        return text
    text = _TEX_DISPLAY.sub(lambda m: f"$${m[1].strip()}$$", text)
    return _TEX_INLINE.sub(lambda m: f"${m[1].strip()}$", text)


class _Converter:
    def __init__(self, *, escape: bool, plain: bool = False) -> None:
        self.escape = escape
        self.plain = plain
        self.images: list[ImageRef] = []
        self.dropped: list[str] = []

    def convert(self, element: etree._Element) -> str:
        return "\n\n".join(block for block in self.blocks(element) if block)

    def drop(self, what: str) -> None:
        if what not in self.dropped:
            self.dropped.append(what)

    # --- Text --------------------------------------------------------------------------------

    def text(self, value: str | None) -> str:
        if not value:
            return ""
        value = _SPACES.sub(" ", value)
        if self.plain:
            return value
        if "$$" in value or "\\(" in value or "\\[" in value:
            # TeX typed between MathJax's delimiters is math in Moodle: it stays math here.
            return "".join(
                piece if index % 2 else self._escape(piece)
                for index, piece in enumerate(_math_pieces(value))
            )
        return self._escape(value)

    def _escape(self, value: str) -> str:
        return markdown_escape(value) if self.escape else value

    # --- Blocks ------------------------------------------------------------------------------

    def blocks(self, element: etree._Element) -> list[str]:
        items: list[str] = []
        run: list[str] = [self.text(element.text)]

        def flush() -> None:
            paragraph = _tidy("".join(run))
            if paragraph:
                items.append(paragraph)
            run.clear()

        for node in element:
            name = local(node)
            if name in _BLOCK and name not in _DROPPED:
                flush()
                items.extend(block for block in self.block(node, name) if block)
            elif name == "br":
                run.append("\n")
            else:
                run.append(self.inline(node, name))
            run.append(self.text(node.tail))
        flush()
        return items

    def block(self, node: etree._Element, name: str) -> list[str]:
        if name in ("h1", "h2", "h3", "h4", "h5", "h6"):
            return [_wrap("**", _tidy(self.inline_children(node)))]
        if name == "blockquote":
            inner = "\n\n".join(self.blocks(node))
            return ["\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))]
        if name in ("ul", "ol"):
            return [self.listing(node, ordered=name == "ol")]
        if name == "pre":
            return [self.code_block(node)]
        if name == "table":
            return [self.table(node)]
        if name == "hr":
            return ["---"]
        return self.blocks(node)

    def listing(self, node: etree._Element, *, ordered: bool) -> str:
        try:
            number = int(node.get("start") or 1) if ordered else 1
        except ValueError:
            number = 1
        items, loose = [], False
        for item in node:
            if not isinstance(item.tag, str):
                continue
            marker = f"{number}." if ordered else "-"
            body = self.blocks(item) if local(item) == "li" else [self.inline(item, local(item))]
            # Paragraphs make a list loose; a nested list alone keeps it tight.
            paragraphs = any(local(child) == "p" for child in item)
            loose = loose or paragraphs
            lines = ("\n\n" if paragraphs else "\n").join(body).split("\n") if body else [""]
            indent = " " * (len(marker) + 1)
            rest = [indent + line if line else "" for line in lines[1:]]
            items.append("\n".join([f"{marker} {lines[0]}".rstrip(), *rest]))
            number += 1
        return ("\n\n" if loose else "\n").join(items)

    def code_block(self, node: etree._Element) -> str:
        code = next((c for c in node if local(c) == "code"), None)
        language = ""
        for holder in (code, node):
            if holder is None:
                continue
            for name in (holder.get("class") or "").split():
                if name.startswith("language-"):
                    language = name.removeprefix("language-")
        text = (code if code is not None else node).xpath("string()").rstrip("\n")
        fence = "```"
        while fence in text:
            fence += "`"
        return f"{fence}{language}\n{text}\n{fence}"

    def table(self, node: etree._Element) -> str:
        rows = [row for row in node.iter() if local(row) == "tr"]
        if not rows:
            return _tidy(self.inline_children(node))
        grid = []
        aligns: list[str] = []
        for index, row in enumerate(rows):
            cells = [cell for cell in row if local(cell) in ("td", "th")]
            grid.append([_tidy(self.inline_children(cell)).replace("\n", " ") for cell in cells])
            if index == 0:
                aligns = [_alignment(cell) for cell in cells]
        width = max(len(row) for row in grid) or 1
        aligns += [""] * (width - len(aligns))
        delimiter = {"left": ":---", "center": ":---:", "right": "---:"}
        lines = []
        for index, row in enumerate(grid):
            row = row + [""] * (width - len(row))
            lines.append("| " + " | ".join(row) + " |")
            if index == 0:
                lines.append("| " + " | ".join(delimiter.get(a, "---") for a in aligns) + " |")
        return "\n".join(lines)

    # --- Inline ------------------------------------------------------------------------------

    def inline_children(self, node: etree._Element) -> str:
        pieces = [self.text(node.text)]
        for child in node:
            name = local(child)
            if name == "br":
                pieces.append(" " if self.plain else "\n")
            elif name in _BLOCK and name not in _DROPPED:
                pieces.append(" " + self.inline_children(child) + " ")
            else:
                pieces.append(self.inline(child, name))
            pieces.append(self.text(child.tail))
        return "".join(pieces)

    def inline(self, node: etree._Element, name: str) -> str:
        if not isinstance(node.tag, str):
            return ""
        if name in _SILENT:
            return ""
        if name in _DROPPED:
            self.drop(f"<{name}>")
            return ""
        if name == "img":
            self.images.append(ImageRef(src=node.get("src") or "", alt=node.get("alt") or ""))
            return ""
        if name == "math":
            return self.math(node)
        content = self.inline_children(node)
        if self.plain:
            return content
        if name in ("strong", "b"):
            return _wrap("**", content)
        if name in ("em", "i", "cite", "dfn", "var"):
            return _wrap("*", content)
        if name in ("del", "s", "strike") or "strikethrough" in (node.get("class") or ""):
            return _wrap("~~", content)
        if name in ("code", "tt", "kbd", "samp"):
            return _code_span(node.xpath("string()"))
        if name == "a":
            return self.link(node, content)
        if name in ("sup", "sub"):
            return self.script(node, name)
        return content

    def link(self, node: etree._Element, label: str) -> str:
        href = (node.get("href") or "").strip()
        label = label.strip()
        if not href:
            return label
        scheme = urlsplit(href).scheme.lower()
        if scheme not in LINK_SCHEMES:
            self.drop(f"<a href=“{href[:80]}”>")
            return label
        destination = href.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
        plain = not label or node.xpath("string()").strip() == href
        if plain and "<" not in destination and ">" not in destination:
            return f"<{destination}>"
        return f"[{label or self._escape(href)}]({destination})"

    def script(self, node: etree._Element, name: str) -> str:
        text = _SPACES.sub(" ", node.xpath("string()")).strip()
        table = _SUPERSCRIPT if name == "sup" else _SUBSCRIPT
        converted = text.translate(table)
        if text and all(a != b for a, b in zip(text, converted, strict=True)):
            return converted
        self.drop(f"<{name}>")
        return self._escape(text)

    def math(self, node: etree._Element) -> str:
        tex = ""
        for annotation in node.iter():
            if (
                local(annotation) == "annotation"
                and "tex" in (annotation.get("encoding") or "").lower()
            ):
                tex = (annotation.text or "").strip()
        if not tex:
            self.drop("MathML")
            return self._escape(_SPACES.sub(" ", node.xpath("string()")).strip())
        if self.plain:
            return tex
        return f"$${tex}$$" if node.get("display") == "block" else f"${tex}$"


def _math_pieces(value: str) -> list[str]:
    """`value` cut into text and math, alternately (math at the odd indexes)."""
    converted = tex_to_dollars(value)
    pieces = re.split(r"(\$\$.+?\$\$|(?<![\\$])\$[^$\s][^$]*?(?<![\\\s])\$(?!\$))", converted)
    return pieces


def _tidy(text: str) -> str:
    lines = [_DOUBLE_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return "\n".join(lines).strip("\n")


def _wrap(marker: str, content: str) -> str:
    core = content.strip()
    if not core:
        return content
    lead = content[: len(content) - len(content.lstrip())]
    trail = content[len(content.rstrip()) :]
    return f"{lead}{marker}{core}{marker}{trail}"


def _code_span(text: str) -> str:
    text = text.replace("\n", " ")
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _alignment(cell: etree._Element) -> str:
    classes = cell.get("class") or ""
    for side in ("left", "center", "right"):
        if f"align-{side}" in classes:
            return side
    style = (cell.get("style") or "").replace(" ", "").lower()
    match = re.search(r"text-align:(left|center|right)", style)
    return match[1] if match else (cell.get("align") or "").lower()


# --- Markdown as XHTML (QTI) -----------------------------------------------------------------

_XHTML_TAGS = {
    "p", "br", "em", "strong", "code", "pre", "a", "ul", "ol", "li", "blockquote", "hr",
    "table", "thead", "tbody", "tr", "th", "td", "span", "div",
}  # fmt: skip
# MathML 2's attributes that latex2mathml writes and the QTI 2.1 schema's MathML accepts.
_MATHML_ATTRIBUTES = {
    "mathvariant", "stretchy", "fence", "separator", "lspace", "rspace", "form", "largeop",
    "movablelimits", "accent", "accentunder", "displaystyle", "scriptlevel", "linethickness",
    "columnalign", "rowspacing", "columnspacing", "width", "minsize", "maxsize", "symmetric",
}  # fmt: skip


def _export_parser() -> Any:
    md = markdown_syntax()

    def fence(_r: Any, tokens: list[Any], idx: int, _o: Any, _e: Any) -> str:
        name = tokens[idx].info.split()[0] if tokens[idx].info.strip() else ""
        language = f' class="language-{html_escape(name)}"' if name else ""
        return f"<pre><code{language}>{html_escape(tokens[idx].content)}</code></pre>\n"

    def code_inline(_r: Any, tokens: list[Any], idx: int, _o: Any, _e: Any) -> str:
        return f"<code>{html_escape(tokens[idx].content)}</code>"

    def math(display: str) -> Any:
        def rule(_r: Any, tokens: list[Any], idx: int, _o: Any, _e: Any) -> str:
            shown = "block" if tokens[idx].type != "math_inline" else display
            tex = html_escape(tokens[idx].content.strip())
            element = f'<daleel-math data-display="{shown}">{tex}</daleel-math>'
            return f"<div>{element}</div>\n" if tokens[idx].type == "math_block" else element

        return rule

    md.add_render_rule("fence", fence)
    md.add_render_rule("code_block", fence)
    md.add_render_rule("code_inline", code_inline)
    md.add_render_rule("math_inline", math("inline"))
    md.add_render_rule("math_inline_double", math("block"))
    md.add_render_rule("math_block", math("block"))
    return md


_EXPORT_PARSER: Any = None


def markdown_to_xhtml(text: str, *, namespace: str, container: etree._Element) -> None:
    """Append `text` (the site's Markdown) to `container` as XHTML elements of `namespace`
    (QTI's), with math as MathML carrying its TeX."""
    global _EXPORT_PARSER
    if _EXPORT_PARSER is None:
        _EXPORT_PARSER = _export_parser()
    html = _EXPORT_PARSER.render(text) if text else ""
    source = parse_html(html)
    _copy_children(source, container, namespace)


def _append_text(target: etree._Element, text: str | None) -> None:
    if not text:
        return
    if len(target):
        target[-1].tail = (target[-1].tail or "") + text
    else:
        target.text = (target.text or "") + text


def _copy_children(source: etree._Element, target: etree._Element, namespace: str) -> None:
    _append_text(target, source.text)
    for node in source:
        name = local(node)
        if name == "daleel-math":
            target.append(_mathml(node.text or "", display=node.get("data-display") or ""))
        elif name in ("del", "s"):
            copied = etree.SubElement(target, f"{{{namespace}}}span", {"class": "strikethrough"})
            _copy_children(node, copied, namespace)
        elif name in _XHTML_TAGS:
            attributes = {}
            if name == "a" and node.get("href"):
                attributes["href"] = node.get("href")
            if node.get("class") and name in ("code", "th", "td"):
                attributes["class"] = node.get("class")
            copied = etree.SubElement(target, f"{{{namespace}}}{name}", attributes)
            _copy_children(node, copied, namespace)
        else:
            _copy_children(node, target, namespace)
        _append_text(target, node.tail)


def _mathml(tex: str, *, display: str) -> etree._Element:
    """TeX as MathML 2 (presentation by latex2mathml, and the TeX as its annotation)."""
    math = etree.Element(f"{{{MATHML}}}math", {"display": display or "inline"})
    semantics = etree.SubElement(math, f"{{{MATHML}}}semantics")
    try:
        tree = latex_to_mathml(tex, display=display or "inline")
    except Exception:  # noqa: BLE001 - TeX latex2mathml cannot read keeps only its annotation
        tree = None
    presentation = etree.SubElement(semantics, f"{{{MATHML}}}mrow")
    if tree is not None:
        for node in list(tree):
            presentation.append(_mathml_copy(node))
    annotation = etree.SubElement(
        semantics, f"{{{MATHML}}}annotation", {"encoding": "application/x-tex"}
    )
    annotation.text = tex
    return math


def _mathml_copy(node: Any) -> etree._Element:
    name = node.tag.rpartition("}")[2]
    attributes = {k: v for k, v in node.attrib.items() if k in _MATHML_ATTRIBUTES}
    copied = etree.Element(f"{{{MATHML}}}{name}", attributes)
    if node.text:
        copied.text = _CHAR_REFERENCE.sub(lambda m: chr(int(m[1], 16)), node.text)
    for child_node in node:
        copied.append(_mathml_copy(child_node))
        if child_node.tail:
            copied[-1].tail = child_node.tail
    return copied
