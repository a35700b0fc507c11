"""How a translated field is labelled: «العنوان (بالعربية)», "Title (in English)".

django-modeltranslation names each language's field after the model's field, with the language
code in brackets («العنوان [ar]»), on the admin's own fieldsets and on the rows of a quiz's
page alike (their labels are the fields' verbose names). MODELTRANSLATION_BUILD_LOCALIZED_
VERBOSE_NAME, its documented setting, calls this instead; the name is built each time it is
read, so it is in the page's language.
"""

from __future__ import annotations

from django.utils.translation import pgettext


def translated_field_label(verbose_name: str, lang: str) -> str:
    languages = {
        "en": pgettext("the language of a translated field", "in English"),
        "ar": pgettext("the language of a translated field", "in Arabic"),
    }
    return f"{verbose_name} ({languages.get(lang, lang)})"
