"""The Arabic catalogue: complete, compiled, six plural forms, and actually used by the site.

`msgfmt` (Debian's gettext, which `.ci/run` installs) compiles the catalogue; a machine without
it fails these tests rather than skipping them, as CI would.
"""

from __future__ import annotations

import ast
import gettext
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.template import Context, Template
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

PO = Path(settings.BASE_DIR) / "locale" / "ar" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")

ARABIC_PLURAL_FORMS = (
    "nplurals=6; plural=n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : "
    "n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5;"
)


def arabic_plural_category(n: int) -> int:
    """Arabic's six forms, written out independently of the catalogue's C expression."""
    if n in (0, 1, 2):
        return n
    if 3 <= n % 100 <= 10:
        return 3
    if 11 <= n % 100 <= 99:
        return 4
    return 5  # 100, 101, 102, 200, …


@dataclass
class Entry:
    msgid: str = ""
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)  # index 0 for a singular entry
    flags: set[str] = field(default_factory=set)


def _unquote(line: str) -> str:
    # PO strings use C escapes (\" \\ \n \t), which a Python string literal reads the same way.
    return ast.literal_eval(line)


def parse_po(path: Path) -> list[Entry]:
    """The catalogue's entries, header first; obsolete (#~) entries are left out."""
    entries: list[Entry] = []
    entry, key = Entry(), None

    def finish() -> None:
        nonlocal entry, key
        if key is not None:
            entries.append(entry)
        entry, key = Entry(), None

    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            finish()
        elif line.startswith("#,"):
            if key is not None:
                finish()
            entry.flags |= {flag.strip() for flag in line[2:].split(",")}
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            value = _unquote(line)
            if key == "msgid":
                entry.msgid += value
            elif key == "msgid_plural":
                entry.msgid_plural += value
            elif key == "msgctxt":
                entry.msgctxt += value
            else:
                entry.msgstr[key] += value
        else:
            keyword, _space, rest = line.partition(" ")
            # A msgctxt, or a msgid not right after its msgctxt, opens the next entry.
            if keyword in ("msgctxt", "msgid") and key not in (None, "msgctxt"):
                finish()
            value = _unquote(rest)
            if keyword in ("msgid", "msgid_plural", "msgctxt"):
                setattr(entry, keyword, value)
                key = keyword
            else:
                match = re.fullmatch(r"msgstr(?:\[(\d+)\])?", keyword)
                assert match, f"unexpected line in {path.name}: {raw!r}"
                key = int(match.group(1) or 0)
                entry.msgstr[key] = value
    finish()
    return entries


def header(entries: list[Entry]) -> dict[str, str]:
    first = entries[0]
    assert first.msgid == "" and first.msgctxt is None, "the catalogue must start with its header"
    lines = [line for line in first.msgstr[0].split("\n") if line]
    return dict(line.split(": ", 1) for line in lines)


def msgfmt() -> str:
    path = shutil.which("msgfmt")
    assert path, "msgfmt is missing: install Debian's gettext package (.ci/run does)"
    return path


def load_mo(path: Path) -> dict:
    with path.open("rb") as handle:
        return gettext.GNUTranslations(handle)._catalog


@pytest.fixture(scope="module")
def entries() -> list[Entry]:
    return parse_po(PO)


def test_the_arabic_catalogue_has_no_untranslated_or_fuzzy_entries(entries):
    messages = entries[1:]
    assert len(messages) > 100, "the catalogue looks truncated"
    fuzzy = [entry.msgid for entry in entries if "fuzzy" in entry.flags]
    untranslated = [
        entry.msgid for entry in messages if not all(s.strip() for s in entry.msgstr.values())
    ]
    assert fuzzy == []
    assert untranslated == []


def test_msgfmt_counts_every_message_as_translated_and_the_formats_check_out():
    result = subprocess.run(
        [msgfmt(), "--statistics", "--check", "-o", "/dev/null", str(PO)],
        capture_output=True,
        text=True,
        env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"\d+ translated messages\.\n", result.stderr), result.stderr


