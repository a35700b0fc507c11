"""Moodle XML (Moodle's own question export, question/format/xml), read and written.

Read: `multichoice` (one or several answers, weights, per-answer feedback, `shuffleanswers`),
`truefalse`, `shortanswer` (`usecase` 1: every accepted answer exact), `numerical` (tolerances;
units reported and dropped), `matching` (an empty subquestion is a distractor), `ordering`
(the answers' order), `description` (a new quiz's description) and `category` (each category
holding questions is a quiz, titled after its path's last segment; its `info` is the quiz's
description). Texts in every Moodle format (HTML, Moodle auto-format, plain text, Markdown)
become the site's Markdown; `multilang` spans (and `{mlang}`) fill both languages; images
(`@@PLUGINFILE@@` with their base64 `<file>`, Moodle 1.9's `image_base64`) land on the
question, the explanation or the choice. Other types are reported by type and name and
skipped.

Written by `moodle_write.py`.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from urllib.parse import unquote

from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy
from lxml import etree

from ...grading import NumberError, parse_number
from ...text import markdown_escape
from ..gift.format import split_multilang
from ..gift.items import FALSE, TRUE
from .checks import (
    description_left_out,
    image_choice_text,
    listed,
    not_a_number,
    question_accepted,
    too_many_questions,
    unexplained_note,
)
from .content import MOODLE, Bilingual, Document, Image, Note, Pair, Part, Question, QuizPart
from .images import ImageRefused, decode_base64, image_from_bytes
from .rich_text import ImageRef, html_to_markdown, html_to_text
from .safety import child, children, parse_xml

PLUGINFILE = "@@PLUGINFILE@@/"
SEVEN = Decimal("0.0000001")
# Moodle's types Daleel cannot hold, by the names Moodle's question bank gives them.
SKIPPED_TYPES = {
    "essay": pgettext_lazy("a kind of question", "Essay"),
    "multianswer": pgettext_lazy("a kind of question", "Embedded answers (Cloze)"),
    "cloze": pgettext_lazy("a kind of question", "Embedded answers (Cloze)"),
    "calculated": pgettext_lazy("a kind of question", "Calculated"),
    "calculatedsimple": pgettext_lazy("a kind of question", "Calculated simple"),
    "calculatedmulti": pgettext_lazy("a kind of question", "Calculated multichoice"),
    "ddwtos": pgettext_lazy("a kind of question", "Drag and drop into text"),
    "ddimageortext": pgettext_lazy("a kind of question", "Drag and drop onto image"),
    "ddmarker": pgettext_lazy("a kind of question", "Drag and drop markers"),
    "gapselect": pgettext_lazy("a kind of question", "Select missing words"),
    "randomsamatch": pgettext_lazy("a kind of question", "Random short-answer matching"),
    "random": pgettext_lazy("a kind of question", "Random"),
}
DEFAULT_COMBINED = {
    "Your answer is correct.",
    "Your answer is partially correct.",
    "Your answer is incorrect.",
}
_IMG_TAG = re.compile(r"<img\b[^<>]*>", re.IGNORECASE)
_ATTRIBUTE = re.compile(r"""\b(src|alt)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)


def read_moodle(data: bytes, *, max_questions: int) -> Document:
    """A Moodle XML file's quizzes and questions; problems are collected, not raised (but a
    file that is not XML raises ExchangeError)."""
    root = parse_xml(data)
    document = Document(format=MOODLE)
    if root.tag != "quiz":
        document.errors.append(
            Note(root.sourceline or 0, _("This is not a Moodle XML file: its root is not <quiz>."))
        )
        return document
    _MoodleReader(document, max_questions).read(root)
    return document


class _Text:
    """A text field of the file as the site keeps it, with the images it held."""

    def __init__(self, text: Bilingual, images: list[tuple[ImageRef, ImageRef | None]]) -> None:
        self.text = text
        # Each image with its Arabic twin (the same file in the Arabic text), if any.
        self.images = images
        self.dropped: list[str] = []
        self.files: dict[str, etree._Element] = {}


