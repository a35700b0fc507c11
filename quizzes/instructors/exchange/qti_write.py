"""QTI 2.1 written: an IMS content package (`imsmanifest.xml`, one `assessmentTest` per quiz,
one `assessmentItem` per question, the images beside them) that validates against the QTI 2.1
and IMS CP 1.1 schemas (tests/schemas/) and that `qti_read.py` reads back as it was.

Each kind as QTI holds it: one answer, several answers and true/false as `choiceInteraction`
(weights in the response's `mapping`), a number and a short answer as `textEntryInteraction`
(one response condition per accepted number or answer: its tolerance or case, its weight as
the highest score reached, its feedback), matching as `matchInteraction` (distractors are
matches no prompt takes), ordering as `orderInteraction`. Feedback per answer and the
explanation are `modalFeedback`. Texts are XHTML rendered from the Markdown, math as MathML
with its TeX; each text's Arabic beside its English, marked `xml:lang="ar"`.
"""

from __future__ import annotations

import io
import zipfile
from decimal import Decimal

from django.utils.text import slugify
from lxml import etree

from .content import Bilingual, Image, Part, Question, QuizPart
from .rich_text import MATHML, markdown_to_xhtml

QTI_NS = "http://www.imsglobal.org/xsd/imsqti_v2p1"
CP_NS = "http://www.imsglobal.org/xsd/imscp_v1p1"
MD_NS = "http://www.imsglobal.org/xsd/imsmd_v1p2"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
QTI_LOCATION = f"{QTI_NS} http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1.xsd"
CP_LOCATION = (
    f"{CP_NS} http://www.imsglobal.org/xsd/imscp_v1p1.xsd "
    f"{MD_NS} http://www.imsglobal.org/xsd/imsmd_v1p2p4.xsd"
)


def _q(name: str) -> str:
    return f"{{{QTI_NS}}}{name}"


def _number(value: Decimal) -> str:
    return f"{value.normalize():f}"


def write_qti(quizzes: list[QuizPart], *, identifier: str) -> tuple[bytes, list[str]]:
    """A zip of the content package for `quizzes`, and what it could not say (nothing yet)."""
    files: dict[str, bytes] = {}
    manifest = etree.Element(
        f"{{{CP_NS}}}manifest",
        {"identifier": _ident("MANIFEST", identifier), f"{{{XSI}}}schemaLocation": CP_LOCATION},
        nsmap={None: CP_NS, "imsmd": MD_NS, "xsi": XSI},
    )
    metadata = etree.SubElement(manifest, f"{{{CP_NS}}}metadata")
    etree.SubElement(metadata, f"{{{CP_NS}}}schema").text = "QTIv2.1 Package"
    etree.SubElement(metadata, f"{{{CP_NS}}}schemaversion").text = "1.0.0"
    if quizzes:
        metadata.append(_lom(quizzes[0].title))
    etree.SubElement(manifest, f"{{{CP_NS}}}organizations")
    resources = etree.SubElement(manifest, f"{{{CP_NS}}}resources")
    for number, quiz in enumerate(quizzes, start=1):
        prefix = f"quiz{number}" if len(quizzes) > 1 else "quiz"
        test_href = f"{prefix}/assessment.xml"
        test_id = _ident("TEST", f"{identifier}-{number}")
        test_resource = etree.SubElement(
            resources,
            f"{{{CP_NS}}}resource",
            identifier=test_id,
            type="imsqti_test_xmlv2p1",
            href=test_href,
        )
        test_metadata = etree.SubElement(test_resource, f"{{{CP_NS}}}metadata")
        test_metadata.append(_lom(quiz.title))
        etree.SubElement(test_resource, f"{{{CP_NS}}}file", href=test_href)
        refs = []
        item_resources = []
        for position, question in enumerate(quiz.questions, start=1):
            item_id = _ident("ITEM", f"{number}-{position}")
            href = f"{prefix}/items/{item_id}.xml"
            images: dict[str, Image] = {}
            files[href] = _item(question, item_id, images, image_dir="../images/")
            resource = etree.Element(
                f"{{{CP_NS}}}resource", identifier=item_id, type="imsqti_item_xmlv2p1", href=href
            )
            etree.SubElement(resource, f"{{{CP_NS}}}file", href=href)
            for name, image in images.items():
                path = f"{prefix}/images/{name}"
                image.content.seek(0)
                files[path] = image.content.read()
                etree.SubElement(resource, f"{{{CP_NS}}}file", href=path)
            item_resources.append(resource)
            refs.append((item_id, f"items/{item_id}.xml"))
            etree.SubElement(test_resource, f"{{{CP_NS}}}dependency", identifierref=item_id)
        for resource in item_resources:
            resources.append(resource)
        files[test_href] = _test(quiz, test_id, refs)
    files["imsmanifest.xml"] = _serialised(manifest)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("imsmanifest.xml", files.pop("imsmanifest.xml"))
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue(), []


