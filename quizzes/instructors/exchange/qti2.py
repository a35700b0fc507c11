"""QTI 2.1 and 2.2 items of the four interactions Daleel holds (`qti_read.py` finds them):
`choiceInteraction` (one answer, several, true or false), `textEntryInteraction` (a number
for float and integer responses, else a short answer), `matchInteraction`, `orderInteraction`;
their keys from the response's correct values, its mapping, or response conditions (Daleel's
export writes one per accepted number or answer); per-answer feedback from `modalFeedback`
and `feedbackInline`; the explanation from a modal feedback on EXPLANATION or SOLUTION."""

from __future__ import annotations

import contextlib
from decimal import Decimal, InvalidOperation

from django.utils.translation import gettext as _
from lxml import etree

from ...grading import NumberError, parse_number
from ...models import equal_weights
from ..gift.items import BLANK, FALSE, TRUE
from .checks import image_choice_text, not_a_number
from .content import Bilingual, Pair, Part, Question
from .safety import (
    child,
    children,
    copy_element,
    descendants,
    local,
    remove_element,
    replace_with_text,
)

SEVEN = Decimal("0.0000001")
EXPLANATION_OUTCOMES = {"EXPLANATION", "SOLUTION", "GENERAL_FEEDBACK", "GENERALFEEDBACK"}
EXPLANATION_IDS = {"shown", "general", "solution", "explanation", "general_fb"}


class Item:
    """One QTI 2 item of the four interactions Daleel holds."""

    def __init__(self, reader, texts, item, body, interaction, question: Question):
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
        prompt = copy_element(self.body)
        for node in list(prompt.iter()):
            name = local(node)
            if name.endswith("Interaction") and name != "textEntryInteraction":
                prompt_inside = child(node, "prompt")
                if prompt_inside is not None:
                    prompt_inside.tag = "div"
                    node.addprevious(prompt_inside)
                remove_element(node)
            elif name == "textEntryInteraction":
                parent = node.getparent()
                alone = (
                    parent is not None
                    and not "".join(parent.itertext()).strip()
                    and len(parent) == 1
                )
                if alone and parent is not prompt:
                    remove_element(parent)  # a paragraph of its own: the prompt is above it
                else:
                    replace_with_text(node, f" {BLANK} ")
            elif name in ("feedbackBlock", "rubricBlock", "templateBlock"):
                remove_element(node)
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
            content = copy_element(choice)
            for node in [n for n in content if local(n) == "feedbackInline"]:
                remove_element(node)
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
                self.reader.document.errors.append(not_a_number(question, value))
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
