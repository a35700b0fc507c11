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

import contextlib
import posixpath
from copy import deepcopy
from decimal import Decimal, InvalidOperation

from django.utils.translation import gettext as _
from lxml import etree

from ...grading import NumberError, parse_number
from ...models import equal_weights
from ..gift.format import split_multilang
from ..gift.items import BLANK, FALSE, TRUE
from .checks import image_choice_text, question_problems, unexplained_note, weights_warning
from .content import (
    QTI,
    Bilingual,
    Document,
    ExchangeError,
    Image,
    Note,
    Pair,
    Part,
    Question,
    QuizPart,
)
from .images import ImageRefused, image_from_bytes
from .rich_text import ImageRef, html_to_markdown, html_to_text
from .safety import ZIP_MAGIC, Package, child, children, descendants, local, parse_xml

SEVEN = Decimal("0.0000001")
ARABIC = "ar"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
# Interactions Daleel cannot hold, by the names QTI gives them.
INTERACTIONS = {
    "extendedTextInteraction": "Essay",
    "hotspotInteraction": "Hotspot",
    "hottextInteraction": "Hot text",
    "gapMatchInteraction": "Gap match",
    "graphicGapMatchInteraction": "Graphic gap match",
    "graphicOrderInteraction": "Graphic order",
    "graphicAssociateInteraction": "Graphic associate",
    "inlineChoiceInteraction": "Inline choice",
    "associateInteraction": "Associate",
    "selectPointInteraction": "Select point",
    "positionObjectInteraction": "Position object",
    "sliderInteraction": "Slider",
    "uploadInteraction": "File upload",
    "drawingInteraction": "Drawing",
    "mediaInteraction": "Media",
    "customInteraction": "Custom",
    "portableCustomInteraction": "Portable custom",
    "endAttemptInteraction": "End attempt",
}
EXPLANATION_OUTCOMES = {"EXPLANATION", "SOLUTION", "GENERAL_FEEDBACK", "GENERALFEEDBACK"}
EXPLANATION_IDS = {"shown", "general", "solution", "explanation", "general_fb"}


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
        marked = [node for node in element.iter() if _lang_of(node)]
        if not any(_lang_of(node) == ARABIC for node in marked):
            return element, None
        english, arabic = _copy(element), _copy(element)
        for copy, keep in ((english, False), (arabic, True)):
            for node in list(copy.iter()):
                if node is copy or not isinstance(node.tag, str):
                    continue
                language = _lang_of(node)
                if language and (language == ARABIC) != keep:
                    _remove(node)
        return english, arabic

    def rich(self, element: etree._Element | None, question: Question) -> tuple[Bilingual, list]:
        """A rich text (prompt, choice, feedback) as Markdown, with its images (each an
        ImageRef and the Arabic's ImageRef of the same file, or None)."""
        if element is None:
            return Bilingual(), []
        english, arabic = self.split(element)
        en = html_to_markdown(english)
        ar = html_to_markdown(arabic) if arabic is not None else None
        self.reader.dropped(question, en.dropped + (ar.dropped if ar else []))
        images = []
        for ref in en.images:
            twin = next((a for a in ar.images if a.src == ref.src), None) if ar else None
            images.append((ref, twin))
        return Bilingual(en=en.markdown, ar=ar.markdown if ar else ""), images

    def html(self, html: str, question: Question) -> tuple[Bilingual, list]:
        """HTML given as a string (QTI 1.2's mattext), with Moodle's multilang spans too."""
        languages = split_multilang(html)
        en = html_to_markdown(languages.en)
        ar = html_to_markdown(languages.ar) if languages.ar else None
        self.reader.dropped(question, en.dropped + (ar.dropped if ar else []))
        images = []
        for ref in en.images:
            twin = next((a for a in ar.images if a.src == ref.src), None) if ar else None
            images.append((ref, twin))
        return Bilingual(en=en.markdown, ar=ar.markdown if ar else ""), images

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
            if not any("at most" in str(e) for e in self.document.errors):
                self.document.errors.append(
                    Note(
                        line,
                        _(
                            "The file has more than %(max)d questions; at most %(max)d can be "
                            "imported from one file. Split it into several files."
                        )
                        % {"max": self.max_questions},
                        source,
                    )
                )
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
        _Item(self, texts, item, body, interaction, question).read()
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
                self.document.skipped.append(
                    question.note(
                        _(
                            "Description “%(name)s”: the quiz has a description already; this "
                            "one was left out."
                        )
                        % {"name": question.name}
                    )
                )
            return
        problems = question_problems(question)
        if problems:
            self.document.errors.extend(problems)
            return
        if warning := weights_warning(question):
            self.document.warnings.append(warning)
        if not question.explanation.en:
            self.unexplained.append(question.name)
        quiz.questions.append(question)


