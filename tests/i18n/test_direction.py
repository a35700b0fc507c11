"""Code and math tokens in Arabic text sit inside a left-to-right isolate.

In a right-to-left paragraph the bidirectional algorithm draws a lone `{` as `}`, `\\{` as `}\\`,
`$CATEGORY` as `CATEGORY$` and `√N` as `N√`: an instructor told to type `{` sees `}`. Such a token
belongs inside LRI (U+2066) … PDI (U+2069) in plain text, or inside `<bdi>` or an element with
`dir="ltr"` in a string that is rendered as HTML (see docs/arabic-glossary.md).

The scan splits on whitespace; for each token outside an isolate it drops the prose punctuation
around it (quotes and brackets before, quotes, brackets and sentence marks after), then flags the
token if what is left starts or ends with one of `$ { } \\ √ < :`. So «الدليل:» passes, while
`'{'`, `\\{`, `$CATEGORY:`, `{mlang ar}` (two tokens) and `N√` do not.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.factories import make_instructor

from .test_catalogue import PO, parse_po

LRI, PDI = "\u2066", "\u2069"
CODE_EDGES = set("${}\\√<:")
PROSE_BEFORE = "'\"«(["
PROSE_AFTER = "'\"»)].,،؛;:!?؟"
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%%")
INNERMOST_LRI = re.compile(f"{LRI}[^{LRI}{PDI}]*{PDI}")
HTML_ISOLATE = re.compile(
    r"<bdi\b[^>]*>.*?</bdi>|<(\w+)\s[^>]*\bdir=\"ltr\"[^>]*>.*?</\1>", re.DOTALL
)
FIXTURES = Path(settings.BASE_DIR) / "fixtures"


def unisolated_tokens(text: str) -> list[str]:
    """The tokens of `text` that need an isolate and have none; `[text]` if its LRIs don't pair."""
    text = HTML_ISOLATE.sub(" ", PLACEHOLDER.sub("", text))
    while INNERMOST_LRI.search(text):
        text = INNERMOST_LRI.sub(" ", text)
    if LRI in text or PDI in text:
        return [text]
    found = []
    for token in html.unescape(text).split():
        start, end = 0, len(token)
        while start < end and token[start] in PROSE_BEFORE:
            start += 1
        while end > start and token[end - 1] in PROSE_AFTER:
            end -= 1
        core = token[start:end]
        if core and (core[0] in CODE_EDGES or core[-1] in CODE_EDGES):
            found.append(token)
    return found


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("اكتب \\{ إن أردت القوس", ["\\{"]),
        ("لم يُغلق '{' بـ '}'", ["'{'", "'}'"]),
        ("يؤخذ عنوانه من $CATEGORY: في الملف", ["$CATEGORY:"]),
        ("أو {mlang ar}…{mlang}.", ["{mlang", "ar}…{mlang}."]),
        ("نحو N√ مقطع", ["N√"]),
        ("السطر %(line)d: %(message)s", []),
        ("الدليل: FSDP و 2Ψ و O(√N) و (####): و '::'", []),
        (f"اكتب {LRI}\\{{{PDI} أو {LRI}{{mlang ar}}…{{mlang}}{PDI}.", []),
        ('التعليقات <code dir="ltr">$CATEGORY:</code> و <bdi>\\{</bdi>', []),
        ("&lt;span lang", ["<span"]),
        (f"{LRI}\\{{ بلا نهاية", [f"{LRI}\\{{ بلا نهاية"]),
    ],
)
def test_the_scan_flags_code_tokens_left_outside_an_isolate(text, flagged):
    assert unisolated_tokens(text) == flagged


def test_no_arabic_translation_leaves_a_code_token_outside_an_isolate():
    """A library's `{name}` placeholder (str.format, filled with a name or a title) is no token:
    it is dropped when the English has it too, and so are HTML tags when the English has them
    (a link in allauth's messages, rendered as markup)."""
    found = {}
    for entry in parse_po(PO)[1:]:
        placeholders = set(re.findall(r"\{\w+\}", entry.msgid))
        for form in entry.msgstr.values():
            for placeholder in placeholders:
                form = form.replace(placeholder, "")
            if re.search(r"<a\b", entry.msgid):
                form = re.sub(r"</?a\b[^>]*>", " ", form)
            if tokens := unisolated_tokens(form):
                found.setdefault(entry.msgid, []).extend(tokens)
    assert found == {}


def test_no_arabic_seed_text_leaves_a_code_token_outside_an_isolate():
    found = {}
    for path in sorted(FIXTURES.glob("*.json")):
        for obj in json.loads(path.read_text(encoding="utf-8")):
            for name, value in obj["fields"].items():
                if name.endswith("_ar") and (tokens := unisolated_tokens(value)):
                    key = f"{path.name}: {obj['model']} {obj['fields'].get('position', '')} {name}"
                    found[key] = tokens
    assert found == {}


@pytest.mark.django_db
def test_the_arabic_gift_import_page_keeps_its_code_tokens_left_to_right(client):
    """The help is template HTML (isolated with `dir="ltr"` elements); the field help and the
    parser's messages are escaped plain text (isolated with LRI…PDI)."""
    client.force_login(make_instructor())
    url = "/ar/admin/quizzes/quiz/import/"
    page = client.get(url).content.decode()
    assert '<code dir="ltr">$CATEGORY:</code>' in page
    assert '<code dir="ltr">{mlang ar}…{mlang}</code>' in page
    assert '<code dir="ltr">&lt;span lang="ar" class="multilang"&gt;' in page
    assert f"{LRI}$CATEGORY{PDI}" in page
    assert "&lt;code" not in page

    upload = SimpleUploadedFile("quiz.gift", b"What is 2+2? {=4 ~5\n")
    refused = client.post(url, {"file": upload}).content.decode()
    assert f"لم يُغلق {LRI}&#x27;{{&#x27;{PDI} بـ {LRI}&#x27;}}&#x27;{PDI}" in refused
    assert f"اكتب {LRI}\\{{{PDI} إن أردت" in refused


# A percentage or a negative number after Arabic words is drawn «%50», «1-»: isolate it.
SIGNED_OR_PERCENT = re.compile(r"(?:-?\d+(?:\.\d+)?|%\(\w+\)[sd])%%?|(?<![\w%])-(?:\d|%\()")


def unisolated_numbers(text: str) -> list[str]:
    """The percentages and negative numbers of an Arabic `text` outside an isolate."""
    text = HTML_ISOLATE.sub(" ", text)
    while INNERMOST_LRI.search(text):
        text = INNERMOST_LRI.sub(" ", text)
    return SIGNED_OR_PERCENT.findall(text)


def test_the_number_scan_finds_bare_percentages_and_signs_and_passes_isolated_ones():
    assert unisolated_numbers("يبلغ 100%% حين") == ["100%%"]
    assert unisolated_numbers("بين -1 و%(weight)s%%") == ["-1", "%(weight)s%%"]
    assert unisolated_numbers(f"بين {LRI}-1{PDI} و{LRI}%(weight)s%%{PDI}") == []
    assert unisolated_numbers('نحو <bdi dir="ltr">50%</bdi>') == []


def test_arabic_translations_isolate_every_percentage_and_negative_number():
    found = [
        (entry.msgid, number)
        for entry in parse_po(PO)[1:]
        for text in entry.msgstr.values()
        for number in unisolated_numbers(text)
    ]
    assert found == []