def _ident(prefix: str, value: str) -> str:
    """An identifier QTI and IMS CP accept (an XML name): the prefix makes it start with a
    letter, slugify keeps it to letters, digits and hyphens."""
    return f"{prefix}-{slugify(value)}"


def _serialised(root: etree._Element) -> bytes:
    return etree.tostring(root, encoding="UTF-8", xml_declaration=True, pretty_print=True)


def _lom(title: Bilingual) -> etree._Element:
    lom = etree.Element(f"{{{MD_NS}}}lom")
    general = etree.SubElement(lom, f"{{{MD_NS}}}general")
    holder = etree.SubElement(general, f"{{{MD_NS}}}title")
    for language, value in (("en", title.en), ("ar", title.ar)):
        if value:
            string = etree.SubElement(holder, f"{{{MD_NS}}}langstring", {XML_LANG: language})
            string.text = value
    return lom


def _test(quiz: QuizPart, test_id: str, refs: list[tuple[str, str]]) -> bytes:
    test = etree.Element(
        _q("assessmentTest"),
        {
            "identifier": test_id,
            "title": quiz.title.en or test_id,
            f"{{{XSI}}}schemaLocation": QTI_LOCATION,
        },
        nsmap={None: QTI_NS, "xsi": XSI, "m": MATHML},
    )
    part = etree.SubElement(
        test,
        _q("testPart"),
        identifier="PART-1",
        navigationMode="linear",
        submissionMode="individual",
    )
    section = etree.SubElement(
        part,
        _q("assessmentSection"),
        identifier="SECTION-1",
        title=quiz.title.en or "-",
        visible="true",
    )
    if quiz.description:
        rubric = etree.SubElement(section, _q("rubricBlock"), view="candidate")
        _bilingual_blocks(rubric, quiz.description)
    for item_id, href in refs:
        etree.SubElement(section, _q("assessmentItemRef"), identifier=item_id, href=href)
    return _serialised(test)


def _bilingual_blocks(
    parent: etree._Element,
    text: Bilingual,
    image: Image | None = None,
    images: dict | None = None,
    image_dir: str = "",
) -> None:
    """`text` as XHTML blocks: the English, then the Arabic in a `div` marked `xml:lang="ar"`
    (when there is some), each followed by the image with that language's alt text."""
    english = etree.SubElement(parent, _q("div"), {XML_LANG: "en"}) if text.ar else parent
    markdown_to_xhtml(text.en, namespace=QTI_NS, container=english)
    if image is not None:
        _image(english, image, image.alt.en, images, image_dir)
    if text.ar or (image is not None and image.alt.ar):
        arabic = etree.SubElement(parent, _q("div"), {XML_LANG: "ar"})
        markdown_to_xhtml(text.ar, namespace=QTI_NS, container=arabic)
        if image is not None:
            _image(arabic, image, image.alt.ar or image.alt.en, images, image_dir)


