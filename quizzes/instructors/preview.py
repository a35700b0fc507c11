"""The question form's live preview: its prompt, choices and explanation as learners will see
them, in both languages, rendered on the server by the learners' renderer (quizzes/text.py).

The question's change page posts its own form here (htmx, as the instructor types; or the
Preview button without JavaScript). Nothing is saved; only what the form holds is shown.
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
from django.utils.translation import get_language_info
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers

from quizzes.text import render_markdown, unwrap_paragraph

TEMPLATE = "admin/quizzes/question_preview.html"
# The choices' inline formset posts its rows as "choices-<n>-<field>".
_CHOICE_FIELD = re.compile(r"^choices-(\d{1,4})-(text|feedback)_([a-z]{2})$")
MAX_CHOICES = 50


@dataclass
class PreviewChoice:
    text: SafeString
    feedback: SafeString
    is_correct: bool


@dataclass
class LanguagePreview:
    code: str
    name: str
    direction: str
    prompt: SafeString
    explanation: SafeString
    choices: list[PreviewChoice] = field(default_factory=list)


def question_preview(data: QueryDict) -> list[LanguagePreview]:
    """What the posted question form would show learners, in each language."""
    rows: dict[int, dict[str, str]] = {}
    for key in data:
        if match := _CHOICE_FIELD.match(key):
            index = int(match[1])
            if len(rows) < MAX_CHOICES or index in rows:
                rows.setdefault(index, {})[f"{match[2]}_{match[3]}"] = data.get(key, "")
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
        )
        for index, row in kept:
            text = row.get(f"text_{code}", "")
            if not text:
                continue
            preview.choices.append(
                PreviewChoice(
                    text=SafeString(unwrap_paragraph(render_markdown(text, lang=code))),
                    feedback=render_markdown(row.get(f"feedback_{code}", ""), lang=code),
                    is_correct=bool(data.get(f"choices-{index}-is_correct")),
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
            "previews": question_preview(request.POST),
        }
        return render(request, template, context)
