"""The question form's live preview: its prompt, choices and explanation as learners will see
them, in both languages, rendered on the server by the learners' renderer (quizzes/text.py).

The question's change page posts its own form here (htmx, as the instructor types; or the
Preview button without JavaScript). Nothing is saved; only what the form holds is shown, and
the images the question has stored (`?question=<id>`), with the alt texts the form holds: an
image picked but not saved yet shows once the question is saved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.urls import path
from django.utils.decorators import method_decorator
from django.utils.safestring import SafeString
from django.utils.text import capfirst
from django.utils.translation import get_language_info
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers

from quizzes.models import Choice, Question
from quizzes.text import TEXT_MAX_LENGTH, render_markdown, unwrap_paragraph

TEMPLATE = "admin/quizzes/question_preview.html"
# The choices' inline formset posts its rows as "choices-<n>-<field>".
_CHOICE_FIELD = re.compile(r"^choices-(\d{1,4})-(text|feedback)_([a-z]{2})$")
MAX_CHOICES = 50
# All the texts of one preview together: a question's prompt and explanation at their
# longest in both languages. Past it nothing is rendered, so a preview stays quick.
PREVIEW_MAX_LENGTH = 4 * TEXT_MAX_LENGTH


@dataclass
class PreviewImage:
    url: str
    width: int | None
    height: int | None
    alt: str


@dataclass
class PreviewChoice:
    text: SafeString
    feedback: SafeString
    is_correct: bool
    image: PreviewImage | None = None


@dataclass
class LanguagePreview:
    code: str
    name: str
    direction: str
    prompt: SafeString
    explanation: SafeString
    choices: list[PreviewChoice] = field(default_factory=list)
    image: PreviewImage | None = None
    explanation_image: PreviewImage | None = None


def _stored_image(obj, name: str, data: QueryDict, prefix: str, code: str) -> PreviewImage | None:
    """`obj`'s stored image `name`, with the alt text the form holds in `code` (or English's);
    none when the form clears it."""
    image = getattr(obj, name, None) if obj is not None else None
    if not image or data.get(f"{prefix}{name}-clear"):
        return None
    alt = data.get(f"{prefix}{name}_alt_{code}", "") or data.get(f"{prefix}{name}_alt_en", "")
    return PreviewImage(
        url=image.url,
        width=getattr(obj, f"{name}_width"),
        height=getattr(obj, f"{name}_height"),
        alt=alt,
    )


def _choice_rows(data: QueryDict) -> dict[int, dict[str, str]]:
    rows: dict[int, dict[str, str]] = {}
    for key in data:
        if match := _CHOICE_FIELD.match(key):
            index = int(match[1])
            if len(rows) < MAX_CHOICES or index in rows:
                rows.setdefault(index, {})[f"{match[2]}_{match[3]}"] = data.get(key, "")
    return rows


def _max_length(model: type, name: str) -> int:
    return model._meta.get_field(name).max_length or TEXT_MAX_LENGTH


def preview_problems(data: QueryDict) -> list[str]:
    """Why the posted form is not previewed: texts longer than the form takes, checked
    before anything is rendered. Empty when it is previewed."""
    problems = []
    total = 0
    fields = [
        (Question, f"{base}_{code}", data.get(f"{base}_{code}", ""), "")
        for base in ("prompt", "explanation")
        for code, _name in settings.LANGUAGES
    ]
    for number, (_index, row) in enumerate(sorted(_choice_rows(data).items()), start=1):
        prefix = _("Choice %(number)d:") % {"number": number} + " "
        fields.extend(
            (Choice, f"{base}_{code}", row.get(f"{base}_{code}", ""), prefix)
            for base in ("text", "feedback")
            for code, _name in settings.LANGUAGES
        )
    for model, name, value, prefix in fields:
        total += len(value)
        limit = _max_length(model, name)
        if len(value) > limit:
            problems.append(
                prefix
                + _("%(field)s has %(length)d characters; at most %(max)d are allowed.")
                % {
                    "field": capfirst(model._meta.get_field(name).verbose_name),
                    "length": len(value),
                    "max": limit,
                }
            )
    if not problems and total > PREVIEW_MAX_LENGTH:
        problems.append(
            _(
                "The question's texts have %(length)d characters together; at most %(max)d "
                "are previewed. Save the question to see it as learners will."
            )
            % {"length": total, "max": PREVIEW_MAX_LENGTH}
        )
    return problems


def question_preview(data: QueryDict, stored: Question | None = None) -> list[LanguagePreview]:
    """What the posted question form would show learners, in each language (call
    `preview_problems` first: this renders whatever it is given), with the images of the
    `stored` question and its choices."""
    rows = _choice_rows(data)
    stored_choices = {choice.pk: choice for choice in stored.choices.all()} if stored else {}
    kept = [
        (index, row)
        for index, row in sorted(rows.items())
        if not data.get(f"choices-{index}-DELETE")
    ]
    previews = []
    for code, _name in settings.LANGUAGES:
        info = get_language_info(code)
        preview = LanguagePreview(
            code=code,
            name=info["name_local"],
            direction="rtl" if info["bidi"] else "ltr",
            prompt=render_markdown(data.get(f"prompt_{code}", ""), lang=code),
            explanation=render_markdown(data.get(f"explanation_{code}", ""), lang=code),
            image=_stored_image(stored, "image", data, "", code),
            explanation_image=_stored_image(stored, "explanation_image", data, "", code),
        )
        for index, row in kept:
            text = row.get(f"text_{code}", "")
            if not text:
                continue
            choice_id = data.get(f"choices-{index}-id", "")
            choice = stored_choices.get(int(choice_id)) if choice_id.isdigit() else None
            preview.choices.append(
                PreviewChoice(
                    text=SafeString(unwrap_paragraph(render_markdown(text, lang=code))),
                    feedback=render_markdown(row.get(f"feedback_{code}", ""), lang=code),
                    is_correct=bool(data.get(f"choices-{index}-is_correct")),
                    image=_stored_image(choice, "image", data, f"choices-{index}-", code),
                )
            )
        previews.append(preview)
    return previews


class QuestionPreviewMixin:
    """The preview's URL and view, mixed into `QuestionAdmin`."""

    def get_urls(self):
        name = f"{self.opts.app_label}_{self.opts.model_name}_preview"
        view = self.admin_site.admin_view(self.preview_view)
        return [path("preview/", view, name=name), *super().get_urls()]

    @method_decorator(require_POST)
    @method_decorator(vary_on_headers("HX-Request"))
    def preview_view(self, request: HttpRequest) -> HttpResponse:
        if not (self.has_add_permission(request) or self.has_change_permission(request)):
            raise PermissionDenied
        htmx = getattr(request, "htmx", None)
        template = TEMPLATE + "#preview" if htmx and not htmx.history_restore_request else TEMPLATE
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Preview"),
        }
        problems = preview_problems(request.POST)
        context["problems"] = problems
        context["previews"] = [] if problems else question_preview(request.POST, stored=None)
        question_id = request.GET.get("question", "")
        stored = (
            Question.objects.filter(pk=int(question_id)).first() if question_id.isdigit() else None
        )
        if stored is not None and self.has_view_permission(request, stored) and not problems:
            context["previews"] = question_preview(request.POST, stored=stored)
        return render(request, template, context)
