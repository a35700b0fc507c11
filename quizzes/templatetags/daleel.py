from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import datetime, time
from decimal import Decimal

from django import template
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import conditional_escape, format_html, linebreaks
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, ngettext

from ..grading import format_mark
from ..text import rendered, unwrap_paragraph

register = template.Library()

RTL_LANGUAGES = set(settings.LANGUAGES_BIDI)


def _direction(language: str) -> str:
    return "rtl" if language.split("-")[0] in RTL_LANGUAGES else "ltr"


def translated_value(obj, field: str) -> tuple[str, str | None]:
    """The field's text in the active language, and the language it fell back to (or None).

    Falls back field by field through the other configured languages, English first.
    """
    active = (get_language() or settings.LANGUAGE_CODE).split("-")[0]
    value = getattr(obj, f"{field}_{active}", None)
    if value:
        return value, None
    order = [settings.LANGUAGE_CODE] + [code for code, _name in settings.LANGUAGES]
    for code in order:
        if code == active:
            continue
        value = getattr(obj, f"{field}_{code}", None)
        if value:
            return value, code
    return "", None


# A bracketed gloss of Latin words in a title: «إعادة حساب التنشيطات (gradient checkpointing)».
_GLOSS = re.compile(r"\([^()]*[A-Za-z][^()]*\)")


def _glossed(value: str) -> SafeString:
    """`value` escaped, each bracketed Latin gloss in a `<span class="gloss">` that a line
    never breaks (a phone would leave a bracket at each line's end)."""
    pieces, last = [], 0
    for match in _GLOSS.finditer(value):
        pieces.append(conditional_escape(value[last : match.start()]))
        pieces.append(format_html('<span class="gloss">{}</span>', match.group(0)))
        last = match.end()
    pieces.append(conditional_escape(value[last:]))
    return mark_safe("".join(pieces))  # each piece escaped above


@register.simple_tag
def tr(
    obj, field: str, paragraphs: bool = False, plain: bool = False, gloss: bool = False
) -> SafeString | str:
    """Render a translated field; text shown in a fallback language carries its own lang/dir.

    `{% tr question "prompt" %}` on an Arabic page with no Arabic prompt gives
    `<span lang="en" dir="ltr">…English…</span>`, so screen readers switch voice and the
    bidirectional algorithm lays the English out left to right inside the RTL page.
    `plain=True` gives the text alone, for places that hold no markup such as `<title>`;
    `gloss=True` keeps a title's bracketed gloss on one line (`_glossed`).
    """
    value, fallback = translated_value(obj, field)
    if plain:
        return value  # escaped by the template, as any variable
    if gloss:
        value = _glossed(value)
    if paragraphs:
        body = mark_safe(linebreaks(value, autoescape=True))
        if fallback:
            return format_html(
                '<div lang="{}" dir="{}">{}</div>', fallback, _direction(fallback), body
            )
        return body
    if fallback:
        return format_html(
            '<span lang="{}" dir="{}">{}</span>', fallback, _direction(fallback), value
        )
    return format_html("{}", value)


@register.simple_tag
def md(obj, field: str, inline: bool = False) -> SafeString:
    """Render a translated long text (Markdown, see quizzes/text.py), with `tr`'s fallback.

    `inline=True` for places that hold phrasing content only (a heading, a label): a text of
    one paragraph gives the paragraph's content, as plain text did before Markdown.
    """
    value, fallback = translated_value(obj, field)
    if not value:
        return SafeString("")
    language = fallback or (get_language() or settings.LANGUAGE_CODE).split("-")[0]
    html = rendered(obj, field, language, value)
    if inline:
        html = unwrap_paragraph(html)
    if fallback:
        element = "span" if inline and "<p>" not in html and "<div" not in html else "div"
        return format_html(
            '<{0} lang="{1}" dir="{2}">{3}</{0}>',
            element,
            fallback,
            _direction(fallback),
            mark_safe(html),  # sanitised by quizzes.text
        )
    return mark_safe(html)  # sanitised by quizzes.text