class _Item:
    """One QTI 2 item of the four interactions Daleel holds."""

    def __init__(self, reader, texts: Texts, item, body, interaction, question: Question):
        self.reader = reader
        self.texts = texts
        self.item = item
        self.body = body
        self.interaction = interaction
        self.question = question
        identifier = interaction.get("responseIdentifier")
        self.declaration = next(
            (d for d in children(item, "responseDeclaration") if d.get("identifier") == identifier),
            None,
        )
        self.response = identifier or ""
        self.feedback: dict[str, etree._Element] = {}
        self.used_feedback: set[str] = set()
        self.explanation = None
        for modal in children(item, "modalFeedback"):
            outcome = (modal.get("outcomeIdentifier") or "").upper()
            ident = modal.get("identifier") or ""
            if outcome in EXPLANATION_OUTCOMES or ident.lower() in EXPLANATION_IDS:
                self.explanation = self.explanation if self.explanation is not None else modal
            else:
                self.feedback.setdefault(ident, modal)

    def read(self) -> None:
        question = self.question
        kind = local(self.interaction)
        getattr(self, f"read_{kind}")()
        prompt = _copy(self.body)
        for node in list(prompt.iter()):
            name = local(node)
            if name.endswith("Interaction") and name != "textEntryInteraction":
                prompt_inside = child(node, "prompt")
                if prompt_inside is not None:
                    prompt_inside.tag = "div"
                    node.addprevious(prompt_inside)
                _remove(node)
            elif name == "textEntryInteraction":
                parent = node.getparent()
                alone = (
                    parent is not None
                    and not "".join(parent.itertext()).strip()
                    and len(parent) == 1
                )
                if alone and parent is not prompt:
                    _remove(parent)  # a paragraph of its own: the prompt is above it
                else:
                    _replace_with_text(node, f" {BLANK} ")
            elif name in ("feedbackBlock", "rubricBlock", "templateBlock"):
                _remove(node)
        question.prompt, images = self.texts.rich(prompt, question)
        question.image = self.texts.image(question, images)
        if self.explanation is not None:
            question.explanation, images = self.texts.rich(self.explanation, question)
            question.explanation_image = self.texts.image(question, images)
        unused = [ident for ident in self.feedback if ident not in self.used_feedback]
        if unused:
            self.reader.dropped(question, [_("its feedback for any right or wrong response")])

    # --- Keys --------------------------------------------------------------------------------

    def correct(self) -> list[str]:
        holder = child(self.declaration, "correctResponse")
        return (
            [" ".join((v.text or "").split()) for v in children(holder, "value")]
            if (holder is not None)
            else []
        )

    def mapping(self) -> dict[str, Decimal]:
        holder = child(self.declaration, "mapping")
        found = {}
        for entry in children(holder, "mapEntry") if holder is not None else []:
            try:
                found[" ".join((entry.get("mapKey") or "").split())] = Decimal(
                    entry.get("mappedValue") or "0"
                )
            except InvalidOperation:
                continue
        return found

    def conditions(self) -> list[dict]:
        """Daleel's own response processing, one condition per accepted answer: what it
        tests (values, tolerance, case), the score it sets and the feedback it names."""
        processing = child(self.item, "responseProcessing")
        rules = []
        for branch in (
            descendants(processing, "responseIf") + descendants(processing, "responseElseIf")
            if processing is not None
            else []
        ):
            tests = [
                node
                for node in branch.iter()
                if local(node) in ("stringMatch", "equal", "match")
                and any(local(v) == "variable" for v in node)
            ]
            if not tests:
                continue
            rule = {
                "values": [],
                "tolerance": Decimal(0),
                "exact": False,
                "score": None,
                "relative": False,
            }
            for test in tests:
                value = next((v for v in test if local(v) == "baseValue"), None)
                if value is not None:
                    rule["values"].append(" ".join((value.text or "").split()))
                elif any(local(v) == "correct" for v in test):
                    rule["values"].extend(self.correct()[:1])
                rule["relative"] = (test.get("toleranceMode") or "") == "relative"
                rule["exact"] = (test.get("caseSensitive") or "true").lower() == "true" and (
                    local(test) == "stringMatch"
                )
                tolerance = (test.get("tolerance") or "").split()
                if tolerance:
                    with contextlib.suppress(InvalidOperation):
                        rule["tolerance"] = abs(Decimal(tolerance[0]))
            for setter in (n for n in branch if local(n) == "setOutcomeValue"):
                values = [(v.text or "").strip() for v in setter.iter() if local(v) == "baseValue"]
                if setter.get("identifier") == "SCORE" and values:
                    with contextlib.suppress(InvalidOperation):
                        rule["score"] = Decimal(values[-1])
                elif values:
                    rule["feedback"] = values[-1]
            if rule["values"]:
                rules.append(rule)
        return rules

    def feedback_of(self, ident: str) -> Bilingual:
        modal = self.feedback.get(ident)
        if modal is None:
            return Bilingual()
        self.used_feedback.add(ident)
        text, images = self.texts.rich(modal, self.question)
        if images:
            self.reader.dropped(self.question, [_("an image in an answer's feedback")])
        return text

    # --- Interactions ------------------------------------------------------------------------

    def read_choiceInteraction(self) -> None:  # noqa: N802 - QTI's name
        question = self.question
        choices = children(self.interaction, "simpleChoice")
        maximum = self.interaction.get("maxChoices") or "1"
        question.shuffle = (self.interaction.get("shuffle") or "false").lower() == "true"
        correct = set(self.correct())
        mapping = self.mapping()
        for choice in choices:
            ident = choice.get("identifier") or ""
            inline = [node for node in choice if local(node) == "feedbackInline"]
            content = _copy(choice)
            for node in [n for n in content if local(n) == "feedbackInline"]:
                _remove(node)
            text, images = self.texts.rich(content, question)
            feedback = self.feedback_of(ident)
            if inline and not feedback:
                feedback, _images = self.texts.rich(inline[0], question)
            part = Part(text=text, feedback=feedback)
            part.image = self.texts.image(question, images)
            part.text = image_choice_text(text, part.image, len(question.parts) + 1)
            part.fraction = mapping.get(ident, Decimal(1) if ident in correct else Decimal(0))
            part.value = Decimal(1) if ident in correct else Decimal(0)
            question.parts.append(part)
        single = maximum == "1"
        question.kind = "single" if single else "multiple"
        if single and _true_false(choices, question.parts):
            question.kind = "truefalse"
            true, false = _true_false(choices, question.parts)
            question.parts = [
                Part(text=TRUE, fraction=_full(true), feedback=true.feedback),
                Part(text=FALSE, fraction=_full(false), feedback=false.feedback),
            ]
            return
        top = max((p.fraction for p in question.parts), default=Decimal(0))
        if single:
            for part in question.parts:
                part.fraction = (part.fraction / top).quantize(SEVEN) if top > 0 else Decimal(0)
        elif mapping:
            total = sum((p.fraction for p in question.parts if p.fraction > 0), Decimal(0))
            for part in question.parts:
                part.fraction = (
                    (part.fraction / total).quantize(SEVEN) if total > 0 else part.fraction
                )
                part.fraction = max(min(part.fraction, Decimal(1)), Decimal(-1))
        else:
            marks = [part.value > 0 for part in question.parts]
            for part, weight in zip(
                question.parts, equal_weights(marks, kind="multiple"), strict=True
            ):
                part.fraction = weight
        for part in question.parts:
            part.value = Decimal(0)

    def read_orderInteraction(self) -> None:  # noqa: N802
        question = self.question
        question.kind = "ordering"
        choices = {c.get("identifier"): c for c in children(self.interaction, "simpleChoice")}
        order = [ident for ident in self.correct() if ident in choices]
        order += [ident for ident in choices if ident not in order]
        for ident in order:
            text = self.texts.plain(choices[ident], question)
            if not text.en:
                question.skip_reason = _("its items to order have no text")
            question.parts.append(Part(text=text))

    def read_matchInteraction(self) -> None:  # noqa: N802
        question = self.question
        question.kind = "matching"
        sets = children(self.interaction, "simpleMatchSet")
        if len(sets) != 2:
            return
        prompts = {c.get("identifier"): c for c in children(sets[0], "simpleAssociableChoice")}
        matches = [(c.get("identifier"), c) for c in children(sets[1], "simpleAssociableChoice")]
        pairs: dict[str, list[str]] = {}
        keys = self.correct() or [key for key, value in self.mapping().items() if value > 0]
        for value in keys:
            parts = value.split()
            if len(parts) != 2:
                continue
            source, target = parts
            if source not in prompts:
                source, target = target, source
            pairs.setdefault(target, []).append(source)
        seen = set()
        for ident, match in matches:
            match_text = self.texts.plain(match, question)
            for prompt_id in pairs.get(ident, [None]):
                prompt = prompts.get(prompt_id) if prompt_id else None
                prompt_text = self.texts.plain(prompt, question)
                if not match_text.en or (prompt is not None and not prompt_text.en):
                    question.skip_reason = _("its prompts or matches have no text")
                    continue
                if (prompt_text, match_text) not in seen:
                    seen.add((prompt_text, match_text))
                    question.pairs.append(Pair(prompt=prompt_text, match=match_text))

    def read_textEntryInteraction(self) -> None:  # noqa: N802
        question = self.question
        base_type = (
            (self.declaration.get("baseType") or "string")
            if self.declaration is not None
            else "string"
        )
        rules = self.conditions()
        if base_type in ("float", "integer"):
            question.kind = "numerical"
            self.numbers(rules)
        else:
            question.kind = "short"
            self.texts_accepted(rules)

    def numbers(self, rules: list[dict]) -> None:
        question = self.question
        found = []
        for rule in rules:
            if rule["score"] is None or rule["score"] <= 0 or not rule["values"]:
                continue
            tolerance = rule["tolerance"]
            if rule["relative"]:
                # A relative tolerance is a percentage of the value.
                value = number_or_zero(rule["values"][0])
                tolerance = (abs(value) * tolerance / 100).normalize()
            found.append((rule["values"][0], tolerance, rule["score"], rule.get("feedback")))
        if not found:
            mapping = self.mapping()
            found = [(value, Decimal(0), Decimal(1), None) for value in self.correct()]
            found += [
                (k, Decimal(0), v, None)
                for k, v in mapping.items()
                if k not in self.correct() and v > 0
            ]
        top = max((score for _v, _t, score, _f in found), default=Decimal(1)) or Decimal(1)
        for value, tolerance, score, feedback in found:
            try:
                number = parse_number(value)
            except NumberError:
                self.reader.document.errors.append(
                    question.note(
                        _("Question “%(name)s”: “%(answer)s” is not a number.")
                        % {"name": question.name, "answer": value[:40]}
                    )
                )
                continue
            question.parts.append(
                Part(
                    value=number,
                    tolerance=tolerance,
                    fraction=(score / top).quantize(SEVEN) if top > 1 else score.quantize(SEVEN),
                    feedback=self.feedback_of(feedback) if feedback else Bilingual(),
                )
            )

    def texts_accepted(self, rules: list[dict]) -> None:
        question = self.question
        rows = []
        for rule in rules:
            if rule["score"] is None or rule["score"] <= 0:
                continue
            values = rule["values"]
            rows.append(
                (
                    Bilingual(en=values[0], ar=values[1] if len(values) > 1 else ""),
                    rule["score"],
                    rule["exact"],
                    rule.get("feedback"),
                )
            )
        if not rows:
            holder = child(self.declaration, "mapping")
            exact = holder is not None and any(
                (e.get("caseSensitive") or "false").lower() == "true"
                for e in children(holder, "mapEntry")
            )
            mapping = self.mapping()
            rows = [(Bilingual(en=k), v, exact, None) for k, v in mapping.items() if v > 0]
            rows += [
                (Bilingual(en=v), Decimal(1), exact, None)
                for v in self.correct()
                if v not in mapping
            ]
        top = max((score for _t, score, _e, _f in rows), default=Decimal(1))
        for text, score, exact, feedback in rows:
            question.parts.append(
                Part(
                    text=text,
                    fraction=(score / top).quantize(SEVEN) if top > 1 else score.quantize(SEVEN),
                    exact=exact,
                    feedback=self.feedback_of(feedback) if feedback else Bilingual(),
                )
            )