def _image(parent, image: Image, alt: str, images: dict | None, image_dir: str) -> None:
    name = image.name or f"image-{len(images or {}) + 1}.png"
    if images is not None:
        images[name] = image
    holder = etree.SubElement(parent, _q("p"))
    attributes = {"src": f"{image_dir}{name}", "alt": alt}
    if image.width and image.height:
        attributes |= {"width": str(image.width), "height": str(image.height)}
    etree.SubElement(holder, _q("img"), attributes)


def _plain(parent: etree._Element, text: Bilingual) -> None:
    """A text the site keeps plain (a prompt to match, a match, an item to order)."""
    if not text.ar:
        parent.text = text.en
        return
    for language, value in (("en", text.en), ("ar", text.ar)):
        etree.SubElement(parent, _q("span"), {XML_LANG: language}).text = value


def _declare(item, identifier, cardinality, base_type, *, correct=(), mapping=None, exact=None):
    declaration = etree.SubElement(
        item,
        _q("responseDeclaration"),
        identifier=identifier,
        cardinality=cardinality,
        baseType=base_type,
    )
    if correct:
        holder = etree.SubElement(declaration, _q("correctResponse"))
        for value in correct:
            etree.SubElement(holder, _q("value")).text = value
    if mapping:
        attributes = {"defaultValue": "0"}
        if cardinality != "single":
            attributes |= {"lowerBound": "0", "upperBound": "1"}
        holder = etree.SubElement(declaration, _q("mapping"), attributes)
        for key, value in mapping:
            entry = {"mapKey": key, "mappedValue": _number(value)}
            if exact is not None:
                entry["caseSensitive"] = "true" if exact.get(key) else "false"
            etree.SubElement(holder, _q("mapEntry"), entry)
    return declaration


def _outcome(item, identifier, cardinality, base_type, default=None):
    outcome = etree.SubElement(
        item,
        _q("outcomeDeclaration"),
        identifier=identifier,
        cardinality=cardinality,
        baseType=base_type,
    )
    if default is not None:
        holder = etree.SubElement(outcome, _q("defaultValue"))
        etree.SubElement(holder, _q("value")).text = default


def _base(parent, base_type: str, value: str):
    element = etree.SubElement(parent, _q("baseValue"), baseType=base_type)
    element.text = value
    return element


def _set(parent, identifier: str):
    return etree.SubElement(parent, _q("setOutcomeValue"), identifier=identifier)


def _item(question: Question, item_id: str, images: dict, *, image_dir: str) -> bytes:
    item = etree.Element(
        _q("assessmentItem"),
        {
            "identifier": item_id,
            "title": question.name or item_id,
            "adaptive": "false",
            "timeDependent": "false",
            f"{{{XSI}}}schemaLocation": QTI_LOCATION,
        },
        nsmap={None: QTI_NS, "xsi": XSI, "m": MATHML},
    )
    kind = question.kind
    writer = _KINDS[kind]
    body = etree.Element(_q("itemBody"))
    _bilingual_blocks(body, question.prompt, question.image, images, image_dir)
    processing = etree.Element(_q("responseProcessing"))
    feedback = writer(item, body, processing, question, images, image_dir)
    _outcome(item, "SCORE", "single", "float", "0")
    _outcome(item, "MAXSCORE", "single", "float", "1")
    _outcome(item, "FEEDBACK", "multiple", "identifier")
    _outcome(item, "EXPLANATION", "single", "identifier")
    item.append(body)
    if question.explanation or question.explanation_image:
        _base(_set(processing, "EXPLANATION"), "identifier", "shown")
    item.append(processing)
    for identifier, text in feedback:
        if text:
            modal = etree.SubElement(
                item,
                _q("modalFeedback"),
                outcomeIdentifier="FEEDBACK",
                identifier=identifier,
                showHide="show",
            )
            _bilingual_blocks(modal, text)
    if question.explanation or question.explanation_image:
        modal = etree.SubElement(
            item,
            _q("modalFeedback"),
            outcomeIdentifier="EXPLANATION",
            identifier="shown",
            showHide="show",
            title="Explanation",
        )
        _bilingual_blocks(
            modal, question.explanation, question.explanation_image, images, image_dir
        )
    return _serialised(item)


