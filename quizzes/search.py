"""Catalog search: one normal form for what is searched and what a learner types.

A quiz keeps its English and Arabic titles and descriptions as search tokens in
`Quiz.search_text` (set by `Quiz.save()`; `models.search_text_refresh()` for rows written
around it, such as fixtures loaded raw or `bulk_create`): " <title tokens> | <description tokens> ".
Each word is folded (`search_normalise`) and written twice, as typed and as its stem
(`search_stem`): Arabic lightly stemmed (the article and the prefixes attached to it, a
leading و, ب، ل or ك without it, common suffixes; the broken plurals of the glossary's words
written as their singulars), English by the Snowball stemmer with British -ise spellings
folded to -ize. A query's word matches a token that starts with its stem, so «نقاط الحفظ»
finds «نقاط الحفظ», «تجزئة» «التجزئة», "optimiser" "optimizer", and a word typed half-way
its whole form. The match is a plain substring match (`LIKE '% stem%'`), the same on SQLite
and PostgreSQL, which answers it from a trigram index (migration 0008) instead of reading
every quiz. A quiz whose title holds a word is ranked above one that has it only in its
description (`catalog.catalog_quizzes`); a search that finds nothing is tried again with its
typos corrected (`search_words_corrected`).

PostgreSQL's own full-text search (its `arabic` and `english` configurations) is not used: its
parser, stop words and Snowball stemmers make other tokens than these (its Arabic stemmer leaves
«والمعاملات» as «والمعاملا», with the و and the article), and SQLite has nothing like it, so the
two databases would find different quizzes for one query. The stems are made here, once, and
both databases match the same tokens.

Broken plurals are a table grown from our own texts, not a package's: Snowball's Arabic stemmer
(snowballstemmer, which we pin for English) is a light stemmer that leaves «أسباب» and «مراحل»
as they are; NLTK's ISRI stemmer reduces words to their roots, so «المعاملات», «عملية» and
«عامل» would all find each other; the dictionary-based lemmatizers (qalsadi, CAMeL Tools) bring
a morphological database, and CAMeL Tools downloads its data at run time.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import TYPE_CHECKING, Any

import snowballstemmer
from django.conf import settings

if TYPE_CHECKING:
    from collections.abc import Iterable

# Arabic marks a reader may or may not type: harakat, tanween, shadda, sukun, the dagger
# alef, Quranic annotation marks, and tatweel (the stretching of a word, ـ).
_IGNORED = re.compile("[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0640]")
# Letters written several ways: hamza and madda on alef, wasla; hamza on its other seats
# (often typed without it); ta marbuta; alef maqsura.
_FOLD = str.maketrans(
    {"أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ئ": "ي", "ؤ": "و", "ة": "ه", "ى": "ي"}
)
_SPACES = re.compile(r"\s+")
# Words: letters and digits (an underscore or a hyphen separates them: all-gather is two).
_WORDS = re.compile(r"[^\W_]+")
_ARABIC = re.compile("[\u0621-\u064a]")

# Light stemming, after Larkey, Ballesteros and Connell's "light10", on folded text (ة is ه,
# ى is ي by then): a leading و (a conjunction), then the article with the prepositions attached
# to it (بال، كال، لل، ال; so «وبالتجزئة» and «فالتجزئة» lose both), or else a preposition
# ب، ل or ك alone before a long enough word («بإعادة», «لحفظ»); then one common
# suffix. Each keeps a stem of at least two letters (three for و and the suffixes), so short
# words are left alone. The same steps make the index's tokens and the query's words, so a word
# clipped a little too far is clipped alike on both sides.
_ARABIC_ARTICLES = ("فال", "بال", "كال", "لل", "ال")
_ARABIC_SUFFIXES = ("ها", "ان", "ات", "ون", "ين", "يه", "ه", "ي")
# Broken plurals of the glossary's and the seed quizzes' words, by their stems (folded): each
# plural's stem is written as its singular's, so «مرحلة» finds «مراحل» and «التكلفة» finds
# «وتكاليف» (a sound plural, «حالات», loses its suffix and needs nothing here).
_BROKEN_PLURALS = {
    "مراحل": "مرحل",  # مرحلة
    "تكاليف": "تكلف",  # تكلفة
    "نقاط": "نقط",  # نقطة
    "مقاطع": "مقطع",  # مقطع
    "مفاتيح": "مفتاح",  # مفتاح
    "اوزان": "وزن",  # وزن
    "اجهز": "جهاز",  # أجهزة
    "اسيل": "سوال",  # أسئلة، سؤال
    "ادل": "دليل",  # أدلة
    "نماذج": "نموذج",  # نموذج
    "انظم": "نظام",  # أنظمة
    "دروس": "درس",  # درس
    "طبق": "طبق",  # طبقات (sound; listed so the table says so)
    "مقايض": "مقايض",  # مقايضات (sound)
    "ذواكر": "ذاكر",  # ذاكرة
    "حدود": "حد",  # حد
    "عوامل": "عامل",  # عامل
    "موارد": "مورد",  # مورد
    # Grown from the seed quizzes' own words, and the words a learner puts around them.
    "اسباب": "سبب",  # أسباب، سبب
    "اجزاء": "جزء",  # أجزاء، جزء
    "ارقام": "رقم",  # أرقام، رقم
    "اضعاف": "ضعف",  # أضعاف، ضعف
    "اعداد": "عدد",  # أعداد، عدد
    "انواع": "نوع",  # أنواع، نوع
    "اخطاء": "خطا",  # أخطاء، خطأ
    "ادو": "ادا",  # أدوات، أداة
    "نتايج": "نتيج",  # نتائج، نتيجة
    "مواضع": "موضع",  # مواضع، موضع
    "طرق": "طريق",  # طرق، طريقة
    "امثل": "مثال",  # أمثلة، مثال
    "دوال": "دال",  # دوال، دالة
    "احجام": "حجم",  # أحجام، حجم
    "خوادم": "خادم",  # خوادم، خادم
    "مصادر": "مصدر",  # مصادر، مصدر
    "معايير": "معيار",  # معايير، معيار
}
# Words a learner puts around what they look for, «أسئلة عن التجزئة», "ZeRO quizzes": by their
# stems, left out of a query (never out of what is searched). A query of these alone is kept.
_STOP_STEMS = frozenset(
    {
        # اختبار، اختبارات، سؤال، أسئلة؛ عن، في، حول، من، إلى، على، مع
        "اختبار",
        "سوال",
        "عن",
        "في",
        "حول",
        "من",
        "الي",
        "علي",
        "مع",
        # quiz, quizzes, question(s), test(s); about, on, in, of, for, the, a, an
        "quiz",
        "quizz",  # Snowball's stem of "quizzes"
        "question",
        "test",
        "about",
        "on",
        "in",
        "of",
        "for",
        "the",
        "a",
        "an",
    }
)
# British spellings folded to the American ones the Snowball stemmer conflates.
_BRITISH = re.compile(r"(?<=[a-z]{3})is(e|es|ed|er|ers|ing|ation|ations)$")
_SEPARATOR = "|"

MAX_WORDS = 8


def search_normalise(text: str) -> str:
    """Lower case, Arabic folded (no diacritics or tatweel; one alef; ي for ى and ئ, و for
    ؤ, ه for ة), single spaces."""
    text = unicodedata.normalize("NFKC", text or "").casefold()
    text = _IGNORED.sub("", text).translate(_FOLD)
    return _SPACES.sub(" ", text).strip()


@functools.cache
def _english() -> Any:  # a Snowball stemmer (untyped)
    return snowballstemmer.stemmer("english")


def _arabic_stem(word: str) -> str:
    if word.startswith("و") and len(word) >= 4:
        word = word[1:]
    for article in _ARABIC_ARTICLES:
        if word.startswith(article) and len(word) - len(article) >= 2:
            word = word[len(article) :]
            break
    else:
        # ل before three letters or more («لحفظ»); ب and ك, which begin more words of their
        # own («بايت»), before four («بإعادة»).
        if (
            word.startswith("ل")
            and len(word) >= 4
            or word.startswith(("ب", "ك"))
            and len(word) >= 5
        ):
            word = word[1:]
    for suffix in _ARABIC_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return _BROKEN_PLURALS.get(word, word)


def search_stem(word: str) -> str:
    """The stem of one normalised word: «التجزيه» → «تجز», "optimiser" → "optim"."""
    if _ARABIC.search(word):
        return _arabic_stem(word)
    if word.isascii() and word.isalpha():
        return str(_english().stemWord(_BRITISH.sub(r"iz\1", word)))
    return word


def _tokens(text: str) -> list[str]:
    tokens: dict[str, None] = {}
    for word in _WORDS.findall(search_normalise(text)):
        tokens[word] = None
        tokens[search_stem(word)] = None
    return list(tokens)


def search_words(query: str) -> list[str]:
    """The distinct stems of a learner's query, at most MAX_WORDS of them, without the words
    put around what is looked for (`_STOP_STEMS`: «اختبارات ZeRO» is ZeRO); a query with
    nothing but punctuation is one word that matches nothing (no token holds "_")."""
    stems = dict.fromkeys(search_stem(word) for word in _WORDS.findall(search_normalise(query)))
    if not stems and query.strip():
        return ["_"]
    # «أسئلة عن التجزئة» looks for «التجزئة»; «أسئلة» alone looks for itself.
    stems = dict.fromkeys(stem for stem in stems if stem not in _STOP_STEMS) or stems
    return list(stems)[:MAX_WORDS]


def search_token(word: str) -> str:
    """What `search_text` holds where a quiz has a token starting with `word`."""
    return " " + word


def search_title_end() -> str:
    """Where a quiz's title tokens end in `search_text`."""
    return f" {_SEPARATOR} "


