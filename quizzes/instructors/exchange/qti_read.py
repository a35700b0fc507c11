"""QTI read: a content package (a zip with its `imsmanifest.xml`) or a bare QTI file.

- QTI 2.1 and 2.2 (Blackboard, item banks, Daleel's own export): each `assessmentTest` is a
  quiz, its items in the test's order (items that no test names make a quiz of their own);
  `choiceInteraction` (one answer, several, true or false), `textEntryInteraction` (a number
  for float and integer responses, else a short answer), `matchInteraction`,
  `orderInteraction`; per-answer feedback (`modalFeedback` and `feedbackInline`) and the
  explanation; texts in both languages by `xml:lang`; images in the package.
- QTI 1.2 (Canvas's QTI export and its classic and New Quizzes, and other 1.2 tools):
  `qti12.py`.

Items of other interactions (essay, hotspot, gap match, upload, drawing…), or of several
interactions at once, are reported by title and skipped.
"""

from __future__ import annotations

import posixpath
from decimal import Decimal

from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy
from lxml import etree

from ..gift.format import split_multilang
from .checks import (
    description_left_out,
    question_accepted,
    too_many_questions,
    unexplained_note,
)
from .content import (
    QTI,
    Bilingual,
    Document,
    ExchangeError,
    Image,
    Note,
    Question,
    QuizPart,
)
from .images import ImageRefused, image_from_bytes
from .qti2 import Item
from .rich_text import Converted, ImageRef, html_to_markdown, html_to_text
from .safety import (
    XML_LANG,
    ZIP_MAGIC,
    Package,
    child,
    children,
    copy_element,
    descendants,
    language_of,
    local,
    parse_xml,
    remove_element,
)

SEVEN = Decimal("0.0000001")
ARABIC = "ar"
# Interactions Daleel cannot hold, by the names QTI gives them.
INTERACTIONS = {
    "extendedTextInteraction": pgettext_lazy("a kind of question", "Essay"),
    "hotspotInteraction": pgettext_lazy("a kind of question", "Hotspot"),
    "hottextInteraction": pgettext_lazy("a kind of question", "Hot text"),
    "gapMatchInteraction": pgettext_lazy("a kind of question", "Gap match"),
    "graphicGapMatchInteraction": pgettext_lazy("a kind of question", "Graphic gap match"),
    "graphicOrderInteraction": pgettext_lazy("a kind of question", "Graphic order"),
    "graphicAssociateInteraction": pgettext_lazy("a kind of question", "Graphic associate"),
    "inlineChoiceInteraction": pgettext_lazy("a kind of question", "Inline choice"),
    "associateInteraction": pgettext_lazy("a kind of question", "Associate"),
    "selectPointInteraction": pgettext_lazy("a kind of question", "Select point"),
    "positionObjectInteraction": pgettext_lazy("a kind of question", "Position object"),
    "sliderInteraction": pgettext_lazy("a kind of question", "Slider"),
    "uploadInteraction": pgettext_lazy("a kind of question", "File upload"),
    "drawingInteraction": pgettext_lazy("a kind of question", "Drawing"),
    "mediaInteraction": pgettext_lazy("a kind of question", "Media"),
    "customInteraction": pgettext_lazy("a kind of question", "Custom"),
    "portableCustomInteraction": pgettext_lazy("a kind of question", "Portable custom"),
    "endAttemptInteraction": pgettext_lazy("a kind of question", "End attempt"),
}


def read_qti(data: bytes, *, max_questions: int) -> Document:
    document = Document(format=QTI)
    if data.startswith(ZIP_MAGIC):
        reader = _PackageReader(document, Package(data), max_questions)
        reader.read()
    else:
        root = parse_xml(data)
        reader = _PackageReader(document, None, max_questions)
        reader.read_root(root, source="")
    if note := unexplained_note(reader.unexplained):
        document.warnings.append(note)
    if not document.quizzes and not document.errors:
        document.errors.append(Note(0, _("The file has no question that can be imported.")))
    return document


