"""Matching typed answers as people type them, in English and in Arabic.

A short answer is compared with each accepted answer after both are folded: case, surrounding
and repeated spaces never count; in Arabic neither do diacritics (harakat, shadda, sukun, the
dagger alef), tatweel, the form of alef (أ إ آ ٱ are ا), a final ة or ه, a final ى or ي, or
whether digits are Western or Arabic-Indic (١٦ is 16). An accepted answer marked "exact" is
compared as written, spaces aside.

| typed | accepted | matches |
| --- | --- | --- |
| `  TCP/IP ` | `tcp/ip` | yes |
| `الْمُحَسِّن` | `المحسن` | yes |
| `إعادة الحساب` | `اعاده الحساب` | yes |
| `ـالتـدرج` | `التدرج` | yes |
| `مستوى` | `مستوي` | yes |
| `١٦` | `16` | yes |
"""

from __future__ import annotations

import re
import unicodedata

# Marks an Arabic keyboard, or a copy from right-to-left text, puts between letters.
_BIDI_MARKS = dict.fromkeys(map(ord, "\u200e\u200f\u061c\u2066\u2067\u2068\u2069\u200c\u200d"))
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
        **{chr(0x0660 + n): str(n) for n in range(10)},  # Arabic-Indic digits
        **{chr(0x06F0 + n): str(n) for n in range(10)},  # Eastern Arabic-Indic digits
    }
)
_SPACES = re.compile(r"\s+")


def spaced(text: str) -> str:
    """`text` with surrounding spaces dropped and each run of spaces made one."""
    return _SPACES.sub(" ", text.translate(_BIDI_MARKS)).strip()


def folded(text: str) -> str:
    """`text` as it is compared when folding applies (see the module's table)."""
    text = unicodedata.normalize("NFKC", spaced(text))
    text = _ARABIC_MARKS.sub("", text).translate(_FOLD)
    return spaced(text).casefold()


def matches(typed: str, accepted: str, *, exact: bool = False) -> bool:
    """Whether what the learner typed is the accepted answer."""
    if exact:
        return spaced(typed) == spaced(accepted)
    return folded(typed) == folded(accepted)