def search_text_restem(apps: Any, schema_editor: Any) -> None:
    """A data migration's step: every quiz's search text made again with the stems as they are
    now (a change to the stemming or the plurals' table ships with one)."""
    quiz_model = apps.get_model("quizzes", "Quiz")
    changed = []
    for quiz in quiz_model.objects.iterator(chunk_size=2000):
        text = search_text_for(quiz)
        if text != quiz.search_text:
            quiz.search_text = text
            changed.append(quiz)
    quiz_model.objects.bulk_update(changed, ["search_text"], batch_size=500)


def search_text_for(quiz: object) -> str:
    """What a quiz is found by: its titles' tokens, then its descriptions', in every
    language."""
    title, description = (
        " ".join(
            dict.fromkeys(
                token
                for code, _name in settings.LANGUAGES
                for token in _tokens(getattr(quiz, f"{field}_{code}", None) or "")
            )
        )
        for field in ("title", "description")
    )
    return f" {title} {_SEPARATOR} {description} "


# Typos: a word of a search that finds nothing is replaced by the closest token of the
# published quizzes' search text, by trigram similarity as PostgreSQL's pg_trgm defines it
# (shared trigrams of the padded words over all their trigrams), computed here so that SQLite
# and PostgreSQL give the same results.
TYPO_SIMILARITY = 0.4
TYPO_MIN_LENGTH = 4