# Elements that are not phrasing content: a text holding one may not go in a heading or a
# legend (MathML's <math>, even displayed, is phrasing content).
_NOT_PHRASING = re.compile(
    r"<(?:p|div|pre|table|ul|ol|dl|blockquote|h[1-6]|hr|figure|details)[\s>]"
)


@register.filter
def is_phrasing(html: str) -> bool:
    """Whether rendered text (`md ... inline=True`) may go in a heading or a legend."""
    return not _NOT_PHRASING.search(str(html))


@dataclass(frozen=True)
class PromptParts:
    """A prompt split for its step: `heading` (phrasing content, maybe empty) names the question;
    `body` (blocks, maybe empty) is read after it as text."""

    heading: SafeString
    body: SafeString


# `md`'s wrapper around a text shown in a fallback language: kept around each part.
_FALLBACK = re.compile(r'<(span|div) lang="([\w-]+)" dir="(ltr|rtl)">(.*)</\1>', re.S)


@register.filter
def prompt_parts(html: str) -> PromptParts:
    """The rendered prompt (`md question "prompt" inline=True`) as a heading and a body: a prompt
    of one paragraph is all heading; of several blocks, its first paragraph heads it and the
    rest (code, tables, later paragraphs) is the body; one that opens with a block has no
    heading of its own (the template names the question instead)."""
    html = str(html).strip()
    if is_phrasing(html):
        return PromptParts(mark_safe(html), SafeString(""))  # sanitised by quizzes.text
    wrapper = _FALLBACK.fullmatch(html)
    inner = wrapper[4].strip() if wrapper else html
    heading, body = "", inner
    if inner.startswith("<p>"):
        # Paragraphs do not nest: the first closing tag ends the first one.
        end = inner.index("</p>")
        heading, body = inner[3:end].strip(), inner[end + 4 :].strip()
    if wrapper:
        attributes = f'lang="{wrapper[2]}" dir="{wrapper[3]}"'
        heading = heading and f"<span {attributes}>{heading}</span>"
        body = body and f"<div {attributes}>{body}</div>"
    return PromptParts(mark_safe(heading), mark_safe(body))  # sanitised by quizzes.text


@register.filter
def prompt_has_body(html: str) -> bool:
    return bool(prompt_parts(html).body)


@register.filter(expects_localtime=True)
def html_datetime(value) -> str:
    """A datetime for a `<time datetime>`: ISO 8601 to the second (HTML allows at most three
    decimals of a second; `date:"c"` writes six)."""
    if not value:
        return ""
    return value.replace(microsecond=0).isoformat()


@register.filter
def mark(value) -> str:
    """A score or a mark as people read it: 3.5, 4, 2.33."""
    return format_mark(value)


@register.filter
def mark_tenths(value) -> int:
    """A partial mark in tenths, 1 to 9 (never drawn as none or all), for the width of its
    meter: the stylesheet's `mark-meter__fill--N` (no inline style under the CSP)."""
    return min(max(round(float(value or 0) * 10), 1), 9)


@register.filter
def ltr(value) -> SafeString:
    """A number that may carry a sign, isolated left to right: in an Arabic line a bare
    "-1.00" is drawn "1.00-" and reads as positive."""
    return format_html('<bdi dir="ltr">{}</bdi>', value)


@register.filter
def percent(value) -> SafeString:
    """A percentage drawn as written, "50%", in either direction (bare in an Arabic line
    it is drawn "%50")."""
    return format_html('<bdi dir="ltr">{}%</bdi>', value)


@register.filter
def plain_number(value) -> str:
    """A number as typed, without the zeros the database pads it with: 16, -0.5."""
    if value is None:
        return ""
    return f"{Decimal(value).normalize():f}"