class Texts:
    """Texts of one file of a package (an item, a QTI 1.2 assessment): HTML to Markdown in
    both languages, and the images they hold, read from the package and checked."""

    def __init__(self, reader: _PackageReader, source: str) -> None:
        self.reader = reader
        self.source = source

    def split(self, element: etree._Element) -> tuple[etree._Element, etree._Element | None]:
        """`element` as its English and Arabic versions (by `xml:lang`), None: no Arabic."""
        marked = [node for node in element.iter() if language_of(node)]
        if not any(language_of(node) == ARABIC for node in marked):
            return element, None
        english, arabic = copy_element(element), copy_element(element)
        for copy, keep in ((english, False), (arabic, True)):
            for node in list(copy.iter()):
                if node is copy or not isinstance(node.tag, str):
                    continue
                language = language_of(node)
                if language and (language == ARABIC) != keep:
                    remove_element(node)
        return english, arabic

    def rich(self, element: etree._Element | None, question: Question) -> tuple[Bilingual, list]:
        """A rich text (prompt, choice, feedback) as Markdown, with its images (each an
        ImageRef and the Arabic's ImageRef of the same file, or None)."""
        if element is None:
            return Bilingual(), []
        english, arabic = self.split(element)
        return self.both(
            html_to_markdown(english),
            html_to_markdown(arabic) if arabic is not None else None,
            question,
        )

    def both(self, en: Converted, ar: Converted | None, question: Question):
        """The English and Arabic conversions as one text, with their images paired."""
        self.reader.dropped(question, en.dropped + (ar.dropped if ar else []))
        images = []
        for ref in en.images:
            twin = next((a for a in ar.images if a.src == ref.src), None) if ar else None
            images.append((ref, twin))
        return Bilingual(en=en.markdown, ar=ar.markdown if ar else ""), images

    def html(self, html: str, question: Question) -> tuple[Bilingual, list]:
        """HTML given as a string (QTI 1.2's mattext), with Moodle's multilang spans too."""
        languages = split_multilang(html)
        return self.both(
            html_to_markdown(languages.en),
            html_to_markdown(languages.ar) if languages.ar else None,
            question,
        )

    def html_plain(self, html: str, question: Question) -> Bilingual:
        """HTML given as a string, as one line of plain text in each language."""
        languages = split_multilang(html)
        en = html_to_text(languages.en)
        ar = html_to_text(languages.ar) if languages.ar else None
        if en.images:
            self.reader.dropped(question, [_("an image in an answer Daleel keeps as text")])
        return Bilingual(en=en.markdown, ar=ar.markdown if ar else "")

    def plain(self, element: etree._Element | None, question: Question) -> Bilingual:
        if element is None:
            return Bilingual()
        english, arabic = self.split(element)
        en = html_to_text(english)
        ar = html_to_text(arabic) if arabic is not None else None
        if en.images:
            self.reader.dropped(question, [_("an image in an answer Daleel keeps as text")])
        return Bilingual(en=en.markdown, ar=ar.markdown if ar else "")

    def image(self, question: Question, images: list) -> Image | None:
        """The first of `images` as the field's image; the others are reported."""
        found = None
        for index, (ref, twin) in enumerate(images):
            if index:
                self.reader.dropped(question, [_("an image beyond the first of a text")])
                continue
            found = self.load(question, ref, twin)
        return found

    def load(self, question: Question, ref: ImageRef, twin: ImageRef | None) -> Image | None:
        package = self.reader.package
        src = ref.src.replace("$IMS-CC-FILEBASE$/", "").replace("%24IMS-CC-FILEBASE%24/", "")
        member = None
        if package is not None:
            candidates = [self.source, "", "web_resources/x"]
            for base in candidates:
                member = package.resolve(base, src)
                if member:
                    break
        if member is None:
            self.reader.dropped(
                question,
                [_("an image that is not in the package (%(src)s)") % {"src": ref.src[:80]}],
            )
            return None
        name = posixpath.basename(member)
        try:
            image = image_from_bytes(
                package.read(member),  # type: ignore[union-attr]
                name=name,
                alt=Bilingual(en=ref.alt, ar=twin.alt if twin else ""),
            )
        except ImageRefused as refusal:
            self.reader.document.errors.append(
                question.note(
                    _("Question “%(name)s”: the image “%(file)s” cannot be imported: %(reason)s")
                    % {"name": question.name, "file": name, "reason": refusal.message}
                )
            )
            return None
        if not image.alt.en:
            self.reader.document.warnings.append(
                question.note(
                    _(
                        "Question “%(name)s”: the image “%(file)s” has no alt text: describe "
                        "it in the admin for learners who cannot see it."
                    )
                    % {"name": question.name, "file": name}
                )
            )
        return image


