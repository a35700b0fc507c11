"""Hyphenated Latin terms inside Arabic text do not break at their hyphen.

In an Arabic line «عملية all-gather» may wrap after «all-», leaving «gather» alone on the next
line. The Arabic seed texts write such a term with the non-breaking hyphen U+2011
(`\\u2011` in the fixtures) and the Arabic catalogue likewise; code (between backticks) and
addresses keep their ASCII hyphen, which is what a reader copies.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from django.conf import settings
from django.core.management import call_command

from quizzes.models import Question

from .test_catalogue import PO, parse_po

FIXTURES = Path(settings.BASE_DIR) / "fixtures"
BREAKING = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+")
NOT_PROSE = re.compile(r"`[^`]*`|https?://\S+|%\(\w+\)[sd]|<[^>]*>|\{[^}]*\}")


def breaking_hyphens(text: str) -> list[str]:
    """The hyphenated Latin terms of `text`, outside code and addresses, written with an ASCII
    hyphen (a line may break there)."""
    return BREAKING.findall(NOT_PROSE.sub(" ", text))


def test_the_scan_finds_a_breaking_hyphen_and_passes_a_non_breaking_one():
    assert breaking_hyphens("عملية all-gather ثم reduce-scatter") == [
        "all-gather",
        "reduce-scatter",
    ]
    assert breaking_hyphens("عملية all\u2011gather") == []
    assert breaking_hyphens("انظر `torch.utils.checkpoint(use-reentrant)` و https://a-b.org") == []


def test_arabic_seed_texts_write_hyphenated_terms_with_a_non_breaking_hyphen():
    found = []
    for path in sorted(FIXTURES.glob("*.json")):
        for obj in json.loads(path.read_text(encoding="utf-8")):
            for name, value in obj["fields"].items():
                if name.endswith("_ar") and isinstance(value, str):
                    found += [(path.name, name, term) for term in breaking_hyphens(value)]
    assert found == []


def test_the_arabic_catalogue_writes_hyphenated_terms_with_a_non_breaking_hyphen():
    found = [
        (entry.msgid, term)
        for entry in parse_po(PO)[1:]
        for text in entry.msgstr.values()
        for term in breaking_hyphens(text)
    ]
    assert found == []


def test_seed_quizzes_update_gives_an_older_database_the_non_breaking_hyphens(db):
    call_command("seed_quizzes", verbosity=0)
    question = Question.objects.get(quiz__slug="zero-sharded-optimizers", position=4)
    current = question.explanation_ar
    assert "all\u2011gather" in current
    Question.objects.filter(pk=question.pk).update(explanation_ar=current.replace("\u2011", "-"))

    call_command("seed_quizzes", "--update", verbosity=0)
    question.refresh_from_db()
    assert question.explanation_ar == current
