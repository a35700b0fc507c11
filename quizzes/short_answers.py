"""Matching typed answers as people type them, in English and in Arabic.

Always, an accepted answer marked "exact" included: characters nobody sees (zero-width space
and joiners, the byte order mark, the soft hyphen, direction marks and isolates) are dropped,
surrounding and repeated spaces never count, and both texts are compared in Unicode's composed
form (NFC), so a letter and its accent typed as two characters is the letter with its accent.

Otherwise both are also folded (`folded`): letter case; punctuation before or after the answer
(. , ; ? ! … and Arabic's ، ؛ ؟); the hyphens and dashes of U+2010 to U+2013 and the minus sign,
which are «-» (the glossary writes U+2011 in every Latin term of an Arabic text); and in Arabic
diacritics (harakat, shadda, sukun, the dagger alef), tatweel, the form of alef (أ إ آ ٱ are
ا), a final ة or ه, a final ى or ي, the seat of a hamza (ؤ and ئ inside a word are ء, a final
ئ is يء: «مسئول» is «مسؤول», «شئ» is «شيء»), Persian ی and ک (ي and ك), whether digits are
Western or Arabic-Indic (١٦ is 16), and the Arabic decimal and thousands separators (٫ is ., ٬
is ,). Words are never folded into other words: an article, a letter or a plural's ending
dropped or added is another answer (docs/authoring.md).

| typed | accepted | matches |
| --- | --- | --- |
| `  TCP/IP ` | `tcp/ip` | yes |
| `الْمُحَسِّن` | `المحسن` | yes |
| `حالة المُحَسِّن.` | `حالة المُحسِّن` | yes |
| `مسئول` | `مسؤول` | yes |
| `12٫5` | `12.5` | yes |
| `all-gather` | `all‑gather` (U+2011) | yes |
| `حالات محسن` | `حالات المحسن` | no |

Grading (`matches`), item analysis's grouping of wrong answers (`folded`), the GIFT importer's
and the admin's check of accepted answers (`shadowed_answers`) and the admin's preview of a
question (which grades) all go through this module.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from decimal import Decimal

# Characters nobody sees in an answer: zero-width space, non-joiner and joiner, the word
# joiner, the byte order mark (a zero-width no-break space), the soft hyphen, the Mongolian
# vowel separator; and every direction mark: LRM, RLM, ALM, embeddings and overrides
# (U+202A–U+202E), isolates (U+2066–U+2069). An Arabic keyboard, or a copy from right-to-left
# text, puts them between letters.
_INVISIBLE = dict.fromkeys(
    map(
        ord,
        "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e"
        "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069",
    )
)
# Harakat, tanwin, shadda, sukun and the other combining marks of Arabic; the dagger alef;
# Quranic annotation marks; tatweel.
_ARABIC_MARKS = re.compile("[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0640]")
_FOLD = str.maketrans(
    {
        "أ": "ا",
        "إ": "ا",
        "آ": "ا",
        "ٱ": "ا",
        "ة": "ه",
        "ى": "ي",
        "ی": "ي",  # Persian yeh (a Persian keyboard's)
        "ک": "ك",  # Persian keheh
        "ؤ": "ء",  # hamza seats (a final ئ is read first: _FINAL_YEH_HAMZA)
        "ئ": "ء",
        "٫": ".",  # Arabic decimal separator
        "٬": ",",  # Arabic thousands separator
        "\u2010": "-",  # hyphen
        "\u2011": "-",  # non-breaking hyphen
        "\u2012": "-",  # figure dash
        "\u2013": "-",  # en dash
        "\u2212": "-",  # minus sign
        **{chr(0x0660 + n): str(n) for n in range(10)},  # Arabic-Indic digits
        **{chr(0x06F0 + n): str(n) for n in range(10)},  # Eastern Arabic-Indic digits
    }
)
# A word's final ئ (after its marks are gone) is the يء many write it as: «شئ» is «شيء».
_FINAL_YEH_HAMZA = re.compile(r"[ئ](?!\w)")
# Punctuation that ends (or opens) a typed answer without being part of it.
_PUNCTUATION = ".,;?!…،؛؟۔"
_ENDS = re.compile(rf"^[\s{re.escape(_PUNCTUATION)}]+|[\s{re.escape(_PUNCTUATION)}]+$")
_SPACES = re.compile(r"\s+")


def cleaned(text: str) -> str:
    """`text` as every comparison reads it, "exact" included: without invisible characters,
    composed (NFC), surrounding spaces dropped and each run of spaces made one."""
    text = unicodedata.normalize("NFC", text.translate(_INVISIBLE))
    return _SPACES.sub(" ", text).strip()


def folded(text: str) -> str:
    """`text` as it is compared when folding applies (see the module's table)."""
    text = unicodedata.normalize("NFKC", cleaned(text))
    text = _ARABIC_MARKS.sub("", text)
    text = _FINAL_YEH_HAMZA.sub("يء", text).translate(_FOLD)
    return _SPACES.sub(" ", _ENDS.sub("", text)).casefold()


def matches(typed: str, accepted: str, *, exact: bool = False) -> bool:
    """Whether what the learner typed is the accepted answer."""
    if exact:
        return cleaned(typed) == cleaned(accepted)
    key = folded(accepted)
    if not key:
        # An accepted answer that is punctuation alone ("?") is matched as written: folded,
        # it would match an empty answer.
        return cleaned(typed) == cleaned(accepted)
    return folded(typed) == key


def shadowed_answers(
    rows: Sequence[tuple[Sequence[str], Decimal, bool]],
) -> list[tuple[int, int]]:
    """The accepted answers no learner's answer can ever be marked by, among a question's
    `rows` of (its texts in each language, weight, exact): (its number, the number of the
    answer that outweighs it), counted from 1. An answer is shadowed by another that matches
    everything it matches (each of its texts folded alike to one of the other's, the other
    not exact) and is worth at least as much: "TCP" at 100% makes "tcp" at 50% a dead row; of
    two alike and worth the same, the later one is the dead row."""
    keys = [{folded(text) for text in texts if text} - {""} for texts, _weight, _exact in rows]
    shadowed = []
    for number, (_texts, weight, _exact) in enumerate(rows, start=1):
        if not keys[number - 1]:
            continue
        for other, (_other_texts, other_weight, other_exact) in enumerate(rows, start=1):
            if other == number or other_exact or not keys[number - 1] <= keys[other - 1]:
                continue
            if other_weight > weight or (other_weight == weight and other < number):
                shadowed.append((number, other))
                break
    return shadowed
