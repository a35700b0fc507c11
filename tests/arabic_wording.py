"""The forms a native reader of Daleel's Arabic trips on (issue 44), and a check of a page or a
mail against them. Used by tests/i18n/test_arabic_wording.py (allauth's pages, the admin, every
mail, through the test client) and tests/e2e/test_arabic_wording.py (every page type of the
accessibility sweep, in a browser).

Three kinds of check:
- the visible text (and the `value` of buttons) holds none of FORBIDDEN: words that came from
  the libraries' catalogues or from our own older wording;
- the markup holds none of FORBIDDEN_MARKUP: a form wrong in one place only («لماذا؟» as the
  explanation's heading);
- a control (a button, a link drawn as a button, a navigation or admin tool link) does not start
  with an imperative: controls are verbal nouns («تسجيل الدخول»، «حفظ»), as the shared style
  guide and docs/arabic-glossary.md say; instructions in sentences stay imperatives.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

ARABIC = "\u0600-\u06ff"
_NOT_AFTER_LETTER = f"(?<![{ARABIC}])"

# (pattern, why a reader trips on it)
FORBIDDEN: list[tuple[str, str]] = [
    ("وزارة الخارجية", "allauth's catalogue renders the MFA app as a ministry"),
    ("جانغو", "the admin is Daleel's («إدارة دليل»)"),
    (f"{_NOT_AFTER_LETTER}(?:ال)?كود", "a code is «الرمز»"),
    ("شفرة|شيفرة برمجية", "a sign-in code is «الرمز»; program code is only a code block's label"),
    (f"{_NOT_AFTER_LETTER}قم ب", "«قم بـ» + verbal noun: say the verb"),
    (f"{_NOT_AFTER_LETTER}(?:يتم|تتم|تمّ|تمت|تم) ", "«تمّ» + verbal noun: use the passive"),
    (r"و\s*/\s*أو", "«و / أو»: say «أو»"),
    ("لم ترى|لم تتلقى", "a jussive keeps no long vowel («لم ترَ»، «لم تتلقَّ»)"),
    (f"{_NOT_AFTER_LETTER}نتهت", "a dropped alif («انتهت»)"),
    ("كلمة المرور الخاص(?!ة)", "«كلمة المرور» is feminine; «كلمة مرورك»"),
    ("المصادقة الثنائية|التحقق بخطوتين|توثيق ذو عاملين", "two-factor is «تسجيل الدخول بعاملين»"),
    (f"{_NOT_AFTER_LETTER}(?:ال)?توثيق|موثق", "verification is «التحقق»"),
    ("تأكيد البريد", "verifying an address is «التحقق من البريد الإلكتروني»"),
    ("مرحبا من موقع|شكرا لاستخدامك", "allauth's stock mail"),
    ("مدرّس|مدرس", "an instructor is «المعلّم»"),
    (f"{_NOT_AFTER_LETTER}(?:ال)?إطلاق(?!ًا)", "an LTI launch is «طلب الفتح»"),
    ("أضِف", "the admin's «أضِف … آخر»: a control is a verbal noun («إضافة»)"),
    (r"اختر \S+ لتغييره", "the admin's list title: «اختيار … لتعديله»"),
    ("حسب منشور", "a filter named by a bare adjective"),
    (r"لا شي(?:ء)? محدد", "«اختير 0 من …»"),
    (
        r"(?<![\d.#])\d+ ال(?:اختبارات|أسئلة|مستخدمون|محاولات)(?!:)",
        "a count before a definite plural",
    ),
    ("ما لم تُجب", "«ما لم» reads as 'unless'"),
    ("تختار المفاتيح", "keys do not choose; the learner chooses with them"),
    ("من الإجابات صحيحة", "a partial score is a share of the mark («من الدرجة»)"),
    (r"بتوقيت \(?[+\-−]?\d", "a zone is said by its place, not its offset"),
    (r"\((?:بتوقيت|[+\-−]\d\d)", "a zone in brackets, drawn backwards"),
    # Issue 53.
    ("مطابِق", "a coined word: a prompt is «البند», a pick «اختيارك», the key «الإجابة الصحيحة»"),
    (r"\[(?:ar|en)\]", "a translated field is labelled «(بالعربية)» / «(بالإنجليزية)»"),
    ("إسرائيل", "Jerusalem's zone is named by its city alone"),
    ("في مكانه", "an item of the longest run in order is «في تسلسله الصحيح», not in its place"),
    ("جداً", "tanwin on the alef: «جدًا»"),
    ("ينقصه ترجمة", "«ترجمة» is feminine: «تنقصه»"),
    (r"تُحقِّق من", "a passive that reads as 'you verify': «تحقّقنا من»"),
    (
        r"\b(?:Run|Remove|Select an option|Authenticators?|Pagination|Filter by|Search \w+|"
        r"PREVIEW|Preview as a learner|Axes|Task Results?|Tasks Database Backend|created at|"
        r"last used at)\b",
        "a library's English left in an Arabic page",
    ),
]

# Forms that are right in a sentence and wrong in one place of a page: looked for in its markup.
FORBIDDEN_MARKUP: list[tuple[str, str]] = [
    (
        r'class="explanation__title"[^>]*>\s*لماذا؟',
        "the explanation's heading is «الشرح» (a prompt may well ask «لماذا؟»)",
    ),
]

# Imperatives a control must not start with (they are verbal nouns in a control).
IMPERATIVES = (
    "سجّل",
    "سجل ",
    "أنشئ",
    "أرسل",
    "احفظ",
    "ابدأ",
    "تابع",
    "اعرض",
    "أعد",
    "احذف",
    "نزّل",
    "صدّر",
    "استورد",
    "أضف",
    "أضِف",
    "عدّل",
    "عدِّل",
    "غيّر",
    "عاين",
    "ترجِم",
    "امسح",
    "أبلغ",
    "تدرّب",
    "انتقل",
    "عُد",
    "أبقِ",
    "اضبط",
    "فعّل",
    "أوقف",
    "اختر",
    "استعمل",
    "استخدم",
    "ولّد",
    "أكّد",
    "نفّذ",
    "ادخل",
)


class _Page(HTMLParser):
    """The visible text of a page, and the text of its controls."""

    SKIP = {"script", "style", "template", "title"}
    # Text that is not the interface's Arabic: what an instructor typed in English (a field's
    # value, a list's option), code, and whatever is marked English or left to right.
    FOREIGN = {"textarea", "select", "code", "pre", "math", "kbd", "samp"}
    VOID = {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    }

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.arabic: list[str] = []
        self.controls: list[str] = []
        self._control: list[str] | None = None
        self._control_depth = 0

    def _skipping(self) -> bool:
        return any(tag in self.SKIP for tag, _attrs in self.stack)

    def _foreign(self) -> bool:
        return any(
            tag in self.FOREIGN or attrs.get("lang", "ar")[:2] != "ar" or attrs.get("dir") == "ltr"
            for tag, attrs in self.stack
        )

    def _is_control(self, tag: str, attrs: dict[str, str]) -> bool:
        if tag == "button":
            return True
        if tag != "a":
            return False
        classes = attrs.get("class", "")
        if "button" in classes or re.search(r"\b\w*link\b", classes):
            return True
        return any(
            parent == "nav" or "object-tools" in parent_attrs.get("class", "")
            for parent, parent_attrs in self.stack
        )

    def handle_starttag(self, tag, attrs) -> None:
        attributes = {name: value or "" for name, value in attrs}
        if tag == "input" and attributes.get("type") in {"submit", "button"}:
            self.controls.append(attributes.get("value", ""))
            self.text.append(attributes.get("value", ""))
        if tag in self.VOID:
            return
        if self._control is None and self._is_control(tag, attributes):
            self._control = []
            self._control_depth = len(self.stack)
        self.stack.append((tag, attributes))

    def handle_endtag(self, tag) -> None:
        while self.stack:
            opened, _attrs = self.stack.pop()
            if self._control is not None and len(self.stack) == self._control_depth:
                self.controls.append(" ".join("".join(self._control).split()))
                self._control = None
            if opened == tag:
                break

    def handle_data(self, data) -> None:
        if self._skipping():
            return
        self.text.append(data)
        if not self._foreign():
            self.arabic.append(data)
        if self._control is not None:
            self._control.append(data)


def _parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    page.close()
    return page


def read(html: str) -> tuple[str, list[str]]:
    """(the page's visible text, its controls' texts)."""
    page = _Page()
    page.feed(html)
    page.close()
    return " ".join(" ".join(page.text).split()), [c for c in page.controls if c]


# Four Latin words in a row in the interface's own Arabic text: a library's message left in
# English (an instructor's English text, code and anything marked English are not read).
ENGLISH_SENTENCE = re.compile(r"[A-Za-z’']{2,}(?:[ ,]+[A-Za-z’']{2,}){3,}")


def english_left(html: str) -> list[str]:
    text = " ".join(" ".join(_parse(html).arabic).split())
    return [f"English left in Arabic: {m.group(0)!r}" for m in ENGLISH_SENTENCE.finditer(text)]


def forbidden_in_text(text: str) -> list[str]:
    """Each forbidden form found in `text`, with what it was found in and why it is wrong."""
    found = []
    for pattern, why in FORBIDDEN:
        for match in re.finditer(pattern, text):
            start, end = max(match.start() - 30, 0), match.end() + 30
            found.append(f"{match.group(0)!r} in …{text[start:end]}… ({why})")
    return found


def imperative_controls(controls: list[str]) -> list[str]:
    return [control for control in controls if control.startswith(IMPERATIVES)]


# Django's permission names are stored in English, each with its app's label ("axes | access
# attempt | Can add access attempt"): the permission pickers of the admin's user and group pages
# are left out of the check.
_PERMISSION_PICKER = re.compile(
    r'<select\b[^>]*name="(?:user_)?permissions(?:_old)?"[^>]*>.*?</select>', re.DOTALL
)


def problems(html: str) -> list[str]:
    """Every forbidden form, every imperative control and every English sentence of an HTML
    page."""
    html = _PERMISSION_PICKER.sub("", html)
    text, controls = read(html)
    imperatives = [
        f"control {c!r} starts with an imperative" for c in imperative_controls(controls)
    ]
    markup = [
        f"{match.group(0)!r} ({why})"
        for pattern, why in FORBIDDEN_MARKUP
        for match in re.finditer(pattern, html)
    ]
    return forbidden_in_text(text) + imperatives + markup + english_left(html)