def test_the_committed_mo_file_is_compiled_from_the_current_po_file(tmp_path):
    fresh = tmp_path / "django.mo"
    subprocess.run(
        [msgfmt(), "--check-format", "-o", str(fresh), str(PO)],
        check=True,
        capture_output=True,
    )
    assert MO.exists(), "compile the catalogue: manage.py compilemessages --locale ar"
    committed, expected = load_mo(MO), load_mo(fresh)
    stale = sorted(str(key) for key in expected.keys() ^ committed.keys())
    changed = sorted(str(key) for key in expected.keys() & committed.keys())
    changed = [key for key in changed if expected.get(key) != committed.get(key)]
    assert (stale, changed) == ([], []), "run: manage.py compilemessages --locale ar"
    assert committed == expected


def test_the_header_declares_arabic_and_its_six_form_plural_rule(entries):
    fields = header(entries)
    assert fields["Language"] == "ar"
    assert fields["Content-Type"] == "text/plain; charset=UTF-8"
    assert fields["Plural-Forms"] == ARABIC_PLURAL_FORMS
    match = re.fullmatch(r"nplurals=(\d+); plural=(.+);", fields["Plural-Forms"])
    nplurals, plural = int(match.group(1)), gettext.c2py(match.group(2))
    assert nplurals == 6
    assert [plural(n) for n in range(1200)] == [arabic_plural_category(n) for n in range(1200)]


def test_every_plural_entry_has_six_arabic_forms_that_show_the_number_where_needed(entries):
    plural_entries = [entry for entry in entries if entry.msgid_plural is not None]
    assert plural_entries, "the catalogue should have plural entries"
    for entry in plural_entries:
        assert sorted(entry.msgstr) == [0, 1, 2, 3, 4, 5], entry.msgid
        assert len(set(entry.msgstr.values())) >= 4, f"forms barely differ: {entry.msgid}"
        # Forms 3–5 cover many numbers, so they must show them; 0, 1 and 2 may spell them out.
        for index in (3, 4, 5):
            assert placeholders(entry.msgid_plural) <= placeholders(entry.msgstr[index]), (
                entry.msgid,
                index,
            )


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"%\(\w+\)[sd]|%%", text))


def test_every_translation_keeps_the_placeholders_of_its_english(entries):
    for entry in entries[1:]:
        if entry.msgid_plural is None:
            assert placeholders(entry.msgstr[0]) == placeholders(entry.msgid), entry.msgid
        else:
            english = placeholders(entry.msgid) | placeholders(entry.msgid_plural)
            for form in entry.msgstr.values():
                assert placeholders(form) <= english, (entry.msgid, form)


@pytest.mark.parametrize(
    ("count", "arabic"),
    [
        (0, "لا أسئلة"),
        (1, "سؤال واحد"),
        (2, "سؤالان"),
        (3, "3 أسئلة"),
        (11, "11 سؤالًا"),
        (100, "100 سؤال"),
        (103, "103 أسئلة"),
        (111, "111 سؤالًا"),
        (102, "102 سؤال"),
    ],
)
def test_a_question_count_reads_in_the_right_arabic_plural_form(count, arabic):
    with translation.override("ar"):
        text = ngettext("%(counter)s question", "%(counter)s questions", count) % {"counter": count}
    assert text == arabic


def test_the_six_arabic_question_counts_are_all_worded_differently():
    with translation.override("ar"):
        texts = {
            ngettext("%(counter)s question", "%(counter)s questions", n) % {"counter": n}
            for n in (0, 1, 2, 3, 11, 100)
        }
    assert len(texts) == 6


def test_the_catalogue_template_renders_its_question_count_in_arabic():
    template = Template(
        "{% load i18n %}{% blocktranslate count counter=n %}{{ counter }} question"
        "{% plural %}{{ counter }} questions{% endblocktranslate %}"
    )
    with translation.override("ar"):
        assert template.render(Context({"n": 2})) == "سؤالان"
        assert template.render(Context({"n": 7})) == "7 أسئلة"
    with translation.override("en"):
        assert template.render(Context({"n": 7})) == "7 questions"


