"""A percentage in Arabic text is isolated left to right: bare, «نحو 50%» is drawn «نحو %50»
(the bidirectional algorithm puts the sign on the number's right). Plain text holds LRI …
PDI around it; the catalogue's percentages come through `%(percent)s%%` inside an isolate."""

from __future__ import annotations

import json
import re
from pathlib import Path

from django.conf import settings

from .test_catalogue import PO, parse_po

LRI, PDI = "\u2066", "\u2069"
BARE_PERCENT = re.compile(rf"(?:\d+(?:\.\d+)?|%\(\w+\)s)(?:%%|%)(?![%{PDI}])")
# A run of text isolated left to right as a whole: a GIFT sample such as «=%50%tcp».
ISOLATED = re.compile(f"{LRI}[^{LRI}{PDI}]*{PDI}")
FIXTURES = Path(settings.BASE_DIR) / "fixtures"


def bare_percentage(text: str) -> re.Match | None:
    """A percentage of `text` outside any isolate."""
    return BARE_PERCENT.search(ISOLATED.sub(" ", text))


def test_the_scan_finds_a_bare_percentage_and_passes_an_isolated_one():
    assert bare_percentage("ولا تضيف نحو 50% إلا")
    assert not bare_percentage(f"ولا تضيف نحو {LRI}50%{PDI} إلا")
    assert bare_percentage("%(percent)s%% من الدرجة")
    assert not bare_percentage(f"{LRI}%(percent)s%%{PDI} من الدرجة")
    # A whole sample in one isolate, its percentage inside it.
    assert not bare_percentage(f"({LRI}=%%50%%tcp{PDI} تساوي نصف الدرجة)")
    assert bare_percentage(f"({LRI}=%%50%%{PDI}tcp 50%% تساوي نصف الدرجة)")


def test_no_arabic_seed_text_has_a_bare_percentage():
    found = []
    for path in FIXTURES.glob("*.json"):
        for row in json.loads(path.read_text(encoding="utf-8")):
            for name, value in row["fields"].items():
                if name.endswith("_ar") and isinstance(value, str) and bare_percentage(value):
                    found.append((path.name, row["model"], name))
    assert found == []


def test_no_arabic_translation_has_a_bare_percentage():
    found = [
        entry.msgid
        for entry in parse_po(PO)[1:]
        for form in entry.msgstr.values()
        if bare_percentage(form.replace("<bdi>", LRI).replace("</bdi>", PDI))
    ]
    assert found == []