def number_or_zero(text: str) -> Decimal:
    try:
        return parse_number(text)
    except NumberError:
        return Decimal(0)


def _full(part: Part) -> Decimal:
    return Decimal(1) if part.fraction > 0 else Decimal(0)


_TRUE_WORDS = {"true", "صواب", "صح", "صحيح", "vrai", "wahr", "richtig", "verdadero"}
_FALSE_WORDS = {"false", "خطأ", "خاطئ", "faux", "falsch", "falso"}


def _true_false(choices, parts: list[Part]) -> tuple[Part, Part] | None:
    if len(choices) != 2:
        return None
    found: dict[str, Part] = {}
    for choice, part in zip(choices, parts, strict=True):
        ident = (choice.get("identifier") or "").lower()
        said = part.text.en.strip().lower().rstrip(".")
        if ident == "true" or said in _TRUE_WORDS:
            found["true"] = part
        elif ident == "false" or said in _FALSE_WORDS:
            found["false"] = part
    if len(found) != 2 or sum(p.fraction > 0 for p in found.values()) != 1:
        return None
    return found["true"], found["false"]


def _lang_of(node: etree._Element) -> str:
    if not isinstance(node.tag, str):
        return ""
    value = node.get(XML_LANG) or node.get("lang") or ""
    return value.strip().lower().replace("_", "-").split("-")[0]


def _copy(element: etree._Element) -> etree._Element:
    copied = deepcopy(element)
    copied.tail = None
    return copied


def _remove(node: etree._Element) -> None:
    parent = node.getparent()
    if parent is None:
        return
    tail = node.tail
    previous = node.getprevious()
    if tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(node)


def _replace_with_text(node: etree._Element, text: str) -> None:
    node.tail = text + (node.tail or "")
    _remove(node)


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