class _PackageReader:
    def __init__(self, document: Document, package: Package | None, max_questions: int) -> None:
        self.document = document
        self.package = package
        self.max_questions = max_questions
        self.count = 0
        self.pending: dict[int, list[str]] = {}
        self.unexplained: list[str] = []
        self.too_many = False

    # --- The package ---------------------------------------------------------------------------

    def read(self) -> None:
        package = self.package
        assert package is not None
        manifest_name = next(
            (
                name
                for name in sorted(package.members, key=len)
                if posixpath.basename(name).lower() == "imsmanifest.xml"
            ),
            None,
        )
        if manifest_name is None:
            raise ExchangeError(
                [Note(0, _("This zip file is not a QTI package: it has no imsmanifest.xml."))]
            )
        manifest = parse_xml(package.read(manifest_name), source=manifest_name)
        self.manifest_title = _lom_title(manifest)
        resources = descendants(manifest, "resource")
        by_id = {resource.get("identifier"): resource for resource in resources}
        tests, items, assessments = [], [], []
        for resource in resources:
            kind = (resource.get("type") or "").lower()
            href = self.href_of(resource, manifest_name)
            if href is None:
                continue
            if kind.startswith("imsqti_test_xmlv2"):
                tests.append((resource, href))
            elif kind.startswith("imsqti_item_xmlv2"):
                items.append((resource, href))
            elif kind.startswith("imsqti_xmlv1p2") or kind.startswith("imsqti_assessment"):
                assessments.append((resource, href))
        plain = [a for a in assessments if "imscc" not in (a[0].get("type") or "")]
        for resource, href in plain or assessments:
            meta = self.canvas_meta(resource, by_id, manifest_name)
            self.read_root(parse_xml(package.read(href), source=href), source=href, meta=meta)
        named: set[str] = set()
        for resource, href in tests:
            named |= self.read_test(resource, href)
        loose = [href for _resource, href in items if href not in named]
        if loose:
            quiz = QuizPart(title=self.manifest_title, source=manifest_name)
            for href in loose:
                self.read_item_file(href, quiz)
            self.add(quiz)

    def href_of(self, resource: etree._Element, manifest_name: str) -> str | None:
        href = resource.get("href")
        if not href:
            first = child(resource, "file")
            href = first.get("href") if first is not None else None
        if not href:
            return None
        return self.package.resolve(manifest_name, href) if self.package else None

    def canvas_meta(self, resource, by_id, manifest_name) -> etree._Element | None:
        """Canvas's assessment_meta.xml beside a QTI 1.2 assessment: its title and description."""
        for dependency in children(resource, "dependency"):
            other = by_id.get(dependency.get("identifierref"))
            href = self.href_of(other, manifest_name) if other is not None else None
            if href and href.endswith("assessment_meta.xml"):
                return parse_xml(self.package.read(href), source=href)  # type: ignore[union-attr]
        return None

    def add(self, quiz: QuizPart) -> None:
        if quiz.questions:
            self.document.quizzes.append(quiz)

    def counted(self, source: str, line: int) -> bool:
        if self.count >= self.max_questions:
            if not self.too_many:
                self.too_many = True
                self.document.errors.append(too_many_questions(self.max_questions, line, source))
            return False
        self.count += 1
        return True

    def read_root(self, root: etree._Element, *, source: str, meta=None) -> None:
        name = local(root)
        if name == "questestinterop":
            from .qti12 import read_questestinterop

            read_questestinterop(self, root, source=source, meta=meta)
        elif name == "assessmentItem":
            quiz = QuizPart(source=source)
            self.read_item(root, source, quiz)
            self.add(quiz)
        else:
            self.document.errors.append(
                Note(
                    root.sourceline or 0,
                    _(
                        "This QTI file is a <%(root)s>; send its whole package (the zip with "
                        "imsmanifest.xml)."
                    )
                    % {"root": name},
                    source,
                )
            )

    # --- QTI 2 -----------------------------------------------------------------------------

    def read_test(self, resource: etree._Element, href: str) -> set[str]:
        package = self.package
        assert package is not None
        test = parse_xml(package.read(href), source=href)
        title = _lom_title(resource)
        if not title:
            title = Bilingual(en=" ".join((test.get("title") or "").split())[:200])
        quiz = QuizPart(title=title, source=href, line=test.sourceline or 0)
        texts = Texts(self, href)
        holder = Question(kind="description", prompt=Bilingual(), name=title.en, source=href)
        for rubric in descendants(test, "rubricBlock"):
            quiz.description, _images = texts.rich(rubric, holder)
            break
        named = set()
        for ref in descendants(test, "assessmentItemRef"):
            item = package.resolve(href, ref.get("href") or "")
            if item is None:
                self.document.errors.append(
                    Note(
                        ref.sourceline or 0,
                        _("The test names an item that is not in the package (%(href)s).")
                        % {"href": (ref.get("href") or "")[:80]},
                        href,
                    )
                )
                continue
            named.add(item)
            self.read_item_file(item, quiz)
        self.add(quiz)
        return named

    def read_item_file(self, href: str, quiz: QuizPart) -> None:
        assert self.package is not None
        root = parse_xml(self.package.read(href), source=href)
        if local(root) != "assessmentItem":
            return
        self.read_item(root, href, quiz)

    def read_item(self, item: etree._Element, source: str, quiz: QuizPart) -> None:
        line = item.sourceline or 0
        if not self.counted(source, line):
            return
        name = " ".join((item.get("title") or item.get("identifier") or "").split())[:200]
        question = Question(kind="", prompt=Bilingual(), name=name, line=line, source=source)
        body = child(item, "itemBody")
        interactions = [
            node
            for node in (body.iter() if body is not None else [])
            if local(node).endswith("Interaction")
        ]
        if len(interactions) != 1:
            question.skip_reason = (
                _("it has several interactions, and a question here has one")
                if interactions
                else _("it has no interaction to answer")
            )
            self.skip(question)
            return
        interaction = interactions[0]
        kind = local(interaction)
        if kind in INTERACTIONS or kind not in {
            "choiceInteraction",
            "textEntryInteraction",
            "matchInteraction",
            "orderInteraction",
        }:
            self.skip(question, INTERACTIONS.get(kind, kind))
            return
        texts = Texts(self, source)
        Item(self, texts, item, body, interaction, question).read()
        self.finish(question, quiz)

    def skip(self, question: Question, what: str = "") -> None:
        self.count -= 1
        if question.skip_reason:
            message = _("Question “%(name)s”: %(reason)s; skipped.") % {
                "name": question.name,
                "reason": question.skip_reason,
            }
        else:
            message = _("%(type)s question “%(name)s”: Daleel has no such kind; skipped.") % {
                "type": what,
                "name": question.name,
            }
        self.document.skipped.append(question.note(message))

    def dropped(self, question: Question, what: list[str]) -> None:
        if what:
            self.pending.setdefault(id(question), []).extend(what)

    def finish(self, question: Question, quiz: QuizPart) -> None:
        """Report what the question left out, check it, and add it to `quiz` if it holds."""
        dropped = list(dict.fromkeys(self.pending.pop(id(question), [])))
        if question.skip_reason:
            self.skip(question)
            return
        if dropped:
            self.document.warnings.append(
                question.note(
                    _("Question “%(name)s”: left out, as Daleel's texts cannot hold it: %(what)s.")
                    % {"name": question.name, "what": "; ".join(dropped)}
                )
            )
        if question.kind == "description":
            if not quiz.description:
                quiz.description = question.prompt
            else:
                self.document.skipped.append(description_left_out(question))
            return
        question_accepted(self.document, quiz, question, self.unexplained)


def _lom_title(element: etree._Element) -> Bilingual:
    """A LOM title (IMS metadata 1.2's langstrings or LOM's strings) in both languages."""
    for title in descendants(element, "title"):
        strings = [s for s in title.iter() if local(s) in ("langstring", "string")]
        if not strings:
            continue
        found = {"en": "", "ar": ""}
        for string in strings:
            language = (string.get(XML_LANG) or string.get("language") or "en").lower()[:2]
            value = " ".join((string.text or "").split())[:200]
            key = "ar" if language == "ar" else "en"
            found[key] = found[key] or value
        if found["en"] or found["ar"]:
            return Bilingual(en=found["en"] or found["ar"], ar=found["ar"] if found["en"] else "")
    return Bilingual()
