"""The text layer of reading GIFT: items, escapes, HTML as plain text, multilang markup.

Every step here runs in time linear in its input, so that a hostile or broken file of the
upload limit is read in about the time a well-formed one takes. The rules that keep it so:

- no regular expression may cross an unbounded span more than once: a pattern that starts
  at `<` stops at the next `<` or `>` (`[^<>]*`, never `[^>]*`, which runs on through every
  later tag), one that starts at `{` stops at the next brace, and none has two adjacent
  repetitions that can trade characters (`\\s*\\n\\s*` over a long run of spaces);
- markup that opens and closes (`<script>`…`</script>`, multilang spans, `{mlang}`) is
  paired in one pass over its tags with a stack or a queue, never by searching forward from
  each opening tag (unclosed openings then cost a search to the end each);
- line numbers are kept per line, not per character.

tests/instructors/test_gift_linear_time.py times the pathological inputs against a plain
file of the same size.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

# --- Items, escapes and line numbers ---------------------------------------------------------

# An escaped control character becomes a private-use character while the question's
# structure is parsed, then goes back to the literal character in the text.
_CONTROL = ":#={}~"
_PLACEHOLDER = {char: chr(0xE000 + ord(char)) for char in _CONTROL + "\\"}
_LITERAL = {placeholder: char for char, placeholder in _PLACEHOLDER.items()}
_UNESCAPE = str.maketrans(_LITERAL)
_PROTECT = str.maketrans({char: _PLACEHOLDER[char] for char in _CONTROL})
_ESCAPE = re.compile(r"\\([:#={}~\\n])")

# Markup whose control characters are never GIFT syntax, escaped or not: HTML tags (a
# hand-written `<span lang="ar" ...>` inside an answer), character references (`&#1575;`)
# and multilang2's `{mlang ar}` tags.
_LITERAL_MARKUP = re.compile(
    r"<[A-Za-z/!][^<>{}\n]*>|&#[0-9]+;|&#[xX][0-9A-Fa-f]+;|\{mlang(?:\s[^{}]*)?\}", re.IGNORECASE
)


_BRACES = re.compile(r"[{}]")


def _unescape_one(match: re.Match) -> str:
    char = match.group(1)
    return "\n" if char == "n" else _PLACEHOLDER[char]


def unescape(text: str) -> str:
    """Placeholders back to the literal characters they stand for."""
    return text.translate(_UNESCAPE)


@dataclass(slots=True)
class Block:
    """One item of the file (a question, a description, a category), escapes replaced."""

    text: str
    # Where each source line starts in `text`, and its number in the file.
    starts: list[int] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)

    def line_at(self, index: int) -> int:
        if not self.numbers:
            return 0
        return self.numbers[max(bisect_right(self.starts, max(index, 0)) - 1, 0)]

    def tail(self, offset: int) -> Block:
        """The item from `offset` on, its line numbers kept."""
        kept = [
            (start - offset, n)
            for start, n in zip(self.starts, self.numbers, strict=True)
            if start >= offset
        ]
        if not kept or kept[0][0] != 0:
            kept.insert(0, (0, self.line_at(offset)))
        return Block(self.text[offset:], [s for s, _n in kept], [n for _s, n in kept])


def _protected(text: str) -> str:
    return _LITERAL_MARKUP.sub(lambda m: m.group(0).translate(_PROTECT), text)


def blocks(source: str) -> Iterator[Block]:
    """Split the file into items, dropping `//` comment lines: one at a time, so that a reader
    who stops early (too many questions) leaves the rest unread.

    Items are separated by blank lines, and, as Moodle reads files written without them, by a
    line that starts a question's name (`::name::`), or a comment line after a question's
    answer block has closed: a comment inside a question (before or in its answers) is only
    dropped.
    """
    found: list[Block] = []
    parts: list[str] = []
    starts: list[int] = []
    numbers: list[int] = []
    length = 0
    depth = 0  # braces open in the item so far
    answered = False  # an answer block of the item has closed

    def close() -> None:
        nonlocal length, depth, answered
        if parts:
            found.append(Block(_protected("".join(parts)), starts.copy(), numbers.copy()))
            parts.clear()
            starts.clear()
            numbers.clear()
            length = 0
        depth, answered = 0, False

    for number, line in enumerate(source.split("\n"), start=1):
        stripped = line.strip()
        if not stripped:
            close()
            yield from found
            found.clear()
            continue
        if stripped.startswith("//"):
            if answered and depth == 0:
                close()
                yield from found
                found.clear()
            continue
        if stripped.startswith("::") and parts:
            close()
            yield from found
            found.clear()
        if parts:
            parts.append("\n")
            length += 1
        escaped = _ESCAPE.sub(_unescape_one, stripped)
        for brace in _BRACES.findall(_protected(escaped)):
            if brace == "{":
                depth += 1
            elif depth:
                depth -= 1
                answered = answered or depth == 0
        starts.append(length)
        numbers.append(number)
        parts.append(escaped)
        length += len(escaped)
    close()
    yield from found


def escape(text: str) -> str:
    """Escape GIFT's control characters the way Moodle's exporter does."""
    text = text.replace("\\", "\\\\")
    for char in "#=~{}:":
        text = text.replace(char, "\\" + char)
    text = text.replace("\r", "").replace("\n", "\\n")
    if _OPEN_TAG_AT_END.search(text):
        # "<a" then the writer's "#feedback" would read back as the tag "<a#...>", which is
        # kept literal (_LITERAL_MARKUP): a line break ends the tag, and reading trims it.
        text += "\\n"
    return text


# The start of a tag that the next characters the writer puts (`#`, `~`, `=`) could close.
_OPEN_TAG_AT_END = re.compile(r"<[A-Za-z/!](?:[^<>{}\\]|\\[^n])*\Z")


# --- Text formats ----------------------------------------------------------------------------

_FORMAT_PREFIX = re.compile(r"\[(html|moodle|plain|markdown)\]", re.IGNORECASE)


def format_of(raw: str, default: str) -> tuple[str, str]:
    """A text's format prefix (`[html]`, `[moodle]`, `[plain]`, `[markdown]`), or `default`
    without one, and the text after it."""
    raw = raw.strip()
    if raw.startswith("[") and (match := _FORMAT_PREFIX.match(raw)):
        return match.group(1).lower(), raw[match.end() :]
    return default, raw


# --- Plain text --------------------------------------------------------------------------------

_NEWLINES = re.compile(r"[\r\n]+")
_LINE_FEEDS = re.compile(r"\n+")
_EMPTY_LINES = re.compile(r"\n{3,}")


def normalize(text: str) -> str:
    """The plain text the site stores: lines trimmed, at most one empty line in a row."""
    if "\n" not in text and "\r" not in text:
        return text.strip()
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = "\n".join(line.strip() for line in text.split("\n"))
    return _EMPTY_LINES.sub("\n\n", text).strip()


def normalize_line(text: str) -> str:
    """Like `normalize`, for one-line fields (a choice's text): line breaks become spaces."""
    # Lines are trimmed already, so only line breaks sit around a line break.
    return _LINE_FEEDS.sub(" ", normalize(text))


def _join_lines(value: str) -> str:
    """Each line break, with the spaces and tabs around it, as one space (HTML's reading)."""
    pieces = _NEWLINES.split(value)
    if len(pieces) == 1:
        return value
    last = len(pieces) - 1
    return " ".join(
        piece.rstrip(" \t") if i == 0 else piece.lstrip(" \t") if i == last else piece.strip(" \t")
        for i, piece in enumerate(pieces)
    )


# --- HTML as plain text --------------------------------------------------------------------

# `<script` or `<style` opening (Moodle drops them with their content) and their closing tags.
_SCRIPT_MARK = re.compile(r"<(?:(script|style)\b|/(script|style)\s*>)", re.IGNORECASE)
_LINE_BREAK = re.compile(r"<br\b[^<>]*>", re.IGNORECASE)
_PARAGRAPH = re.compile(r"</?(?:p|h[1-6]|blockquote|pre|ul|ol|table)\b[^<>]*>", re.IGNORECASE)
_BLOCK = re.compile(r"</?(?:div|li|tr|dt|dd)\b[^<>]*>", re.IGNORECASE)
_BLOCK_RUN = re.compile(r"\x00(?:\s*\x00)*")
_TAG = re.compile(r"<[A-Za-z/!][^<>]*>")
_SUP_OR_SUB = re.compile(r"<(sup|sub)\b[^<>]*>([^<]*)</\1\s*>", re.IGNORECASE)
_SCRIPT_DIGITS = {
    "sup": str.maketrans("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ"),
    "sub": str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎"),
}
# A numeric character reference too long for int() (over 4,300 digits it raises); past
# U+10FFFF html.unescape gives the replacement character, so these do too.
_LONG_CHARREF = re.compile(r"&#(?:([0-9]{8,})|[xX]([0-9A-Fa-f]{7,}));?")


def _drop_scripts(value: str) -> str:
    """`<script>…</script>` and `<style>…</style>` removed; an unclosed one stays as text."""
    closings: dict[str, deque[re.Match]] = {"script": deque(), "style": deque()}
    openings = []
    for mark in _SCRIPT_MARK.finditer(value):
        if mark.group(1):
            openings.append(mark)
        else:
            closings[mark.group(2).lower()].append(mark)
    out, cursor = [], 0
    for opening in openings:
        if opening.start() < cursor:  # inside a part already removed
            continue
        pending = closings[opening.group(1).lower()]
        while pending and pending[0].start() < opening.end():
            pending.popleft()
        if not pending:  # never closed (nor is any later one of its kind)
            continue
        out.append(value[cursor : opening.start()])
        cursor = pending.popleft().end()
    out.append(value[cursor:])
    return "".join(out)


def _sup_or_sub(match: re.Match) -> str:
    """`10<sup>8</sup>` as 10⁸ and `H<sub>2</sub>O` as H₂O, rather than 108 and H2O."""
    kind, content = match.group(1).lower(), match.group(2)
    table = _SCRIPT_DIGITS[kind]
    if content and all(ord(char) in table for char in content):
        return content.translate(table)
    return ("^" if kind == "sup" else "_") + content


def _long_charref(match: re.Match) -> str:
    decimal, hexadecimal = match.groups()
    digits = (decimal or hexadecimal).lstrip("0")
    if len(digits) > (7 if decimal else 6):
        return "\ufffd"
    return f"&#{digits or '0'};" if decimal else f"&#x{digits or '0'};"


def html_to_text(value: str, *, keep_newlines: bool = False) -> str:
    """HTML as plain text: tags dropped, breaks and paragraphs kept as line breaks.

    `keep_newlines` is Moodle's auto-format, where a typed line break is a break too.
    """
    if "<" not in value and "&" not in value:  # no markup: only the spacing to mend
        return normalize(value if keep_newlines else _join_lines(value))
    value = _drop_scripts(value)
    if not keep_newlines:
        value = _join_lines(value)
    value = _SUP_OR_SUB.sub(_sup_or_sub, value)
    value = _LINE_BREAK.sub("\n", value)
    value = _PARAGRAPH.sub("\n\n", value)
    # Adjacent block tags (`</li><li>`) make one line break, not an empty line.
    value = _BLOCK_RUN.sub("\n", _BLOCK.sub("\x00", value))
    value = _TAG.sub("", value)
    return normalize(html.unescape(_LONG_CHARREF.sub(_long_charref, value)))


def text_to_html(value: str) -> str:
    return html.escape(value, quote=False).replace("\n", "<br>")


# --- Multilang -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bilingual:
    en: str = ""
    ar: str = ""

    def __bool__(self) -> bool:
        return bool(self.en or self.ar)


# Every `<span>`/`<lang>` tag, opening or closing: multilang blocks nest other spans.
_SPAN_TAG = re.compile(r"<(/?)(span|lang)\b([^<>]*)>", re.IGNORECASE)
_LANG_ATTRIBUTE = re.compile(r"\blang\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
_MULTILANG_CLASS = re.compile(r"\bclass\s*=\s*[\"'][^\"']*\bmultilang\b", re.IGNORECASE)
# filter_multilang2: `{mlang en,fr}` opens, `{mlang}` closes.
_MLANG_TAG = re.compile(r"\{mlang(\s[^{}]*)?\}", re.IGNORECASE)

_Piece = tuple[int, int, list[str], str]  # start, end, languages, content


def _language(code: str) -> str:
    return code.strip().lower().replace("-", "_").split("_")[0]


def _span_blocks(value: str) -> list[_Piece]:
    """Multilang `<span lang class="multilang">` / `<lang lang>` blocks, nested tags allowed."""
    # Pair every opening tag with its closing one, one stack per tag name.
    closing_of: dict[int, re.Match] = {}
    stacks: dict[str, list[re.Match]] = {"span": [], "lang": []}
    openings = []
    for tag in _SPAN_TAG.finditer(value):
        stack = stacks[tag.group(2).lower()]
        if not tag.group(1):
            stack.append(tag)
            openings.append(tag)
        elif stack:
            closing_of[stack.pop().start()] = tag
    found = []
    position = 0
    for opening in openings:
        if opening.start() < position:  # inside a block already taken
            continue
        attributes = opening.group(3)
        language = _LANG_ATTRIBUTE.search(attributes)
        # A plain `<span lang="fr">` marks a language for screen readers; only the
        # multilang class makes it a translation.
        if not language or (
            opening.group(2).lower() == "span" and not _MULTILANG_CLASS.search(attributes)
        ):
            continue
        closing = closing_of.get(opening.start())
        if closing is None:  # Never closed: left as text.
            continue
        content = value[opening.end() : closing.start()]
        found.append((opening.start(), closing.end(), [_language(language.group(1))], content))
        position = closing.end()
    return found


def _mlang_blocks(value: str) -> list[_Piece]:
    """`{mlang xx}…{mlang}` blocks: each opening runs to the next closing tag."""
    found = []
    opening = None
    for tag in _MLANG_TAG.finditer(value):
        languages = tag.group(1)
        if languages is None:  # `{mlang}`
            if opening is not None:
                codes = [_language(code) for code in opening.group(1).strip().split(",")]
                found.append(
                    (opening.start(), tag.end(), codes, value[opening.end() : tag.start()])
                )
                opening = None
        elif opening is None and languages.strip():
            opening = tag
    return found


def split_multilang(value: str) -> Bilingual:
    """Moodle multilang text as its English and Arabic versions.

    Consecutive blocks form a group offering one text per language; text between groups is
    common to both. Arabic is empty unless the markup gives some, so an untranslated text
    stays visibly untranslated instead of being copied.
    """
    if "<" not in value and "{" not in value:
        return Bilingual(en=value, ar="")
    found = _span_blocks(value) + _mlang_blocks(value)
    if not found:
        return Bilingual(en=value, ar="")
    found.sort(key=lambda piece: piece[0])
    segments: list[str | dict[str, str]] = []
    cursor = 0
    for start, end, languages, content in found:
        if start < cursor:  # One kind of markup inside the other: the outer one wins.
            continue
        between = value[cursor:start]
        if segments and isinstance(segments[-1], dict) and not between.strip():
            group = segments[-1]
        else:
            if between:
                segments.append(between)
            group = {}
            segments.append(group)
        for language in languages:
            group.setdefault(language, content)
        cursor = end
    if cursor < len(value):
        segments.append(value[cursor:])
    groups = [s for s in segments if isinstance(s, dict)]
    has_arabic = any("ar" in group for group in groups)
    english = "".join(s if isinstance(s, str) else _pick(s, "en") for s in segments)
    arabic = "".join(s if isinstance(s, str) else _pick(s, "ar") for s in segments)
    return Bilingual(en=english, ar=arabic if has_arabic else "")


def _pick(group: dict[str, str], language: str) -> str:
    if language in group:
        return group[language]
    if "other" in group:
        return group["other"]
    if language == "ar":
        # A group without Arabic inside an otherwise Arabic text: Moodle shows its first text.
        return group.get("en", next(iter(group.values())))
    return next((text for code, text in group.items() if code != "ar"), "")
