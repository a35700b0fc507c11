"""Moodle's GIFT quiz format: a parser and a writer for single-answer multiple choice.

Pure functions over plain data, no database: `imports` and `exports` beside it move
the data in and out of the models.

What is read, following Moodle's own parser (question/format/gift/format.php):

- questions are separated by blank lines; lines starting with `//` are comments;
- `$CATEGORY: path` names the quiz (its last path segment); `::name::` is read and dropped;
- `[html]`, `[moodle]` (the default), `[plain]` and `[markdown]` set the text's format:
  HTML is turned into plain text (the site shows plain text), `[moodle]` does the same but
  keeps line breaks, `[plain]` and `[markdown]` are kept as written;
- `{= right ~ wrong #feedback ####general feedback}`; answers may use Moodle's weights
  `%100%` (right), `%0%` (wrong) and negative ones (wrong: the site has no negative
  marking, and says so); the general feedback becomes the explanation;
- text around the answer block ("missing word") gets a `_____` blank where the block was;
- escapes `\\~ \\= \\# \\{ \\} \\: \\\\` and `\\n` (a line break);
- bilingual text through Moodle's multilang markup, `<span lang="ar" class="multilang">…</span>`
  (or the older `<lang lang="ar">…</lang>`) and filter_multilang2's `{mlang ar}…{mlang}`.
  Text outside the markup belongs to both languages; text with no markup is English.

Other question types (essay, numerical, matching, true/false, short answer, multiple
answers, or partial credit: a weight between 0 and 100) are reported and skipped. Anything
malformed is an error; the importer writes nothing from a file with errors.

The writer produces what the parser reads back unchanged: every text as `[html]` with the
Arabic in multilang spans, escaped the way Moodle escapes, so Moodle can import it too.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from ..models import validate_choice_set

BLANK = "_____"
CHOICE_TEXT_MAX_LENGTH = 500
TITLE_MAX_LENGTH = 200


@dataclass(frozen=True)
class Bilingual:
    en: str = ""
    ar: str = ""

    def __bool__(self) -> bool:
        return bool(self.en or self.ar)


@dataclass
class GiftChoice:
    text: Bilingual
    is_correct: bool
    feedback: Bilingual = field(default_factory=Bilingual)
    line: int = 0


@dataclass
class GiftQuestion:
    prompt: Bilingual
    choices: list[GiftChoice]
    explanation: Bilingual = field(default_factory=Bilingual)
    name: str = ""
    line: int = 0


@dataclass(frozen=True)
class Problem:
    """Something to tell the instructor about one place in the file (line 0: the whole file)."""

    line: int
    message: str

    def __str__(self) -> str:
        if self.line:
            return _("Line %(line)d: %(message)s") % {"line": self.line, "message": self.message}
        return self.message


@dataclass
class GiftDocument:
    questions: list[GiftQuestion] = field(default_factory=list)
    # From `$CATEGORY:` (the quiz title) and a description item before the first question.
    title: Bilingual = field(default_factory=Bilingual)
    description: Bilingual = field(default_factory=Bilingual)
    description_line: int = 0
    errors: list[Problem] = field(default_factory=list)
    # Questions of a type the site cannot hold: reported, not imported.
    skipped: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)


# --- Escapes -------------------------------------------------------------------------------

# An escaped control character becomes a private-use character while the question's
# structure is parsed, then goes back to the literal character in the text.
_CONTROL = ":#={}~"
_PLACEHOLDER = {char: chr(0xE000 + ord(char)) for char in _CONTROL + "\\"}
_LITERAL = {placeholder: char for char, placeholder in _PLACEHOLDER.items()}
_UNESCAPE = str.maketrans(_LITERAL)
_PROTECT = str.maketrans({char: _PLACEHOLDER[char] for char in _CONTROL})

# Markup whose control characters are never GIFT syntax, escaped or not: HTML tags (a
# hand-written `<span lang="ar" ...>` inside an answer), character references (`&#1575;`)
# and multilang2's `{mlang ar}` tags.
_LITERAL_MARKUP = re.compile(
    r"<[A-Za-z/!][^<>{}\n]*>|&#[0-9]+;|&#[xX][0-9A-Fa-f]+;|\{mlang(?:\s[^{}]*)?\}", re.IGNORECASE
)


def _escape_sequences(text: str, lines: list[int]) -> tuple[str, list[int]]:
    """Replace GIFT's backslash escapes, keeping the source line of every character."""
    out: list[str] = []
    out_lines: list[int] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            following = text[i + 1]
            if following in _PLACEHOLDER:
                out.append(_PLACEHOLDER[following])
                out_lines.append(lines[i])
                i += 2
                continue
            if following == "n":
                out.append("\n")
                out_lines.append(lines[i])
                i += 2
                continue
        out.append(char)
        out_lines.append(lines[i])
        i += 1
    protected = _LITERAL_MARKUP.sub(lambda m: m.group(0).translate(_PROTECT), "".join(out))
    return protected, out_lines


