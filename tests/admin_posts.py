"""What the admin's change pages post, built from the rows as stored, for tests to alter."""

from __future__ import annotations

import re
from html.parser import HTMLParser

# The sections of a question, one per kind's parts (a question's page shows them all).
QUESTION_SECTIONS = ("choices", "numerical_answers", "accepted_texts", "pairs", "order_items")
# The sections of the short-answer, matching and ordering kinds.
TYPED_SECTIONS = ("accepted_texts", "pairs", "order_items")
# Inlines nested in each row of an inline (the quiz's page: a question's sections).
NESTED = {"questions": QUESTION_SECTIONS}


def typed_sections(**rows: list[dict]) -> dict:
    """The management forms (and `rows`) of the short-answer, matching and ordering sections,
    as a question's page posts them."""
    return {
        key: value
        for section in TYPED_SECTIONS
        for key, value in inline(section, rows.get(section, [])).items()
    }


def inline(prefix: str, rows: list[dict], initial: int = 0) -> dict:
    """An inline formset's management form and rows, as the admin page posts them. A row's
    nested inlines are posted empty unless the row holds their keys ("choices-0-text_en",
    "choices-TOTAL_FORMS", …)."""
    data = {
        f"{prefix}-TOTAL_FORMS": str(len(rows)),
        f"{prefix}-INITIAL_FORMS": str(initial),
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }
    for index, row in enumerate(rows):
        for key, value in row.items():
            data[f"{prefix}-{index}-{key}"] = value
        for child in NESTED.get(prefix, ()):
            if not any(key.startswith(f"{child}-") for key in row):
                data |= inline(f"{prefix}-{index}-{child}", [])
    return data


def _rows(objects, parent: str, fields: dict, *, positions=None, delete=()) -> list[dict]:
    rows = []
    for obj in objects.order_by("position"):
        row = {"id": str(obj.pk), parent: str(getattr(obj, f"{parent}_id"))}
        row["position"] = str((positions or {}).get(obj.pk, obj.position))
        row |= {name: value(obj) for name, value in fields.items()}
        if obj.pk in delete:
            row["DELETE"] = "on"
        rows.append(row)
    return rows


def question_rows(quiz, *, positions=None, delete=()) -> list[dict]:
    """The quiz's questions with new `positions` ({pk: position}) and `delete`d pks. An empty
    explanation is posted as "Because.": a published quiz cannot be saved without one."""
    fields = {
        "kind": lambda question: question.kind,
        "prompt_en": lambda question: question.prompt_en,
        "explanation_en": lambda question: question.explanation_en or "Because.",
    }
    return _rows(quiz.questions, "quiz", fields, positions=positions, delete=delete)


def choice_rows(question, *, positions=None, correct=None, delete=()) -> list[dict]:
    """The question's choices with new `positions`, the `correct` one's pk, `delete`d pks."""
    fields = {"text_en": lambda choice: choice.text_en, "text_ar": lambda choice: choice.text_ar}
    rows = _rows(question.choices, "question", fields, positions=positions, delete=delete)
    for row in rows:
        pk = int(row["id"])
        is_correct = (
            pk == correct if correct is not None else question.choices.get(pk=pk).is_correct
        )
        if is_correct:
            row["is_correct"] = "on"
    return rows


def save_quiz(client, quiz, rows: list[dict], *, guide=None):
    """Save the quiz's change page, published, with these question rows."""
    data = (
        {
            "title_en": quiz.title_en,
            "slug": quiz.slug,
            "difficulty": quiz.difficulty,
            "guide": str(guide.pk if guide else quiz.guide_id),
            "is_published": "on",
            "feedback": quiz.feedback,
            "confidence": "off",
        }
        | inline("overrides", [])
        | inline("questions", rows, initial=sum(1 for row in rows if "id" in row))
    )
    return client.post(f"/en/admin/quizzes/quiz/{quiz.pk}/change/", data)