class _MoodleReader:
    def __init__(self, document: Document, max_questions: int) -> None:
        self.document = document
        self.max_questions = max_questions
        self.count = 0
        self.marks: list[str] = []
        self.hinted: list[str] = []
        # What each question's answers and feedback left out, reported with its texts'.
        self.pending: dict[int, list[str]] = {}
        self.unexplained: list[str] = []

    # --- The file ------------------------------------------------------------------------------

    def read(self, root: etree._Element) -> None:
        quiz = QuizPart(line=0)
        quizzes = [quiz]
        descriptions: dict[int, list[Question]] = {}
        for element in children(root, "question"):
            kind = (element.get("type") or "").strip()
            line = element.sourceline or 0
            if kind == "category":
                quiz = QuizPart(line=line)
                quiz.title = self.category_title(element)
                info = child(element, "info")
                if info is not None:
                    quiz.description = self.text(info, "html").text
                quizzes.append(quiz)
                continue
            if self.count >= self.max_questions:
                self.document.errors.append(too_many_questions(self.max_questions, line))
                return
            name = self.name(element)
            if kind == "description":
                descriptions.setdefault(id(quiz), []).append(self.description(element, name))
                continue
            reader = getattr(self, f"read_{kind}", None)
            if reader is None:
                label = SKIPPED_TYPES.get(kind, kind or "?")
                self.document.skipped.append(
                    Note(
                        line,
                        _("%(type)s question “%(name)s”: Daleel has no such kind; skipped.")
                        % {"type": label, "name": name},
                    )
                )
                continue
            self.count += 1
            question = Question(kind="", prompt=Bilingual(), name=name, line=line)
            question_text = self.text(child(element, "questiontext"), "html")
            question.prompt = question_text.text
            question.image = self.first_image(question, question_text, element, "text")
            general = self.text(child(element, "generalfeedback"), "html")
            question.explanation = general.text
            question.explanation_image = self.first_image(question, general, element, "general")
            reader(element, question)
            self.question_notes(element, question)
            self.report_dropped(question, question_text, general)
            question_accepted(self.document, quiz, question, self.unexplained)
        self.summary_notes()
        for part in quizzes:
            found = descriptions.get(id(part), [])
            if found and not part.description:
                part.description = found[0].prompt
                found = found[1:]
            for extra in found:
                self.document.skipped.append(description_left_out(extra))
        self.document.quizzes = [part for part in quizzes if part.questions]
        if not self.document.quizzes and not self.document.errors:
            self.document.errors.append(
                Note(0, _("The file has no question that can be imported."))
            )

    def category_title(self, element: etree._Element) -> Bilingual:
        holder = child(element, "category")
        raw = _plain(child(holder, "text")) if holder is not None else ""
        segments = [s.replace("//", "/") for s in re.split(r"(?<!/)/(?!/)", raw)]
        segments = [s.strip() for s in segments if s.strip()]
        if not segments or segments[-1].startswith("$") or segments[-1].lower() == "top":
            return Bilingual()
        return _one_line(split_multilang(segments[-1]))

    def name(self, element: etree._Element) -> str:
        holder = child(element, "name")
        text = html_to_text(_plain(child(holder, "text"))).markdown if holder is not None else ""
        return text[:200]

    def description(self, element: etree._Element, name: str) -> Question:
        text = self.text(child(element, "questiontext"), "html")
        question = Question(kind="description", prompt=text.text, name=name)
        question.line = element.sourceline or 0
        if text.images:
            self.document.skipped.append(
                question.note(
                    _("Description “%(name)s”: its images were left out.") % {"name": name}
                )
            )
        return question

    # --- Texts ---------------------------------------------------------------------------------

    def text(self, element: etree._Element | None, default: str) -> _Text:
        """A text field (`<questiontext>`, `<answer>`, `<feedback>`…) as Markdown."""
        if element is None:
            return _Text(Bilingual(), [])
        text_format = (element.get("format") or default).strip()
        raw = _plain(child(element, "text"))
        languages = split_multilang(raw)
        converted = [self.convert(value, text_format) for value in (languages.en, languages.ar)]
        english, arabic = converted
        result = _Text(Bilingual(en=english[0], ar=arabic[0]), [])
        arabic_images = list(arabic[1])
        for image in english[1]:
            twin = next((a for a in arabic_images if a.src == image.src), None)
            result.images.append((image, twin))
        seen = {image.src for image in english[1]}
        result.images.extend((a, None) for a in arabic_images if a.src not in seen)
        result.dropped = list(dict.fromkeys(english[2] + arabic[2]))
        result.files = {(f.get("name") or "").strip(): f for f in children(element, "file")}
        return result

    def convert(self, raw: str, text_format: str) -> tuple[str, list[ImageRef], list[str]]:
        if not raw.strip():
            return "", [], []
        if text_format == "markdown":
            images = [_image_tag(tag) for tag in _IMG_TAG.findall(raw)]
            text = _IMG_TAG.sub("", raw)
            lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
            return "\n".join(lines).strip("\n"), images, []
        if text_format == "plain_text":
            lines = raw.replace("\r\n", "\n").split("\n")
            return "\n".join(markdown_escape(line.strip()) for line in lines).strip(), [], []
        if text_format in ("moodle_auto_format", "wiki_like"):
            raw = raw.replace("\r\n", "\n").replace("\n", "<br>")
        converted = html_to_markdown(raw)
        return converted.markdown, converted.images, converted.dropped

    def plain(self, element: etree._Element | None, default: str = "html") -> Bilingual:
        """A text that the site keeps as one line of plain text (an accepted answer, a pair,
        an item): its HTML read as text."""
        if element is None:
            return Bilingual()
        raw = _plain(child(element, "text"))
        languages = split_multilang(raw)
        text_format = (element.get("format") or default).strip()
        values = []
        for value in (languages.en, languages.ar):
            if text_format in ("plain_text", "markdown") or "<" not in value and "&" not in value:
                values.append(" ".join(value.split()))
            else:
                values.append(html_to_text(value).markdown)
        return Bilingual(en=values[0], ar=values[1])

    # --- Images --------------------------------------------------------------------------------

    def first_image(
        self,
        question: Question,
        text: _Text,
        element: etree._Element,
        where: str,
    ) -> Image | None:
        """The first image of `text` (with its Moodle 1.9 `image_base64` for the question's
        text); any other is reported."""
        image = None
        if where == "text":
            image = self.legacy_image(question, element)
        for index, (ref, twin) in enumerate(text.images):
            if image is not None or index > 0:
                text.dropped.append(_("an image beyond the first of a text"))
                continue
            image = self.image(question, text, ref, twin)
        return image

    def legacy_image(self, question: Question, element: etree._Element) -> Image | None:
        name = _plain(child(element, "image"))
        data = _plain(child(element, "image_base64"))
        if not (name and data):
            return None
        return self.checked(question, name, data, Bilingual())

    def image(
        self, question: Question, text: _Text, ref: ImageRef, twin: ImageRef | None
    ) -> Image | None:
        if not ref.src.startswith(PLUGINFILE):
            text.dropped.append(_("an image that is not in the file (%(src)s)") % {"src": ref.src})
            return None
        name = unquote(ref.src[len(PLUGINFILE) :]).rpartition("/")[2]
        found = text.files.get(name)
        if found is None:
            text.dropped.append(_("an image missing from the file (%(name)s)") % {"name": name})
            return None
        alt = Bilingual(en=ref.alt, ar=twin.alt if twin else "")
        return self.checked(question, name, found.text or "", alt)

    def checked(self, question: Question, name: str, data: str, alt: Bilingual) -> Image | None:
        try:
            image = image_from_bytes(decode_base64(data), name=name, alt=alt)
        except ImageRefused as refusal:
            self.document.errors.append(
                question.note(
                    _("Question “%(name)s”: the image “%(file)s” cannot be imported: %(reason)s")
                    % {"name": question.name, "file": name, "reason": refusal.message}
                )
            )
            return None
        if not image.alt.en:
            self.document.warnings.append(
                question.note(
                    _(
                        "Question “%(name)s”: the image “%(file)s” has no alt text: describe "
                        "it in the admin for learners who cannot see it."
                    )
                    % {"name": question.name, "file": name}
                )
            )
        return image

    def report_dropped(self, question: Question, *texts: _Text) -> None:
        dropped = [what for text in texts for what in text.dropped]
        dropped = list(dict.fromkeys(dropped + self.pending.pop(id(question), [])))
        if dropped:
            self.document.warnings.append(
                question.note(
                    _("Question “%(name)s”: left out, as Daleel's texts cannot hold it: %(what)s.")
                    % {"name": question.name, "what": "; ".join(dropped)}
                )
            )

    # --- Kinds ---------------------------------------------------------------------------------

    def feedback(self, question: Question, answer: etree._Element) -> Bilingual:
        text = self.text(child(answer, "feedback"), "html")
        if text.images:
            text.dropped.append(_("an image in an answer's feedback"))
        self.extra_dropped(question, text.dropped)
        return text.text

    def extra_dropped(self, question: Question, dropped: list[str] | str) -> None:
        if isinstance(dropped, str):
            dropped = [dropped]
        self.pending.setdefault(id(question), []).extend(dropped)

    def read_multichoice(self, element: etree._Element, question: Question) -> None:
        single = (_plain(child(element, "single")) or "true").lower() not in ("false", "0")
        question.kind = "single" if single else "multiple"
        question.shuffle = _flag(element, "shuffleanswers")
        for answer in children(element, "answer"):
            text = self.text(answer, "html")
            if not text.text.en and not text.images:
                continue  # Moodle leaves out an answer with no text
            image = self.first_image(question, text, answer, "answer")
            self.extra_dropped(question, text.dropped)
            question.parts.append(
                Part(
                    text=image_choice_text(text.text, image, len(question.parts) + 1),
                    fraction=_fraction(answer),
                    feedback=self.feedback(question, answer),
                    image=image,
                )
            )

    def read_truefalse(self, element: etree._Element, question: Question) -> None:
        question.kind = "truefalse"
        answers = children(element, "answer")
        true = Part(text=TRUE)
        false = Part(text=FALSE)
        for index, answer in enumerate(answers[:2]):
            said = _plain(child(answer, "text")).lower()
            # Old files name them in the site's language: the first is true, as Moodle reads.
            part = true if said == "true" or (said != "false" and index == 0) else false
            part.fraction = Decimal(1) if _fraction(answer) > 0 else Decimal(0)
            part.feedback = self.feedback(question, answer)
        question.parts = [true, false]

    def read_shortanswer(self, element: etree._Element, question: Question) -> None:
        question.kind = "short"
        exact = _plain(child(element, "usecase")) in ("1", "true")
        for answer in children(element, "answer"):
            text = self.plain(answer, "plain_text")
            fraction = _fraction(answer)
            if not text.en:
                continue
            if fraction <= 0:
                self.document.warnings.append(
                    question.note(
                        _(
                            "Question “%(name)s”: the answer “%(answer)s”, worth %(weight)s%%, "
                            "was left out: a short-answer question keeps only the answers that "
                            "earn marks."
                        )
                        % {
                            "name": question.name,
                            "answer": text.en,
                            "weight": f"{(fraction * 100).normalize():f}",
                        }
                    )
                )
                continue
            if "*" in text.en + text.ar:
                self.document.warnings.append(
                    question.note(
                        _(
                            "Question “%(name)s”: Moodle reads * in a short answer as any "
                            "characters; Daleel matches it as written."
                        )
                        % {"name": question.name}
                    )
                )
            question.parts.append(
                Part(
                    text=text,
                    fraction=fraction,
                    feedback=self.feedback(question, answer),
                    exact=exact,
                )
            )

    def read_numerical(self, element: etree._Element, question: Question) -> None:
        question.kind = "numerical"
        for answer in children(element, "answer"):
            said = _plain(child(answer, "text"))
            if said == "*":
                self.extra_dropped(question, _("the answer * (any other number)"))
                continue
            try:
                value = parse_number(said)
                tolerance = abs(parse_number(_plain(child(answer, "tolerance")) or "0"))
            except NumberError:
                self.document.errors.append(not_a_number(question, said))
                continue
            question.parts.append(
                Part(
                    value=value,
                    tolerance=tolerance,
                    fraction=_fraction(answer),
                    feedback=self.feedback(question, answer),
                )
            )
        units = [
            _plain(child(unit, "unit_name"))
            for holder in children(element, "units")
            for unit in children(holder, "unit")
        ]
        if any(units):
            self.document.warnings.append(
                question.note(
                    _(
                        "Question “%(name)s”: its units (%(units)s) were dropped: a number is "
                        "typed here without one."
                    )
                    % {"name": question.name, "units": ", ".join(u for u in units if u)}
                )
            )

    def read_matching(self, element: etree._Element, question: Question) -> None:
        question.kind = "matching"
        question.shuffle = _flag(element, "shuffleanswers")
        for sub in children(element, "subquestion"):
            prompt = self.plain(sub)
            match = self.plain(child(sub, "answer"), "plain_text")
            if "<img" in _plain(child(sub, "text")).lower():
                self.extra_dropped(question, _("an image in a matching prompt"))
            if not match.en and not prompt.en:
                continue
            question.pairs.append(Pair(prompt=prompt, match=match))

    def read_match(self, element: etree._Element, question: Question) -> None:
        self.read_matching(element, question)

    def read_ordering(self, element: etree._Element, question: Question) -> None:
        question.kind = "ordering"
        answers = children(element, "answer")
        # Moodle writes each answer's place as its "fraction" (1, 2, 3…); older files keep
        # them in order.
        places = []
        for index, answer in enumerate(answers):
            try:
                place = Decimal(answer.get("fraction") or index + 1)
            except InvalidOperation:
                place = Decimal(index + 1)
            places.append((place, index, answer))
        for _place, _index, answer in sorted(places, key=lambda row: (row[0], row[1])):
            text = self.plain(answer)
            if "<img" in _plain(child(answer, "text")).lower():
                self.extra_dropped(question, _("an image in an item to order"))
            if text.en:
                question.parts.append(Part(text=text))
        grading = _plain(child(element, "gradingtype")).upper()
        if grading and grading != "LONGEST_ORDERED_SUBSET":
            self.document.warnings.append(
                question.note(
                    _(
                        "Question “%(name)s”: Moodle grades its order by %(grading)s; Daleel "
                        "gives the share of the items in the longest run already in order."
                    )
                    % {"name": question.name, "grading": grading}
                )
            )
        select = _plain(child(element, "selecttype")).upper()
        if select and select != "ALL":
            self.document.warnings.append(
                question.note(
                    _(
                        "Question “%(name)s”: Moodle shows a part of its items; Daleel shows "
                        "them all."
                    )
                    % {"name": question.name}
                )
            )

    # --- What the kinds leave -------------------------------------------------------------------

    def question_notes(self, element: etree._Element, question: Question) -> None:
        grade = _plain(child(element, "defaultgrade"))
        try:
            if grade and Decimal(grade) != 1:
                self.marks.append(question.name)
        except InvalidOperation:
            pass
        hints = [
            hint
            for hint in children(element, "hint")
            if _plain(child(hint, "text")) or _plain(hint.find("hintcontent/text"))
        ]
        if hints:
            self.hinted.append(question.name)
        for field in ("correctfeedback", "partiallycorrectfeedback", "incorrectfeedback"):
            said = html_to_text(_plain(child(child(element, field), "text"))).markdown
            if said and said not in DEFAULT_COMBINED:
                self.extra_dropped(question, _("its feedback for any right or wrong response"))
                break

    def summary_notes(self) -> None:
        if note := unexplained_note(self.unexplained):
            self.document.warnings.append(note)
        if self.marks:
            self.document.warnings.append(
                Note(
                    0,
                    _(
                        "Questions worth other than one mark in Moodle (%(names)s): each is "
                        "worth one here."
                    )
                    % {"names": listed(self.marks)},
                )
            )
        if self.hinted:
            self.document.warnings.append(
                Note(
                    0,
                    _("Hints were left out (%(names)s): Daleel shows the explanation instead.")
                    % {"names": listed(self.hinted)},
                )
            )


def _plain(element: etree._Element | None) -> str:
    if element is None:
        return ""
    return (element.xpath("string()") or "").strip()


def _one_line(text: Bilingual) -> Bilingual:
    return Bilingual(en=" ".join(text.en.split())[:200], ar=" ".join(text.ar.split())[:200])


def _flag(element: etree._Element, name: str) -> bool | None:
    said = _plain(child(element, name)).lower()
    if not said:
        return None
    return said not in ("0", "false")


def _fraction(answer: etree._Element) -> Decimal:
    try:
        percent = Decimal((answer.get("fraction") or "0").strip())
    except InvalidOperation:
        return Decimal(0)
    return (percent / 100).quantize(SEVEN)


def _image_tag(tag: str) -> ImageRef:
    found = {m[1].lower(): m[2] if m[2] is not None else m[3] for m in _ATTRIBUTE.finditer(tag)}
    return ImageRef(src=found.get("src", ""), alt=found.get("alt", ""))