def _choices(item, body, processing, question: Question, images, image_dir):
    ids = [f"C{n}" for n in range(1, len(question.parts) + 1)]
    if question.kind == "truefalse":
        ids = ["true", "false"]
    single = question.kind != "multiple"
    right = [i for i, part in zip(ids, question.parts, strict=True) if part.fraction == 1]
    if not right:
        right = [i for i, part in zip(ids, question.parts, strict=True) if part.fraction > 0]
    _declare(
        item,
        "RESPONSE",
        "single" if single else "multiple",
        "identifier",
        correct=right,
        mapping=[(i, part.fraction) for i, part in zip(ids, question.parts, strict=True)],
    )
    interaction = etree.SubElement(
        body,
        _q("choiceInteraction"),
        responseIdentifier="RESPONSE",
        shuffle="true" if question.shuffle else "false",
        maxChoices="1" if single else "0",
    )
    for ident, part in zip(ids, question.parts, strict=True):
        choice = etree.SubElement(interaction, _q("simpleChoice"), identifier=ident)
        _bilingual_blocks(choice, part.text, part.image, images, image_dir)
    map_response = etree.SubElement(_set(processing, "SCORE"), _q("mapResponse"))
    map_response.set("identifier", "RESPONSE")
    holder = _set(processing, "FEEDBACK")
    variable = etree.Element(_q("variable"), identifier="RESPONSE")
    if single:
        etree.SubElement(holder, _q("multiple")).append(variable)
    else:
        holder.append(variable)
    return [(ident, part.feedback) for ident, part in zip(ids, question.parts, strict=True)]


def _conditions(processing, rows):
    """One response condition per accepted number or answer: its tests, then the score as the
    highest reached, then its feedback."""
    for ident, tests, fraction in rows:
        branch = etree.SubElement(
            etree.SubElement(processing, _q("responseCondition")), _q("responseIf")
        )
        holder = etree.SubElement(branch, _q("or")) if len(tests) > 1 else branch
        for test in tests:
            holder.append(test)
        highest = etree.SubElement(_set(branch, "SCORE"), _q("max"))
        etree.SubElement(highest, _q("variable"), identifier="SCORE")
        _base(highest, "float", _number(fraction))
        _base(etree.SubElement(_set(branch, "FEEDBACK"), _q("multiple")), "identifier", ident)


def _numerical(item, body, processing, question: Question, images, image_dir):
    ids = [f"N{n}" for n in range(1, len(question.parts) + 1)]
    best = next((p for p in question.parts if p.fraction == 1), question.parts[0])
    _declare(item, "RESPONSE", "single", "float", correct=[_number(best.value)])
    holder = etree.SubElement(body, _q("p"))
    etree.SubElement(
        holder, _q("textEntryInteraction"), responseIdentifier="RESPONSE", expectedLength="12"
    )
    rows = []
    for ident, part in zip(ids, question.parts, strict=True):
        if part.tolerance:
            test = etree.Element(
                _q("equal"), toleranceMode="absolute", tolerance=_number(part.tolerance)
            )
        else:
            test = etree.Element(_q("equal"), toleranceMode="exact")
        etree.SubElement(test, _q("variable"), identifier="RESPONSE")
        _base(test, "float", _number(part.value))
        rows.append((ident, [test], part.fraction))
    _conditions(processing, rows)
    return [(ident, part.feedback) for ident, part in zip(ids, question.parts, strict=True)]