def save_question(client, question, rows: list[dict], numbers: list[dict] = (), **fields):
    """Save the question's change page with these choice rows (and accepted `numbers`);
    `fields` change its own."""
    data = {
        "quiz": str(question.quiz_id),
        "position": str(question.position),
        "kind": question.kind,
        "prompt_en": question.prompt_en,
        "explanation_en": question.explanation_en,
    }
    data |= {name: str(value) for name, value in fields.items()}
    data |= inline("choices", rows, initial=sum(1 for row in rows if "id" in row))
    data |= inline("numerical_answers", numbers, initial=sum(1 for row in numbers if "id" in row))
    data |= typed_sections()
    return client.post(f"/en/admin/quizzes/question/{question.pk}/change/", data)


def page_errors(response) -> str:
    """The error lists of a refused admin page: why a test's save did not go through."""
    return " | ".join(
        re.findall(r'<ul class="errorlist[^"]*">(.*?)</ul>', response.content.decode())
    )


def save_guide(client, guide, *, positions: dict[int, int] | None = None, **fields):
    """Save the guide's change page with its quizzes inline, their positions changed by
    `positions` (quiz id: position); `fields` change the guide's own."""
    quizzes = list(guide.quizzes.order_by("guide_position", "title_en"))
    rows = [
        {
            "id": str(quiz.pk),
            "guide": str(guide.pk),
            "guide_position": str((positions or {}).get(quiz.pk, quiz.guide_position)),
        }
        for quiz in quizzes
    ]
    data = {
        "slug": guide.slug,
        "title_en": guide.title_en,
        "title_ar": guide.title_ar or "",
        "url": guide.url,
    }
    data |= {name: str(value) for name, value in fields.items()}
    data |= inline("quizzes", rows, initial=len(rows))
    return client.post(f"/en/admin/quizzes/guide/{guide.pk}/change/", data)


