"""QTI 1.2 items, as Canvas (classic quizzes and New Quizzes' QTI export) and other 1.2 tools
write them: an `assessment` is a quiz (Canvas's `assessment_meta.xml` gives its title and
description), its items in their sections' order.

A Canvas item's kind comes from its `question_type`; any other's from its presentation:
`response_lid` with one or several answers, or `Ordered`; several `response_lid` (matching);
`response_str` (a number for `fibtype` Decimal or Integer, else a short answer). The key comes
from `resprocessing`: the conditions that set a score above zero. Per-answer feedback is the
`itemfeedback` a condition on that answer shows; Canvas's `general_fb` is the explanation.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy
from lxml import etree

from ...grading import NumberError, parse_number
from ...models import equal_weights
from ..gift.items import FALSE, TRUE
from .content import Bilingual, Pair, Part, Question, QuizPart
from .safety import child, children, descendants, local

SEVEN = Decimal("0.0000001")
CANVAS_KINDS = {
    "multiple_choice_question": "single",
    "true_false_question": "truefalse",
    "multiple_answers_question": "multiple",
    "short_answer_question": "short",
    "numerical_question": "numerical",
    "matching_question": "matching",
    "ordering_question": "ordering",
    "text_only_question": "description",
}
CANVAS_SKIPPED = {
    "essay_question": pgettext_lazy("a kind of question", "Essay"),
    "file_upload_question": pgettext_lazy("a kind of question", "File upload"),
    "fill_in_multiple_blanks_question": pgettext_lazy(
        "a kind of question", "Fill in multiple blanks"
    ),
    "multiple_dropdowns_question": pgettext_lazy("a kind of question", "Multiple dropdowns"),
    "calculated_question": pgettext_lazy("a kind of question", "Formula"),
    "categorization_question": pgettext_lazy("a kind of question", "Categorization"),
    "hot_spot_question": pgettext_lazy("a kind of question", "Hot spot"),
    "formula_question": pgettext_lazy("a kind of question", "Formula"),
}
GENERAL_FEEDBACK = {"general_fb", "general", "solution"}
VERDICT_FEEDBACK = {"correct_fb", "general_incorrect_fb", "incorrect_fb", "correct", "incorrect"}


def read_questestinterop(reader, root: etree._Element, *, source: str, meta=None) -> None:
    from .qti_read import Texts

    texts = Texts(reader, source)
    assessments = children(root, "assessment")
    holders = assessments or [root]
    for holder in holders:
        quiz = QuizPart(source=source, line=holder.sourceline or 0)
        title = holder.get("title") or ""
        if meta is not None:
            title = _text_of(child(meta, "title")) or title
            description = _text_of(child(meta, "description"))
            if description:
                quiz.description, _images = texts.html(
                    description, Question(kind="description", prompt=Bilingual())
                )
        quiz.title = Bilingual(en=" ".join(title.split())[:200])
        for item in descendants(holder, "item"):
            _Item12(reader, texts, item, source).read(quiz)
        reader.add(quiz)


def _text_of(element: etree._Element | None) -> str:
    if element is None:
        return ""
    return (element.xpath("string()") or "").strip()


def _number(text: str) -> Decimal | None:
    try:
        return Decimal(text.strip())
    except (InvalidOperation, AttributeError):
        return None


class _Item12:
    def __init__(self, reader, texts, item: etree._Element, source: str) -> None:
        self.reader = reader
        self.texts = texts
        self.item = item
        name = " ".join((item.get("title") or item.get("ident") or "").split())[:200]
        self.question = Question(
            kind="", prompt=Bilingual(), name=name, line=item.sourceline or 0, source=source
        )
        self.feedbacks = {
            fb.get("ident"): fb for fb in children(item, "itemfeedback") if fb.get("ident")
        }
        self.used: set[str] = set()
        self.maximum = Decimal(100)
        for decvar in descendants(item, "decvar"):
            value = _number(decvar.get("maxvalue") or "")
            if value and value > 0:
                self.maximum = value
                break

    # --- Reading -----------------------------------------------------------------------------

    def metadata(self, label: str) -> str:
        for field in descendants(self.item, "qtimetadatafield"):
            if _text_of(child(field, "fieldlabel")) == label:
                return _text_of(child(field, "fieldentry"))
        return ""

    def read(self, quiz: QuizPart) -> None:
        reader, question = self.reader, self.question
        if not reader.counted(question.source, question.line):
            return
        presentation = child(self.item, "presentation")
        canvas = self.metadata("question_type")
        lids = descendants(presentation, "response_lid") if presentation is not None else []
        strs = descendants(presentation, "response_str") if presentation is not None else []
        kind = CANVAS_KINDS.get(canvas)
        if canvas in CANVAS_SKIPPED or (canvas and kind is None):
            reader.skip(question, CANVAS_SKIPPED.get(canvas, canvas))
            return
        if kind is None:
            kind = self.guess(lids, strs, presentation)
            if kind is None:
                question.skip_reason = _("its kind of response is not one Daleel holds")
                reader.skip(question)
                return
        question.kind = kind
        question.prompt, images = self.prompt(presentation)
        question.image = self.texts.image(question, images)
        getattr(self, f"read_{kind}")(lids, strs)
        self.explanation()
        reader.finish(question, quiz)

    def guess(self, lids, strs, presentation) -> str | None:
        if presentation is None:
            return None
        others = [
            n
            for n in presentation.iter()
            if local(n) in ("response_xy", "response_grp", "response_num")
        ]
        if others:
            return None
        if len(lids) > 1 and not strs:
            return "matching"
        if len(lids) == 1 and not strs:
            cardinality = (lids[0].get("rcardinality") or "Single").lower()
            if cardinality == "ordered":
                return "ordering"
            return "multiple" if cardinality == "multiple" else "single"
        if len(strs) == 1 and not lids:
            fib = child(strs[0], "render_fib")
            fibtype = (fib.get("fibtype") or "") if fib is not None else ""
            if fibtype.lower() in ("decimal", "integer", "float"):
                return "numerical"
            return "short" if self.scored() else None
        return None

    def prompt(self, presentation) -> tuple[Bilingual, list]:
        """The presentation's material outside its responses, as one text."""
        if presentation is None:
            return Bilingual(), []
        pieces = []
        for material in presentation.iter():
            if local(material) != "material":
                continue
            if any(local(a).startswith("response_") for a in material.iterancestors()):
                continue
            pieces.append(self.material_html(material))
        return self.texts.html("".join(pieces), self.question)

    def material_html(self, material: etree._Element | None) -> str:
        if material is None:
            return ""
        pieces = []
        for node in material:
            name = local(node)
            if name in ("mattext", "mat_extension"):
                text = node.xpath("string()") or ""
                kind = (node.get("texttype") or "text/plain").lower()
                pieces.append(text if "html" in kind else _as_html(text))
            elif name == "matimage":
                uri = node.get("uri") or ""
                pieces.append(f'<img src="{_attr(uri)}" alt="{_attr(node.get("label") or "")}">')
            elif name == "matbreak":
                pieces.append("<br>")
        return "".join(pieces)

    def label_text(self, label: etree._Element) -> tuple[Bilingual, list]:
        material = next((m for m in label.iter() if local(m) == "material"), None)
        return self.texts.html(self.material_html(material), self.question)

    def label_plain(self, label: etree._Element | None) -> Bilingual:
        material = (
            next((m for m in label.iter() if local(m) == "material"), None)
            if (label is not None)
            else None
        )
        return self.texts.html_plain(self.material_html(material), self.question)

    def labels(self, lid: etree._Element) -> list[etree._Element]:
        return [n for n in lid.iter() if local(n) == "response_label"]

    # --- Keys --------------------------------------------------------------------------------

    def conditions(self):
        """Each `respcondition`: its score (None: it sets none), whether it adds, the values
        it tests by `respident` (`varequal`, and the bounds of ranges) outside any `not`, and
        the feedback it shows."""
        for condition in descendants(self.item, "respcondition"):
            score, adds = None, False
            for setvar in children(condition, "setvar"):
                value = _number(setvar.text or "")
                if value is not None:
                    score, adds = value, (setvar.get("action") or "Set").lower() == "add"
            tests = []
            holder = child(condition, "conditionvar")
            for node in holder.iter() if holder is not None else []:
                if any(local(a) == "not" for a in node.iterancestors()) or local(node) == "not":
                    continue
                if local(node) in ("varequal", "vargte", "varlte", "vargt", "varlt"):
                    tests.append((local(node), node.get("respident") or "", node))
            feedback = [d.get("linkrefid") for d in children(condition, "displayfeedback")]
            yield score, adds, tests, [f for f in feedback if f]

    def scored(self) -> bool:
        return any(score and score > 0 for score, _a, _t, _f in self.conditions())

    def feedback(self, ident: str | None) -> Bilingual:
        element = self.feedbacks.get(ident or "")
        if element is None:
            return Bilingual()
        self.used.add(ident or "")
        material = next((m for m in element.iter() if local(m) == "material"), None)
        text, images = self.texts.html(self.material_html(material), self.question)
        if images:
            self.reader.dropped(self.question, [_("an image in an answer's feedback")])
        return text

    def answer_feedback(self, ident: str) -> Bilingual:
        """The feedback a score-less condition on answer `ident` alone shows."""
        for score, _adds, tests, feedback in self.conditions():
            if score is None and len(tests) == 1 and (tests[0][2].text or "").strip() == ident:
                chosen = [f for f in feedback if f not in GENERAL_FEEDBACK | VERDICT_FEEDBACK]
                if chosen:
                    return self.feedback(chosen[0])
        return Bilingual()

    def explanation(self) -> None:
        question = self.question
        general = next((f for f in self.feedbacks if f in GENERAL_FEEDBACK), None)
        if general is not None:
            question.explanation = self.feedback(general)
        if any(ident not in self.used for ident in self.feedbacks):
            self.reader.dropped(question, [_("its feedback for any right or wrong response")])

    # --- Kinds -------------------------------------------------------------------------------

    def choice_parts(self, lids) -> dict[str, Part]:
        parts: dict[str, Part] = {}
        for label in self.labels(lids[0]) if lids else []:
            ident = label.get("ident") or ""
            text, images = self.label_text(label)
            if not text.en and not images:
                continue  # Canvas keeps the answers left blank; they are no choice
            part = Part(text=text, feedback=self.answer_feedback(ident))
            part.image = self.texts.image(self.question, images)
            parts[ident] = part
        return parts

    def scores(self) -> tuple[dict[str, Decimal], list[list[str]]]:
        """Each answer's score from conditions on it alone, and the sets of answers that
        conditions score together (all or nothing)."""
        alone: dict[str, Decimal] = {}
        together: list[list[str]] = []
        for score, adds, tests, _feedback in self.conditions():
            if not score or score <= 0:
                continue
            values = [(node.text or "").strip() for name, _r, node in tests if name == "varequal"]
            if len(values) == 1:
                previous = alone.get(values[0], Decimal(0))
                alone[values[0]] = previous + score if adds else max(previous, score)
            elif values:
                together.append(values)
        return alone, together

    def read_single(self, lids, strs) -> None:
        parts = self.choice_parts(lids)
        alone, together = self.scores()
        top = max(alone.values(), default=Decimal(0))
        for ident, part in parts.items():
            part.fraction = (alone.get(ident, Decimal(0)) / top).quantize(SEVEN) if top else 0
        self.question.parts = list(parts.values())

    def read_multiple(self, lids, strs) -> None:
        parts = self.choice_parts(lids)
        alone, together = self.scores()
        right = set(together[0]) if together else {k for k, v in alone.items() if v > 0}
        marks = [ident in right for ident in parts]
        for part, weight in zip(parts.values(), equal_weights(marks, kind="multiple"), strict=True):
            part.fraction = weight
        self.question.parts = list(parts.values())

    def read_truefalse(self, lids, strs) -> None:
        self.read_single(lids, strs)
        parts = self.question.parts
        true = next((p for p in parts if p.text.en.strip().lower() == "true"), None)
        false = next((p for p in parts if p.text.en.strip().lower() == "false"), None)
        if true is None or false is None:
            true, false = (parts + [Part(), Part()])[:2]
        self.question.parts = [
            Part(
                text=TRUE, fraction=Decimal(1 if true.fraction > 0 else 0), feedback=true.feedback
            ),
            Part(
                text=FALSE,
                fraction=Decimal(1 if false.fraction > 0 else 0),
                feedback=false.feedback,
            ),
        ]

    def read_ordering(self, lids, strs) -> None:
        labels = {label.get("ident"): label for label in self.labels(lids[0])} if lids else {}
        order: list[str] = []
        for score, _adds, tests, _feedback in self.conditions():
            if score and score > 0:
                order = [(node.text or "").strip() for name, _r, node in tests]
                break
        order = [ident for ident in order if ident in labels]
        order += [ident for ident in labels if ident not in order]
        for ident in order:
            text = self.label_plain(labels[ident])
            if not text.en:
                self.question.skip_reason = _("its items to order have no text")
            self.question.parts.append(Part(text=text))

    def read_matching(self, lids, strs) -> None:
        question = self.question
        right: dict[str, str] = {}
        for score, _adds, tests, _feedback in self.conditions():
            if score and score > 0:
                for _name, respident, node in tests:
                    right.setdefault(respident, (node.text or "").strip())
        matches: dict[str, Bilingual] = {}
        for lid in lids:
            for label in self.labels(lid):
                ident = label.get("ident") or ""
                text = self.label_plain(label)
                if ident not in matches and text.en:
                    matches[ident] = text
        used, seen = set(), set()
        for lid in lids:
            material = next((m for m in lid if local(m) == "material"), None)
            prompt = self.texts.html_plain(self.material_html(material), question)
            target = right.get(lid.get("ident") or "")
            if prompt.en and target in matches and (prompt, matches[target]) not in seen:
                seen.add((prompt, matches[target]))
                question.pairs.append(Pair(prompt=prompt, match=matches[target]))
                used.add(target)
        for ident, match in matches.items():
            if ident not in used:
                question.pairs.append(Pair(prompt=Bilingual(), match=match))

    def read_short(self, lids, strs) -> None:
        question = self.question
        seen = set()
        for score, _adds, tests, _feedback in self.conditions():
            if not score or score <= 0:
                continue
            for name, _respident, node in tests:
                said = " ".join((node.text or "").split())
                if name != "varequal" or not said or said in seen:
                    continue
                seen.add(said)
                exact = (node.get("case") or "No").lower() == "yes"
                question.parts.append(
                    Part(
                        text=Bilingual(en=said),
                        fraction=min(score / self.maximum, Decimal(1)).quantize(SEVEN),
                        exact=exact,
                        feedback=self.answer_feedback(said),
                    )
                )

    def read_numerical(self, lids, strs) -> None:
        question = self.question
        for score, _adds, tests, feedback in self.conditions():
            if not score or score <= 0:
                continue
            bounds: dict[str, Decimal] = {}
            for name, _respident, node in tests:
                try:
                    bounds.setdefault(name, parse_number((node.text or "").strip()))
                except NumberError:
                    continue
            low = bounds.get("vargte", bounds.get("vargt"))
            high = bounds.get("varlte", bounds.get("varlt"))
            if "varequal" in bounds:
                value = bounds["varequal"]
                spread = [abs(value - b) for b in (low, high) if b is not None]
                tolerance = max(spread, default=Decimal(0))
            elif low is not None and high is not None:
                value, tolerance = (low + high) / 2, abs(high - low) / 2
            else:
                continue
            shown = [f for f in feedback if f not in GENERAL_FEEDBACK | VERDICT_FEEDBACK]
            question.parts.append(
                Part(
                    value=value,
                    tolerance=tolerance,
                    fraction=min(score / self.maximum, Decimal(1)).quantize(SEVEN),
                    feedback=self.feedback(shown[0]) if shown else Bilingual(),
                )
            )

    def read_description(self, lids, strs) -> None:
        pass


def _as_html(text: str) -> str:
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return escaped.replace("\n", "<br>")


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