def _unescape(text: str) -> str:
    return text.translate(_UNESCAPE)


def escape(text: str) -> str:
    """Escape GIFT's control characters the way Moodle's exporter does."""
    text = text.replace("\\", "\\\\")
    for char in "#=~{}:":
        text = text.replace(char, "\\" + char)
    return text.replace("\r", "").replace("\n", "\\n")


# --- Text formats and multilang ------------------------------------------------------------

_FORMAT_PREFIX = re.compile(r"\[(html|moodle|plain|markdown)\]", re.IGNORECASE)
_SCRIPT_OR_STYLE = re.compile(r"<(script|style)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_LINE_BREAK = re.compile(r"<br\b[^>]*>", re.IGNORECASE)
_PARAGRAPH = re.compile(r"</?(?:p|h[1-6]|blockquote|pre|ul|ol|table)\b[^>]*>", re.IGNORECASE)
_BLOCK = re.compile(r"</?(?:div|li|tr|dt|dd)\b[^>]*>", re.IGNORECASE)
_TAG = re.compile(r"<[A-Za-z/!][^<>]*>")
_SUP_OR_SUB = re.compile(r"<(sup|sub)\b[^>]*>([^<]*)</\1\s*>", re.IGNORECASE)
_SCRIPT_DIGITS = {
    "sup": str.maketrans("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ"),
    "sub": str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎"),
}


def _sup_or_sub(match: re.Match) -> str:
    """`10<sup>8</sup>` as 10⁸ and `H<sub>2</sub>O` as H₂O, rather than 108 and H2O."""
    kind, content = match.group(1).lower(), match.group(2)
    table = _SCRIPT_DIGITS[kind]
    if content and all(ord(char) in table for char in content):
        return content.translate(table)
    return ("^" if kind == "sup" else "_") + content


def normalize(text: str) -> str:
    """The plain text the site stores: lines trimmed, at most one empty line in a row."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = "\n".join(line.strip() for line in text.split("\n"))
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def normalize_line(text: str) -> str:
    """Like `normalize`, for one-line fields (a choice's text): line breaks become spaces."""
    return re.sub(r"\s*\n\s*", " ", normalize(text))


def html_to_text(value: str, *, keep_newlines: bool = False) -> str:
    """HTML as plain text: tags dropped, breaks and paragraphs kept as line breaks.

    `keep_newlines` is Moodle's auto-format, where a typed line break is a break too.
    """
    value = _SCRIPT_OR_STYLE.sub("", value)
    if not keep_newlines:
        value = re.sub(r"[ \t]*[\r\n]+[ \t]*", " ", value)
    value = _SUP_OR_SUB.sub(_sup_or_sub, value)
    value = _LINE_BREAK.sub("\n", value)
    value = _PARAGRAPH.sub("\n\n", value)
    # Adjacent block tags (`</li><li>`) make one line break, not an empty line.
    value = re.sub(r"\x00(?:\s*\x00)*", "\n", _BLOCK.sub("\x00", value))
    value = _TAG.sub("", value)
    return normalize(html.unescape(value))


def text_to_html(value: str) -> str:
    return html.escape(value, quote=False).replace("\n", "<br>")


_MULTILANG_OPEN = re.compile(r"<(span|lang)\b([^>]*)>", re.IGNORECASE)
_LANG_ATTRIBUTE = re.compile(r"\blang\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
_MULTILANG_CLASS = re.compile(r"\bclass\s*=\s*[\"'][^\"']*\bmultilang\b", re.IGNORECASE)
_MLANG = re.compile(r"\{mlang\s+([^{}]+?)\s*\}(.*?)\{mlang\}", re.IGNORECASE | re.DOTALL)


def _language(code: str) -> str:
    return code.strip().lower().replace("-", "_").split("_")[0]


def _span_blocks(value: str) -> list[tuple[int, int, list[str], str]]:
    """Multilang `<span lang class="multilang">` / `<lang lang>` blocks, nested tags allowed."""
    blocks = []
    position = 0
    while match := _MULTILANG_OPEN.search(value, position):
        tag, attributes = match.group(1).lower(), match.group(2)
        language = _LANG_ATTRIBUTE.search(attributes)
        # A plain `<span lang="fr">` marks a language for screen readers; only the
        # multilang class makes it a translation.
        if not language or (tag == "span" and not _MULTILANG_CLASS.search(attributes)):
            position = match.end()
            continue
        depth, cursor = 1, match.end()
        tags = re.compile(rf"<(/?){tag}\b[^>]*>", re.IGNORECASE)
        while depth and (inner := tags.search(value, cursor)):
            depth += -1 if inner.group(1) else 1
            cursor = inner.end()
        if depth:  # Never closed: leave it as text.
            position = match.end()
            continue
        content = value[match.end() : inner.start()]
        blocks.append((match.start(), cursor, [_language(language.group(1))], content))
        position = cursor
    return blocks


def split_multilang(value: str) -> Bilingual:
    """Moodle multilang text as its English and Arabic versions.

    Consecutive blocks form a group offering one text per language; text between groups is
    common to both. Arabic is empty unless the markup gives some, so an untranslated text
    stays visibly untranslated instead of being copied.
    """
    blocks = _span_blocks(value) + [
        (m.start(), m.end(), [_language(code) for code in m.group(1).split(",")], m.group(2))
        for m in _MLANG.finditer(value)
    ]
    if not blocks:
        return Bilingual(en=value, ar="")
    blocks.sort()
    segments: list[str | dict[str, str]] = []
    cursor = 0
    for start, end, languages, content in blocks:
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


def _format_of(raw: str, default: str) -> tuple[str, str]:
    raw = raw.strip()
    if match := _FORMAT_PREFIX.match(raw):
        return match.group(1).lower(), raw[match.end() :]
    return default, raw


def _convert(raw: str, text_format: str, *, one_line: bool = False) -> Bilingual:
    """GIFT text (escapes still as placeholders) as the site's bilingual plain text."""
    parts = split_multilang(_unescape(raw))

    def plain(value: str) -> str:
        if text_format == "html":
            value = html_to_text(value)
        elif text_format == "moodle":
            value = html_to_text(value, keep_newlines=True)
        return normalize_line(value) if one_line else normalize(value)

    return Bilingual(en=plain(parts.en), ar=plain(parts.ar))


# --- Parser --------------------------------------------------------------------------------


@dataclass
class _Block:
    text: str
    lines: list[int]  # The source line of each character of `text`.

    def line_at(self, index: int) -> int:
        if not self.lines:
            return 0
        return self.lines[min(max(index, 0), len(self.lines) - 1)]


def _blocks(source: str) -> list[_Block]:
    """Split the file into items at blank lines, dropping `//` comment lines."""
    blocks: list[_Block] = []
    chars: list[str] = []
    lines: list[int] = []

    def close() -> None:
        if chars:
            text, mapped = _escape_sequences("".join(chars), lines)
            blocks.append(_Block(text=text, lines=mapped))
            chars.clear()
            lines.clear()

    for number, line in enumerate(source.split("\n"), start=1):
        stripped = line.strip()
        if not stripped:
            close()
            continue
        if stripped.startswith("//"):
            continue
        if chars:
            chars.append("\n")
            lines.append(lines[-1])
        chars.extend(stripped)
        lines.extend([number] * len(stripped))
    close()
    return blocks


def parse_gift(source: str) -> GiftDocument:
    """Read a GIFT file's text; problems are collected with their line numbers, not raised."""
    document = GiftDocument()
    source = source.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    category_line = 0
    for block in _blocks(source):
        if block.text.startswith("$CATEGORY:"):
            first_line_end = block.text.find("\n")
            if first_line_end == -1:
                first_line_end = len(block.text)
            line = block.line_at(0)
            title = _category_title(block.text[len("$CATEGORY:") : first_line_end])
            if not category_line:
                category_line = line
                document.title = title
            elif title != document.title:
                document.warnings.append(
                    Problem(
                        line,
                        _(
                            "A second category; its questions go into the same quiz as "
                            "the rest of the file."
                        ),
                    )
                )
            # Moodle wants the category alone in its item; a question right under it is
            # read as a question rather than lost in the category's name.
            rest = block.text[first_line_end + 1 :]
            if not rest.strip():
                continue
            offset = first_line_end + 1
            block = _Block(text=rest, lines=block.lines[offset:])
        _parse_item(block, document)
    if not document.questions and not document.errors:
        document.errors.append(
            Problem(0, _("The file has no multiple-choice question that can be imported."))
        )
    return document


def _category_title(path: str) -> Bilingual:
    """The last segment of a category path (`//` is a slash inside a name)."""
    path = path.split("[info]")[0].strip()
    segments = [s.replace("//", "/") for s in re.split(r"(?<!/)/(?!/)", path)]
    segments = [s.strip() for s in segments if s.strip()]
    if not segments:
        return Bilingual()
    last = segments[-1]
    if last.startswith("$") or last.lower() == "top":
        return Bilingual()
    # Moodle keeps category names as plain text: no HTML to convert.
    parts = split_multilang(_unescape(last))
    return Bilingual(
        en=normalize_line(parts.en)[:TITLE_MAX_LENGTH],
        ar=normalize_line(parts.ar)[:TITLE_MAX_LENGTH],
    )


def _parse_item(block: _Block, document: GiftDocument) -> None:
    text, start_line = block.text, block.line_at(0)
    errors: list[Problem] = []

    def error(message: str, index: int | None = None) -> None:
        errors.append(Problem(block.line_at(index) if index is not None else start_line, message))

    def skip(kind: str) -> None:
        document.skipped.append(
            Problem(
                start_line,
                _("%(kind)s questions are not supported; this question was skipped.")
                % {"kind": kind},
            )
        )

    name, body_start = "", 0
    if text.startswith("::"):
        end = text.find("::", 2)
        if end == -1:
            error(_("The question name opened with '::' is not closed with '::'."), 0)
            document.errors.extend(errors)
            return
        name = normalize_line(_unescape(text[2:end]))
        body_start = end + 2
    opening = text.find("{", body_start)
    closing = text.find("}", body_start)
    after = text[closing + 1 :] if closing != -1 else ""
    extra = min((i for i in (after.find("{"), after.find("}")) if i != -1), default=-1)

    if opening == -1 and closing == -1:
        _description(block, body_start, document)
        return
    if closing == -1:
        error(
            _(
                "'{' is not closed with '}' before the question ends (a blank line ends a "
                "question); write \\{ for a literal brace."
            ),
            opening,
        )
    elif opening == -1 or closing < opening:
        error(_("'}' without an opening '{': write \\} for a literal brace."), closing)
    elif extra != -1:
        error(
            _(
                "A second answer block: put a blank line between questions, or write \\{ "
                "and \\} for literal braces."
            ),
            closing + 1 + extra,
        )
    if errors:
        document.errors.extend(errors)
        return

    # Text after the answer block makes it a "missing word" question: the block's place
    # is marked with a blank.
    question_text = text[body_start:opening] + (BLANK + after if after.strip() else "")
    answers = text[opening + 1 : closing]
    general_feedback = ""
    separator = answers.rfind("####")
    if separator != -1:
        general_feedback = answers[separator + 4 :]
        answers = answers[:separator]
    answers_start = opening + 1 + len(answers) - len(answers.lstrip())
    answers = answers.strip()

    # Moodle's order of deciding the question type, from the answer block alone.
    if not answers:
        return skip(_("Essay"))
    if answers.startswith("#"):
        return skip(_("Numerical"))
    if "~" not in answers:
        if "=" in answers and "->" in answers:
            return skip(_("Matching"))
        if answers.split("#")[0].strip().upper() in {"T", "TRUE", "F", "FALSE"}:
            return skip(_("True/false"))
        return skip(_("Short-answer"))

    text_format, question_text = _format_of(question_text, "moodle")
    prompt = _convert(question_text, text_format)
    if not prompt.en:
        error(_("The question has no English text."), body_start)
    markers = [i for i, char in enumerate(answers) if char in "=~"]
    if answers[: markers[0]].strip():
        error(
            _("Text before the first answer: start every answer with = (right) or ~ (wrong)."),
            answers_start,
        )
    choices: list[GiftChoice] = []
    partial_credit = negative_marking = False
    for number, marker in enumerate(markers):
        end = markers[number + 1] if number + 1 < len(markers) else len(answers)
        piece = answers[marker + 1 : end].strip()
        line = block.line_at(answers_start + marker)
        is_correct = answers[marker] == "="
        if not is_correct and (weight := re.match(r"%(-?[0-9]+(?:\.[0-9]*)?)%", piece)):
            piece = piece[weight.end() :].strip()
            value = float(weight.group(1))
            is_correct = value == 100
            # A wrong answer's penalty has no place here; half a right answer would.
            negative_marking = negative_marking or value < 0
            partial_credit = partial_credit or 0 < value < 100
        answer, _hash, feedback = piece.partition("#")
        answer_format, answer = _format_of(answer, text_format)
        feedback_format, feedback = _format_of(feedback, text_format)
        choice = GiftChoice(
            text=_convert(answer, answer_format, one_line=True),
            is_correct=is_correct,
            feedback=_convert(feedback, feedback_format),
            line=line,
        )
        if not choice.text.en:
            errors.append(Problem(line, _("An answer has no English text.")))
        elif max(len(choice.text.en), len(choice.text.ar)) > CHOICE_TEXT_MAX_LENGTH:
            errors.append(
                Problem(
                    line,
                    _("An answer is longer than %(max)d characters.")
                    % {"max": CHOICE_TEXT_MAX_LENGTH},
                )
            )
        choices.append(choice)
    if partial_credit:
        return skip(_("Multiple-answer and partial-credit multiple-choice"))
    try:
        validate_choice_set([(position, c.is_correct) for position, c in enumerate(choices)])
    except ValidationError as invalid:
        for message in invalid.messages:
            error(message)
    if errors:
        document.errors.extend(errors)
        return

    if negative_marking:
        document.warnings.append(
            Problem(
                start_line,
                _(
                    "Negative marks are not supported: the answers that carry them count "
                    "as simply wrong."
                ),
            )
        )
    gf_format, general_feedback = _format_of(general_feedback, text_format)
    explanation = _convert(general_feedback, gf_format)
    if not explanation.en:
        document.warnings.append(
            Problem(
                start_line,
                _(
                    "No general feedback (####): the question's explanation is empty; "
                    "write one before publishing."
                ),
            )
        )
    document.questions.append(
        GiftQuestion(
            prompt=prompt, choices=choices, explanation=explanation, name=name, line=start_line
        )
    )


def _description(block: _Block, body_start: int, document: GiftDocument) -> None:
    """Text with no answer block: the quiz's description if it comes first, else skipped."""
    text_format, text = _format_of(block.text[body_start:], "moodle")
    line = block.line_at(0)
    if not (document.questions or document.description or document.skipped or document.errors):
        document.description = _convert(text, text_format)
        document.description_line = line
        return
    document.skipped.append(
        Problem(
            line,
            _("Text without an answer block (a description) is not a question; it was skipped."),
        )
    )


# --- Writer --------------------------------------------------------------------------------


def multilang(value: Bilingual) -> str:
    """HTML for a bilingual text: English, and Arabic in multilang spans when there is some."""
    if not value.ar:
        return text_to_html(value.en)
    english = f'<span lang="en" class="multilang">{text_to_html(value.en)}</span>'
    arabic = f'<span lang="ar" class="multilang">{text_to_html(value.ar)}</span>'
    return (english if value.en else "") + arabic


def _answer_piece(value: Bilingual) -> str:
    """An answer's or a feedback's GIFT text, which has no format prefix of its own."""
    markup = multilang(value)
    # A leading "[" would read as a format prefix and a leading "%" as a weight.
    if markup[:1] in ("[", "%"):
        markup = f"&#{ord(markup[0])};{markup[1:]}"
    return escape(markup)


def _category_name(value: Bilingual) -> str:
    # filter_multilang2's syntax: a span's closing tag would need its slash doubled here.
    if value.ar:
        name = f"{{mlang en}}{value.en}{{mlang}}{{mlang ar}}{value.ar}{{mlang}}"
    else:
        name = value.en
    # Backslashes as GIFT escapes them (a title "C:\new" is not a line break); `//` as
    # Moodle's category paths escape a slash inside a name.
    return name.replace("\\", "\\\\").replace("/", "//")


def write_gift(
    questions: list[GiftQuestion],
    *,
    title: Bilingual | None = None,
    description: Bilingual | None = None,
    header: str = "",
) -> str:
    """GIFT text that `parse_gift` reads back as the same title, description and questions."""
    out: list[str] = []
    if header:
        out.extend(f"// {line}".rstrip() for line in header.splitlines())
        out.append("")
    if title:
        out.append(f"$CATEGORY: $course$/top/{_category_name(title)}")
        out.append("")
    if description:
        out.append("// The quiz's description: a GIFT description item, with no answers.")
        out.append(f"::Description::[html]{escape(multilang(description))}")
        out.append("")
    for number, question in enumerate(questions, start=1):
        name = question.name or f"Q{number}"
        out.append(f"::{escape(name)}::[html]{escape(multilang(question.prompt))}{{")
        for choice in question.choices:
            marker = "=" if choice.is_correct else "~"
            line = f"\t{marker}{_answer_piece(choice.text)}"
            if choice.feedback:
                line += f"#{_answer_piece(choice.feedback)}"
            out.append(line)
        if question.explanation:
            out.append(f"\t####{_answer_piece(question.explanation)}")
        out.append("}")
        out.append("")
    return "\n".join(out)