@register.filter
def minutes(duration) -> int:
    """Whole minutes in a timedelta, rounded up so a wait is never understated."""
    seconds = duration.total_seconds() if duration else 0
    return max(1, -(-int(seconds) // 60))


@register.filter
def to_json(value) -> str:
    """`value` as JSON text, for a hidden element that a static script reads (allauth's
    passkey pages): a <script type="application/json"> would be inline."""
    return json.dumps(value, cls=DjangoJSONEncoder)


@register.filter
def comes_back(due: datetime | None, today: str = "") -> str:
    """When a review question is due, as the learner's day goes: "now", "in 5 minutes",
    "later today at 14:05", "tomorrow at 09:00", "on 3 December 2026" (the learner's time
    zone is the active one: no zone is named). With `today` ("today"), a sentence that says
    "later today" already: "at 14:05"."""
    if due is None:
        return ""
    now = timezone.now()
    seconds = (due - now).total_seconds()
    if seconds <= 0:
        return gettext("now")
    if seconds < 60 * 60:
        count = max(1, math.ceil(seconds / 60))
        return ngettext("in %(count)d minute", "in %(count)d minutes", count) % {"count": count}
    local = timezone.localtime(due)
    days = (local.date() - timezone.localdate(now)).days
    time = date_format(local, "TIME_FORMAT")
    if days == 0:
        if today:
            return gettext("at %(time)s") % {"time": time}
        return gettext("later today at %(time)s") % {"time": time}
    if days == 1:
        return gettext("tomorrow at %(time)s") % {"time": time}
    return gettext("on %(date)s") % {"date": date_format(local, "DATE_FORMAT")}


@register.filter
def missed_count(review) -> int:
    """How many questions of an attempt's answers (its result's `review` rows) were answered
    and not right: the questions the spaced review brings back."""
    return sum(1 for _question, answer, _verdicts in review if answer and not answer.is_correct)


@dataclass(frozen=True)
class ArrangeRow:
    """One select of a matching or ordering step: its number on the page, what it is for (a
    prompt, an item) and the number selected (0: none)."""

    number: int
    part: object
    selected: int


@register.simple_tag
def arrange_rows(question, parts, answer=None, form=None) -> list[ArrangeRow]:
    """The selects of a matching step (one per prompt, the match picked) or an ordering step
    (one per item as `parts` shows them, its position): as the form was posted, else as the
    answer saved them, else none picked (an item: its place as shown)."""
    posted = form.data.get("match" if question.kind == "matching" else "position") if form else None
    if question.kind == "matching":
        saved = (answer.arrangement or {}) if answer else {}
        numbers = {part.pk: n for n, part in enumerate(parts, start=1)}
        return [
            ArrangeRow(
                n,
                prompt,
                _posted_number(posted, n)
                if posted is not None
                else numbers.get(saved.get(str(prompt.pk)), 0),
            )
            for n, prompt in enumerate(question.prompts, start=1)
        ]
    order = list(answer.arrangement or []) if answer else []
    return [
        ArrangeRow(
            n,
            item,
            _posted_number(posted, n)
            if posted is not None
            else (order.index(item.pk) + 1 if item.pk in order else n),
        )
        for n, item in enumerate(parts, start=1)
    ]


def _posted_number(posted: list[str], n: int) -> int:
    value = posted[n - 1] if n <= len(posted) else ""
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 4 else 0


@register.filter
def zone_place(name: str = "") -> str:
    """A time zone by its city in the page's language («الرياض», "Riyadh"); the active zone's
    (the learner's, or the site's) without a name. A time is said with it: «بتوقيت الرياض»."""
    from accounts import zones

    return zones.place(name or timezone.get_current_timezone_name())


@register.filter
def zone_label(name: str) -> str:
    """A time zone as the picker lists it: «الرياض — المملكة العربية السعودية»."""
    from accounts import zones

    return zones.label(name)


@register.filter
def hour_of_day(hour: int) -> str:
    """An hour of the day as every time on the site is written: «8:00 ص», "8 a.m."."""
    return date_format(time(int(hour)), "TIME_FORMAT")