def _short(item, body, processing, question: Question, images, image_dir):
    ids = [f"T{n}" for n in range(1, len(question.parts) + 1)]
    best = next((p for p in question.parts if p.fraction == 1), question.parts[0])
    mapping, exact, seen = [], {}, set()
    for part in question.parts:
        for text in (part.text.en, part.text.ar):
            if text and text not in seen:
                seen.add(text)
                mapping.append((text, part.fraction))
                exact[text] = part.exact
    _declare(
        item, "RESPONSE", "single", "string", correct=[best.text.en], mapping=mapping, exact=exact
    )
    holder = etree.SubElement(body, _q("p"))
    etree.SubElement(
        holder, _q("textEntryInteraction"), responseIdentifier="RESPONSE", expectedLength="20"
    )
    rows = []
    for ident, part in zip(ids, question.parts, strict=True):
        tests = []
        for text in (part.text.en, part.text.ar):
            if not text:
                continue
            test = etree.Element(_q("stringMatch"), caseSensitive="true" if part.exact else "false")
            etree.SubElement(test, _q("variable"), identifier="RESPONSE")
            _base(test, "string", text)
            tests.append(test)
        rows.append((ident, tests, part.fraction))
    _conditions(processing, rows)
    return [(ident, part.feedback) for ident, part in zip(ids, question.parts, strict=True)]


def _matching(item, body, processing, question: Question, images, image_dir):
    prompts = [(f"P{n}", pair) for n, pair in enumerate(question.pairs, start=1) if pair.prompt]
    matches = [(f"M{n}", pair) for n, pair in enumerate(question.pairs, start=1)]
    correct = [f"P{p[1:]} M{p[1:]}" for p, _pair in prompts]
    share = (Decimal(1) / len(prompts)).quantize(Decimal("0.0000001")) if prompts else Decimal(0)
    _declare(
        item,
        "RESPONSE",
        "multiple",
        "directedPair",
        correct=correct,
        mapping=[(value, share) for value in correct],
    )
    interaction = etree.SubElement(
        body,
        _q("matchInteraction"),
        responseIdentifier="RESPONSE",
        shuffle="true",
        maxAssociations=str(len(prompts)),
    )
    left = etree.SubElement(interaction, _q("simpleMatchSet"))
    for ident, pair in prompts:
        _plain(
            etree.SubElement(left, _q("simpleAssociableChoice"), identifier=ident, matchMax="1"),
            pair.prompt,
        )
    right = etree.SubElement(interaction, _q("simpleMatchSet"))
    for ident, pair in matches:
        _plain(
            etree.SubElement(right, _q("simpleAssociableChoice"), identifier=ident, matchMax="0"),
            pair.match,
        )
    etree.SubElement(_set(processing, "SCORE"), _q("mapResponse"), identifier="RESPONSE")
    return []


def _ordering(item, body, processing, question: Question, images, image_dir):
    ids = [f"I{n}" for n in range(1, len(question.parts) + 1)]
    _declare(item, "RESPONSE", "ordered", "identifier", correct=ids)
    interaction = etree.SubElement(
        body, _q("orderInteraction"), responseIdentifier="RESPONSE", shuffle="true"
    )
    for ident, part in zip(ids, question.parts, strict=True):
        _plain(etree.SubElement(interaction, _q("simpleChoice"), identifier=ident), part.text)
    condition = etree.SubElement(processing, _q("responseCondition"))
    branch = etree.SubElement(condition, _q("responseIf"))
    match = etree.SubElement(branch, _q("match"))
    etree.SubElement(match, _q("variable"), identifier="RESPONSE")
    etree.SubElement(match, _q("correct"), identifier="RESPONSE")
    _base(_set(branch, "SCORE"), "float", "1")
    return []


_KINDS = {
    "single": _choices,
    "multiple": _choices,
    "truefalse": _choices,
    "numerical": _numerical,
    "short": _short,
    "matching": _matching,
    "ordering": _ordering,
}

__all__ = ["Part", "write_qti"]