@pytest.mark.parametrize(
    ("english", "arabic"),
    [
        ("Sign in", "تسجيل الدخول"),
        ("Sign up", "إنشاء حساب"),
        ("Sign out", "تسجيل الخروج"),
        ("My history", "سجلّي"),
        ("Quizzes", "الاختبارات"),
        ("Start quiz", "بدء الاختبار"),
        ("Submit answer", "إرسال الإجابة"),
        ("Correct answer", "الإجابة الصحيحة"),
        ("English", "الإنجليزية"),
        ("Arabic", "العربية"),
        ("Practise what you missed", "التدرّب على ما أخطأت فيه"),
    ],
)
def test_key_interface_strings_read_in_arabic(english, arabic):
    with translation.override("ar"):
        assert _(english) == arabic
    with translation.override("en"):
        assert _(english) == english


def test_the_language_names_in_settings_are_arabic_on_an_arabic_page():
    with translation.override("ar"):
        names = {code: str(name) for code, name in settings.LANGUAGES}
    assert names == {"en": "الإنجليزية", "ar": "العربية"}


def test_numbered_phrases_keep_their_numbers_in_arabic():
    with translation.override("ar"):
        step = _("Question %(number)s of %(total)s") % {"number": 2, "total": 5}
        percent = _("%(percent)s%% correct") % {"percent": 80}
        minutes = ngettext(
            "For your safety, signing in to this account from here is paused. "
            "Try again in %(minutes)s minute.",
            "For your safety, signing in to this account from here is paused. "
            "Try again in %(minutes)s minutes.",
            5,
        ) % {"minutes": 5}
    assert step == "السؤال 2 من 5"
    # Isolated (LRI…PDI), so that it is drawn "80%" wherever the phrase stands.
    assert percent.startswith("\u206680%\u2069") and "%%" not in percent
    assert minutes.endswith("بعد 5 دقائق.")


@pytest.mark.parametrize(
    ("place", "arabic"),
    [
        ("a quiz, as a filter of the catalog", "أكملته"),
        ("attempts, as a filter of the grades", "المكتملة"),
        ("when an attempt finished", "وقت الانتهاء"),
        ("state of an attempt", "مكتملة"),
    ],
)
def test_finished_reads_as_its_place_needs_in_arabic(place, arabic):
    with translation.override("ar"):
        assert pgettext(place, "Finished") == arabic
    with translation.override("en"):
        assert pgettext(place, "Finished") == "Finished"


@pytest.mark.parametrize(
    ("count", "arabic"),
    [
        (1, "سؤال واحد للمراجعة"),
        (2, "سؤالان للمراجعة"),
        (3, "3 أسئلة للمراجعة"),
        (11, "11 سؤالًا للمراجعة"),
    ],
)
def test_the_reviews_due_label_reads_after_its_number_in_arabic(count, arabic):
    with translation.override("ar"):
        text = ngettext("%(counter)s question due", "%(counter)s questions due", count)
        assert text % {"counter": count} == arabic


def test_every_string_of_the_jinja2_templates_is_in_the_catalogue_and_translated(entries):
    # The learner's step is written with Jinja2 (quizzes/jinja2/), whose strings Django's
    # makemessages reads only as `_("…")` alone: `make messages` extracts them all with Babel
    # (locale/babel.cfg). Each one, with its plural and context, must be in the catalogue,
    # translated.
    from babel.messages.extract import extract_from_dir

    method_map = [("**.html", "jinja2")]
    options = {"**.html": {"extensions": "jinja2.ext.i18n"}}
    catalogue = {(e.msgctxt, e.msgid): e for e in entries[1:]}
    folder = Path(settings.BASE_DIR) / "quizzes" / "jinja2"
    found = list(extract_from_dir(folder, method_map, options))
    assert len(found) > 40, "the Jinja2 templates' strings were not found"
    missing = []
    for _filename, _line, message, _comments, context in found:
        singular, plural = (message, None) if isinstance(message, str) else message[:2]
        entry = catalogue.get((context, singular))
        if entry is None or entry.msgid_plural != plural or not all(entry.msgstr.values()):
            missing.append((context, singular))
    assert missing == []
