"""Moodle's GIFT quiz format: a parser and a writer.

Pure functions over plain data, no database: `imports` and `exports` beside it move
the data in and out of the models; `scan` holds the text layer (items, escapes, HTML,
multilang), which runs in linear time.

What is read, following Moodle's own parser (question/format/gift/format.php):

- questions are separated by blank lines, or (a file written without them) by a line that
  starts a question's `::name::`, or a `//` comment line after a question's answers; lines
  starting with `//` are comments;
- `$CATEGORY: path` names the quiz (its last path segment); `::name::` is read and dropped;
- `[html]`, `[moodle]` (the default), `[plain]` and `[markdown]` set the text's format; the
  site stores Markdown (quizzes/text.py): `[markdown]` is kept as written, HTML is read as
  its text (`[moodle]` keeping line breaks) and that text, like `[plain]`, is escaped so that
  Markdown shows it as it is;
- the question's kind comes from its answer block, in Moodle's order:
  - `{= right ~ wrong #feedback}` with a `=` is single-answer multiple choice ("single"),
    `{~%50% right ~%50% right too ~%-100% wrong}` without one is multiple answers
    ("multiple"); `~%w%` weighs an answer (-100 to 100, as a fraction of the mark);
  - `{T}`, `{TRUE}`, `{F}`, `{FALSE}`, with `{T#feedback if wrong#feedback if right}`,
    is true/false ("truefalse");
  - `{#16:0.5}`, `{#16}`, `{#100..120}`, `{#=16:0 =%50%15:1 #feedback}` is numerical;
  - `{=ZeRO-1 -> optimizer states =ZeRO-2 -> gradients = -> training data}`, with `->`, is
    matching ("matching"; an empty prompt is a distractor);
  - anything else is short answer ("short"): `{=TCP =%50%tcp#feedback}` (short_matching.py);
  - essays `{}` are reported and skipped;
- `####general feedback` before the closing brace is the explanation, for every kind;
- text around the answer block ("missing word") gets a `_____` blank where the block was;
- escapes `\\~ \\= \\# \\{ \\} \\: \\\\` and `\\n` (a line break);
- bilingual text through Moodle's multilang markup, `<span lang="ar" class="multilang">…</span>`
  (or the older `<lang lang="ar">…</lang>`) and filter_multilang2's `{mlang ar}…{mlang}`.
  Text outside the markup belongs to both languages; text with no markup is English.

Anything malformed is an error; the importer writes nothing from a file with errors.

The writer produces what the parser reads back unchanged: every text as `[markdown]` with the
Arabic in multilang spans, escaped the way Moodle escapes, so Moodle can import it too.
Ordering questions have no GIFT form: the exporter leaves them out and says so.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _

from .items import (
    BLANK,
    CHOICE_TEXT_MAX_LENGTH,
    KINDS,
    MAX_ANSWERS,
    MAX_ERRORS,
    TITLE_MAX_LENGTH,
    GiftChoice,
    GiftDocument,
    GiftItem,
    GiftNumericalAnswer,
    GiftQuestion,
    Problem,
    percent_weight,
)
from .scan import (
    Bilingual,
    blocks,
    escape,
    html_to_text,
    normalize,
    normalize_line,
    split_multilang,
    unescape,
)
from .short_matching import TYPED_KINDS, GiftPair, GiftText, typed_answer_lines

__all__ = [
    "BLANK",
    "CHOICE_TEXT_MAX_LENGTH",
    "KINDS",
    "MAX_ANSWERS",
    "TITLE_MAX_LENGTH",
    "Bilingual",
    "GiftChoice",
    "GiftDocument",
    "GiftNumericalAnswer",
    "GiftPair",
    "GiftQuestion",
    "GiftText",
    "Problem",
    "escape",
    "html_to_text",
    "multilang",
    "normalize",
    "normalize_line",
    "parse_gift",
    "split_multilang",
    "write_gift",
]


def parse_gift(source: str, *, max_questions: int | None = None) -> GiftDocument:
    """Read a GIFT file's text; problems are collected with their line numbers, not raised.

    With `max_questions`, a file with more questions is refused as soon as the scan reaches
    the first question too many: the rest is not read.
    """
    document = GiftDocument()
    source = source.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    category_line = 0
    translated: dict[str, str] = {}  # messages said for many questions, translated once
    for block in blocks(source):
        if len(document.errors) >= MAX_ERRORS:
            document.errors.append(
                Problem(
                    block.line_at(0),
                    _(
                        "More than %(count)d errors: the rest of the file, from here on, was "
                        "not read. Correct these and upload it again."
                    )
                    % {"count": MAX_ERRORS},
                )
            )
            break
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
            if not block.text[first_line_end + 1 :].strip():
                continue
            block = block.tail(first_line_end + 1)
        too_many = max_questions is not None and len(document.questions) >= max_questions
        if too_many and "{" in block.text:
            document.errors.append(
                Problem(
                    block.line_at(0),
                    _(
                        "The file has more than %(max)d questions; at most %(max)d can be "
                        "imported from one file. Split it into several files."
                    )
                    % {"max": max_questions},
                )
            )
            break
        GiftItem(block, document, translated).parse()
    if not document.questions and not document.errors:
        document.errors.append(Problem(0, _("The file has no question that can be imported.")))
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
    parts = split_multilang(unescape(last))
    return Bilingual(
        en=normalize_line(parts.en)[:TITLE_MAX_LENGTH],
        ar=normalize_line(parts.ar)[:TITLE_MAX_LENGTH],
    )


def multilang(value: Bilingual) -> str:
    """A bilingual text (Markdown): English, and Arabic in multilang spans when there is some."""
    if not value.ar:
        return value.en
    english = f'<span lang="en" class="multilang">{value.en}</span>'
    arabic = f'<span lang="ar" class="multilang">{value.ar}</span>'
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


def _answer_lines(question: GiftQuestion) -> list[str]:
    """The inside of a question's answer block, one line per answer, as Moodle writes it."""
    if question.kind == "truefalse":
        true, false = question.choices
        right, wrong = (true, false) if true.fraction == 1 else (false, true)
        line = "TRUE" if right is true else "FALSE"
        if wrong.feedback or right.feedback:
            line += f"#{_answer_piece(wrong.feedback)}"
        if right.feedback:
            line += f"#{_answer_piece(right.feedback)}"
        return [line]
    if question.kind in TYPED_KINDS:
        return typed_answer_lines(question.kind, question.texts, question.pairs, _answer_piece)
    if question.kind == "numerical":
        lines = ["#"]
        for answer in question.numerical:
            weight = "" if answer.fraction == 1 else f"%{percent_weight(answer.fraction)}%"
            line = f"\t={weight}{answer.value}:{answer.tolerance}"
            if answer.feedback:
                line += f"#{_answer_piece(answer.feedback)}"
            lines.append(line)
        return lines
    lines = [""]
    for choice in question.choices:
        # `=` only in a single-answer question: anywhere else it would make it one.
        if choice.fraction == 1 and question.kind == "single":
            marker = "="
        elif choice.fraction == 0:
            marker = "~"
        else:
            marker = f"~%{percent_weight(choice.fraction)}%"
        line = f"\t{marker}{_answer_piece(choice.text)}"
        if choice.feedback:
            line += f"#{_answer_piece(choice.feedback)}"
        lines.append(line)
    return lines


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
        out.append(f"::Description::[markdown]{escape(multilang(description))}")
        out.append("")
    for number, question in enumerate(questions, start=1):
        name = question.name or f"Q{number}"
        lines = _answer_lines(question)
        opening = f"::{escape(name)}::[markdown]{escape(multilang(question.prompt))}{{"
        if question.kind == "truefalse":
            # One line, as Moodle writes it: `{TRUE#wrong#right####general}`.
            explanation = question.explanation
            out.append(
                opening
                + lines[0]
                + (f"####{_answer_piece(explanation)}" if explanation else "")
                + "}"
            )
            out.append("")
            continue
        out.append(opening + lines[0])
        out.extend(lines[1:])
        if question.explanation:
            out.append(f"\t####{_answer_piece(question.explanation)}")
        out.append("}")
        out.append("")
    return "\n".join(out)
