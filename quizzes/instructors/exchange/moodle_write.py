"""Moodle XML written (`write_moodle`): every kind (ordering as Moodle's `ordering` type), texts
as Markdown with the Arabic in `multilang` spans, images as base64 files beside the text they
belong to, so that `moodle.read_moodle` reads the quiz back as it was and Moodle imports it."""

from __future__ import annotations

import base64
from decimal import Decimal
from urllib.parse import quote

from django.utils.translation import gettext as _
from lxml import etree

from .content import Bilingual, Image, Question, QuizPart
from .moodle import PLUGINFILE


def write_moodle(quizzes: list[QuizPart], *, comment: str = "") -> tuple[bytes, list[str]]:
    """Moodle XML for `quizzes` (one category each), and what the file could not say."""
    root = etree.Element("quiz")
    if comment:
        root.append(etree.Comment(f" {comment} "))
    notes: list[str] = []
    for quiz in quizzes:
        category = etree.SubElement(root, "question", type="category")
        title = _multilang(quiz.title).replace("/", "//")
        _text(etree.SubElement(category, "category"), f"$course$/top/{title}")
        info = etree.SubElement(category, "info", format="markdown")
        _text(info, _multilang(quiz.description))
        for question in quiz.questions:
            root.append(_question(question, notes))
    data = etree.tostring(root, encoding="UTF-8", xml_declaration=True, pretty_print=True)
    return data, notes


def _multilang(text: Bilingual) -> str:
    if not text.ar:
        return text.en
    english = f'<span lang="en" class="multilang">{text.en}</span>' if text.en else ""
    return english + f'<span lang="ar" class="multilang">{text.ar}</span>'


def _text(parent: etree._Element, value: str) -> etree._Element:
    element = etree.SubElement(parent, "text")
    element.text = value
    return element


def _image_tag_of(image: Image, alt: str) -> str:
    src = PLUGINFILE + quote(image.name)
    return (
        f'<img src="{src}" alt="{_attribute(alt)}" width="{image.width}" height="{image.height}">'
    )


def _attribute(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def _rich(
    parent: etree._Element, name: str, text: Bilingual, image: Image | None = None, **attributes
) -> etree._Element:
    """A Markdown text field, its image appended in each language with that language's alt."""
    element = etree.SubElement(parent, name, format="markdown", **attributes)
    english, arabic = text.en, text.ar
    if image is not None:
        gap = "\n\n" if name != "answer" else " "
        english = f"{english}{gap}{_image_tag_of(image, image.alt.en)}"
        if arabic or image.alt.ar:
            alt = image.alt.ar or image.alt.en
            arabic = (
                f"{arabic}{gap}{_image_tag_of(image, alt)}" if arabic else _image_tag_of(image, alt)
            )
    _text(element, _multilang(Bilingual(en=english, ar=arabic)))
    if image is not None:
        file = etree.SubElement(element, "file", name=image.name, path="/", encoding="base64")
        image.content.seek(0)
        file.text = _base64(image.content.read())
    return element


def _base64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _plain_field(parent: etree._Element, name: str, text: Bilingual, **attributes):
    """A text Moodle shows as HTML and Daleel keeps as plain text (a matching prompt, an item
    to order): escaped as HTML inside its multilang spans."""
    element = etree.SubElement(parent, name, format="html", **attributes)
    escaped = Bilingual(en=_html_escape(text.en), ar=_html_escape(text.ar))
    _text(element, _multilang(escaped))
    return element


def _html_escape(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _percent(fraction: Decimal) -> str:
    return f"{(fraction * 100).normalize():f}"


def _feedback(parent: etree._Element, feedback: Bilingual) -> None:
    _rich(parent, "feedback", feedback)


MOODLE_TYPES = {
    "single": "multichoice",
    "multiple": "multichoice",
    "truefalse": "truefalse",
    "numerical": "numerical",
    "short": "shortanswer",
    "matching": "matching",
    "ordering": "ordering",
}


def _question(question: Question, notes: list[str]) -> etree._Element:
    element = etree.Element("question", type=MOODLE_TYPES[question.kind])
    _text(etree.SubElement(element, "name"), question.name)
    _rich(element, "questiontext", question.prompt, question.image)
    _rich(element, "generalfeedback", question.explanation, question.explanation_image)
    etree.SubElement(element, "defaultgrade").text = "1"
    etree.SubElement(element, "penalty").text = "0"
    etree.SubElement(element, "hidden").text = "0"
    kind = question.kind
    if kind in ("single", "multiple"):
        etree.SubElement(element, "single").text = "true" if kind == "single" else "false"
        shuffle = "true" if question.shuffle else "false"
        etree.SubElement(element, "shuffleanswers").text = shuffle
        etree.SubElement(element, "answernumbering").text = "abc"
        for part in question.parts:
            answer = _rich(
                element, "answer", part.text, part.image, fraction=_percent(part.fraction)
            )
            _feedback(answer, part.feedback)
    elif kind == "truefalse":
        true, false = question.parts
        for said, part in (("true", true), ("false", false)):
            answer = etree.SubElement(
                element, "answer", fraction=_percent(part.fraction), format="moodle_auto_format"
            )
            _text(answer, said)
            _feedback(answer, part.feedback)
    elif kind == "numerical":
        for part in question.parts:
            answer = etree.SubElement(
                element, "answer", fraction=_percent(part.fraction), format="moodle_auto_format"
            )
            _text(answer, f"{part.value.normalize():f}")
            etree.SubElement(answer, "tolerance").text = f"{part.tolerance.normalize():f}"
            _feedback(answer, part.feedback)
        etree.SubElement(element, "unitgradingtype").text = "0"
        etree.SubElement(element, "unitpenalty").text = "0.1000000"
        etree.SubElement(element, "showunits").text = "3"
        etree.SubElement(element, "unitsleft").text = "0"
    elif kind == "short":
        exact = {part.exact for part in question.parts}
        if len(exact) > 1:
            notes.append(
                _(
                    "Question “%(name)s”: Moodle marks a whole question's answers exact or not; "
                    "its answers were all written as not exact."
                )
                % {"name": question.name}
            )
        etree.SubElement(element, "usecase").text = "1" if exact == {True} else "0"
        for part in question.parts:
            answer = etree.SubElement(
                element, "answer", fraction=_percent(part.fraction), format="moodle_auto_format"
            )
            _text(answer, _multilang(part.text))
            _feedback(answer, part.feedback)
    elif kind == "matching":
        etree.SubElement(element, "shuffleanswers").text = "true"
        for pair in question.pairs:
            sub = _plain_field(element, "subquestion", pair.prompt)
            _text(etree.SubElement(sub, "answer"), _multilang(pair.match))
    elif kind == "ordering":
        for name, value in (
            ("layouttype", "VERTICAL"),
            ("selecttype", "ALL"),
            ("selectcount", "0"),
            ("gradingtype", "LONGEST_ORDERED_SUBSET"),
            ("showgrading", "SHOW"),
            ("numberingstyle", "none"),
        ):
            etree.SubElement(element, name).text = value
        for place, part in enumerate(question.parts, start=1):
            _plain_field(element, "answer", part.text, fraction=str(place))
    return element