def _trigrams(word: str) -> set[str]:
    padded = f"  {word} "
    return {padded[at : at + 3] for at in range(len(padded) - 2)}


def trigram_similarity(a: str, b: str) -> float:
    """pg_trgm's `similarity(a, b)` for two words: 1 the same, 0 nothing in common."""
    first, second = _trigrams(a), _trigrams(b)
    return len(first & second) / len(first | second) if first and second else 0.0


def search_vocabulary(texts: Iterable[str]) -> list[str]:
    """Every token of the search texts `texts`, sorted."""
    return sorted({token for text in texts for token in text.split()} - {_SEPARATOR})


def search_words_corrected(words: list[str], vocabulary: list[str]) -> list[str]:
    """`words` with each word that no token starts with (a typo, as "optimzer" or «التجزيئة»)
    replaced by the most similar token, if one is similar enough; short words are kept."""
    corrected = []
    for word in words:
        if len(word) < TYPO_MIN_LENGTH or any(token.startswith(word) for token in vocabulary):
            corrected.append(word)
            continue
        scored = [(trigram_similarity(word, token), token) for token in vocabulary]
        # The most similar, then the shortest (a stem before the words made from it).
        best = max(scored, key=lambda pair: (pair[0], -len(pair[1]), pair[1]), default=None)
        corrected.append(best[1] if best and best[0] >= TYPO_SIMILARITY else word)
    return corrected