class _BrowserForm(HTMLParser):
    """What a browser without JavaScript submits of a page's form: its enabled controls outside
    `<template>`s, checked boxes only, each select's selected options, textareas as typed (the
    newline after the tag dropped, as HTML parsers do)."""

    def __init__(self, form_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.in_form = False
        self.templates = 0
        self.fields: list[tuple[str, str]] = []
        self.files: list[str] = []
        self._select: str | None = None
        self._select_values: list[tuple[str, bool]] = []
        self._textarea: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form":
            self.in_form = attributes.get("id") == self.form_id
            return
        if tag == "template":
            self.templates += 1
        if not self.in_form or self.templates or "disabled" in attributes:
            if tag == "select":
                self._select = None
            return
        name = attributes.get("name")
        if tag == "input" and name:
            kind = attributes.get("type", "text")
            if kind in {"submit", "button", "reset", "image"}:
                return
            if kind in {"checkbox", "radio"} and "checked" not in attributes:
                return
            if kind == "file":
                self.files.append(name)
                return
            default = "on" if kind in {"checkbox", "radio"} else ""
            self.fields.append((name, attributes.get("value", default)))
        elif tag == "select" and name:
            self._select, self._select_values = name, []
        elif tag == "option" and self._select is not None:
            self._select_values.append((attributes.get("value", ""), "selected" in attributes))
        elif tag == "textarea" and name:
            self._textarea, self._text = name, []

    def handle_endtag(self, tag):
        if tag == "template":
            self.templates -= 1
        elif tag == "form":
            self.in_form = False
        elif tag == "select" and self._select is not None:
            chosen = [value for value, selected in self._select_values if selected]
            self.fields.append((self._select, (chosen or [self._select_values[0][0]])[0]))
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            text = "".join(self._text)
            self.fields.append((self._textarea, text[1:] if text.startswith("\n") else text))
            self._textarea = None

    def handle_data(self, data):
        if self._textarea is not None:
            self._text.append(data)


def browser_form(page: str, form_id: str) -> _BrowserForm:
    """The fields (name, value) and the file inputs' names a browser without JavaScript sends
    from `page`'s form `form_id`."""
    parser = _BrowserForm(form_id)
    parser.feed(page)
    return parser


BOUNDARY = "daleel-form-boundary"


def multipart_body(
    form: _BrowserForm,
    changes: dict[str, str] | None = None,
    files: dict[str, tuple[str, bytes]] | None = None,
) -> bytes:
    """`form` as a browser without JavaScript sends it: multipart, each empty file input as a
    part with an empty file name (which Django counts as a field, against
    DATA_UPLOAD_MAX_NUMBER_FIELDS), with `changes` ({name: value}) made to its fields and added
    where it has none, and `files` ({name: (file name, content)}) chosen in its file inputs."""
    changes = dict(changes or {})
    files = dict(files or {})
    lines: list[bytes] = []
    fields = [(name, changes.pop(name, value)) for name, value in form.fields]
    for name, value in [*fields, *changes.items()]:
        lines += [
            f"--{BOUNDARY}".encode(),
            f'Content-Disposition: form-data; name="{name}"'.encode(),
            b"",
            str(value).encode(),
        ]
    for name in [*form.files, *(name for name in files if name not in form.files)]:
        filename, content = files.get(name, ("", b""))
        lines += [
            f"--{BOUNDARY}".encode(),
            f'Content-Disposition: form-data; name="{name}"; filename="{filename}"'.encode(),
            b"Content-Type: application/octet-stream",
            b"",
            content,
        ]
    lines += [f"--{BOUNDARY}--".encode(), b""]
    return b"\r\n".join(lines)


MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"


def post_as_browser(
    client,
    url: str,
    form: _BrowserForm,
    changes: dict[str, str] | None = None,
    files: dict[str, tuple[str, bytes]] | None = None,
):
    """POST `form` as a browser without JavaScript does (`multipart_body`)."""
    return client.post(url, multipart_body(form, changes, files), content_type=MULTIPART)


def content_snapshot(quiz) -> dict:
    """Every row of `quiz`'s content, as stored, by model and id, each language's text in its
    own column: what a save must leave alone but for the edits it was asked to make (the
    quiz's version and search text, derived from the rest, aside)."""
    from modeltranslation.translator import translator

    from quizzes.models import (
        AcceptedText,
        Choice,
        MatchPair,
        NumericalAnswer,
        OrderItem,
        Question,
        Quiz,
    )

    def rows(model, **filters) -> dict:
        translated = set(translator.get_options_for_model(model).all_fields)
        names = [
            field.attname
            for field in model._meta.concrete_fields
            if field.name not in translated | {"updated_at", "search_text"}
        ]
        return {row["id"]: row for row in model._base_manager.filter(**filters).values(*names)}

    snapshot = {"quiz": rows(Quiz, pk=quiz.pk), "questions": rows(Question, quiz=quiz)}
    for model in (Choice, NumericalAnswer, AcceptedText, MatchPair, OrderItem):
        snapshot[model._meta.model_name] = rows(model, question__quiz=quiz)
    return snapshot


def snapshot_changes(before: dict, after: dict) -> dict:
    """{(model, id, field): (before, after)} for every value that differs, rows added or
    deleted as a whole. An empty translation is empty whether stored as NULL (as rows written
    by scripts have it) or "" (as a form saves it)."""
    changes = {}
    for model in before.keys() | after.keys():
        old, new = before.get(model, {}), after.get(model, {})
        for pk in old.keys() | new.keys():
            if pk not in new or pk not in old:
                changes[(model, pk, "*")] = (old.get(pk), new.get(pk))
                continue
            for field in old[pk].keys() | new[pk].keys():
                if {old[pk].get(field), new[pk].get(field)} == {None, ""}:
                    continue
                if old[pk].get(field) != new[pk].get(field):
                    changes[(model, pk, field)] = (old[pk].get(field), new[pk].get(field))
    return changes
