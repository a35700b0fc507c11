"""Time zones as a reader says them: by their city, in the page's language («الرياض», "Riyadh"),
never by an offset ("+03") or an IANA name ("Asia/Riyadh"); the picker lists today's zones only,
grouped by region, each as "city — country".

The names are CLDR's, through Babel, with the Arabic spellings CLDR gets wrong corrected
(`CITIES`: «إيركوتسك», not «ايركيتسك»), and Jerusalem named by its city alone, in every
language. In Arabic the zones of the Arab League's countries come first, as «الدول العربية».
Today's zones are those of the system's zone.tab (one line per zone in use, with its country);
the old names (US/Pacific, Asia/Calcutta) are links that zone.tab does not list, and stay valid
for a profile that holds one.
"""

from __future__ import annotations

import zoneinfo
from functools import cache
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.dates import get_timezone_location
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .models import time_zone_names

# The regions of the picker, by the first part of a zone's name.
REGIONS = {
    "Africa": _("Africa"),
    "America": _("The Americas"),
    "Antarctica": _("Antarctica"),
    "Arctic": _("The Arctic"),
    "Asia": _("Asia"),
    "Atlantic": _("The Atlantic Ocean"),
    "Australia": _("Australia"),
    "Europe": _("Europe"),
    "Indian": _("The Indian Ocean"),
    "Pacific": _("The Pacific Ocean"),
}
# The first group of the Arabic picker: the Arab League's countries, by their codes.
ARAB_COUNTRIES = frozenset(
    [
        "DZ",
        "BH",
        "KM",
        "DJ",
        "EG",
        "IQ",
        "JO",
        "KW",
        "LB",
        "LY",
        "MR",
        "MA",
        "OM",
        "PS",
        "QA",
        "SA",
        "SO",
        "SD",
        "SY",
        "TN",
        "AE",
        "YE",
    ]
)
ARAB_COUNTRIES_GROUP = pgettext_lazy("a group of time zones", "Arab countries")
# Zones named by their city alone, whatever the language: Jerusalem's country is disputed.
CITY_ONLY = frozenset({"Asia/Jerusalem"})
# CLDR's Arabic city names that a reader finds misspelt, as Arabic writes them.
CITIES = {
    "ar": {
        "Asia/Irkutsk": "إيركوتسك",
        "Asia/Sakhalin": "ساخالين",
        "Asia/Ulaanbaatar": "أولان باتور",
        "Asia/Yangon": "يانغون",
        "Asia/Hebron": "الخليل",
        "Africa/Mogadishu": "مقديشو",
        "Africa/Ceuta": "سبتة",
        "Africa/Lubumbashi": "لوبومباشي",
        "Asia/Yakutsk": "ياكوتسك",
        "Asia/Vladivostok": "فلاديفوستوك",
        "Asia/Magadan": "ماغادان",
        "Asia/Yekaterinburg": "يكاترينبورغ",
        "Asia/Novosibirsk": "نوفوسيبيرسك",
        "Asia/Ho_Chi_Minh": "مدينة هو تشي منه",
        "Europe/Samara": "سامارا",
        "Europe/Volgograd": "فولغوغراد",
        "Europe/Kaliningrad": "كالينينغراد",
        "Europe/Malta": "مالطا",
        "Indian/Reunion": "روينيون",
        "Australia/Brisbane": "بريزبن",
        "Australia/Perth": "بيرث",
        "Australia/Darwin": "داروين",
        "America/Moncton": "مونكتون",
    }
}
# Zones of no place.
UNIVERSAL = {"UTC", "Etc/UTC", "Etc/UCT", "UCT", "Etc/GMT", "GMT", "Zulu", "Etc/Zulu"}


def _locale(language: str | None = None) -> Locale:
    try:
        return Locale.parse((language or translation.get_language() or "en").replace("-", "_"))
    except (UnknownLocaleError, ValueError):
        return Locale.parse("en")


@cache
def current_zones() -> dict[str, str]:
    """Today's zones (zone.tab), each with its country's code; without a zone.tab, every zone
    under a region's name."""
    known = time_zone_names()
    for folder in zoneinfo.TZPATH:
        table = Path(folder) / "zone.tab"
        if table.exists():
            zones = {}
            for line in table.read_text(encoding="utf-8").splitlines():
                if line and not line.startswith("#"):
                    country, _coordinates, name, *_comment = line.split("\t")
                    zones[name] = country
            return {name: country for name, country in zones.items() if name in known}
    return {name: "" for name in known if name.split("/")[0] in REGIONS}


def place(name: str, language: str | None = None) -> str:
    """The zone's city in the language ("Riyadh", «الرياض»); "UTC" for the universal zone."""
    if not name or name in UNIVERSAL or name.startswith("Etc/"):
        return "UTC"
    locale = _locale(language)
    if corrected := CITIES.get(locale.language, {}).get(name):
        return corrected
    try:
        return get_timezone_location(name, locale=locale, return_city=True)
    except LookupError:
        return name.rsplit("/", 1)[-1].replace("_", " ")


def label(name: str, language: str | None = None) -> str:
    """The zone as the picker lists it: "Riyadh — Saudi Arabia", «الرياض — المملكة العربية
    السعودية»."""
    city = place(name, language)
    if name in CITY_ONLY:
        return city
    country = _locale(language).territories.get(current_zones().get(name, ""), "")
    return f"{city} — {country}" if country and country != city else city


@cache
def _groups(language: str) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """Today's zones grouped by region in `language`, each group's zones by label (built once
    per language and process: CLDR's names do not change while it runs); in Arabic, the Arab
    countries' zones first, in a group of their own."""
    with translation.override(language):
        arab = str(ARAB_COUNTRIES_GROUP) if _locale(language).language == "ar" else None
        groups: dict[str, list[tuple[str, str]]] = {}
        for name, country in current_zones().items():
            region = REGIONS.get(name.split("/")[0])
            if region is None:
                continue
            group = arab if arab and country in ARAB_COUNTRIES else str(region)
            groups.setdefault(group, []).append((name, label(name, language)))
        first = [arab] if arab in groups else []
        return tuple(
            (region, tuple(sorted(groups[region], key=lambda zone: zone[1])))
            for region in [*first, *sorted(set(groups) - set(first))]
        )


def choices(current: str = "", language: str | None = None) -> list:
    """The picker's groups, by region in the reader's language, zones by name within each; a
    profile's old name (a link zone.tab does not list) keeps its place, at the top."""
    language = language or translation.get_language() or "en"
    universal = [("UTC", "UTC")]
    if current and current not in current_zones() and current != "UTC":
        universal.insert(0, (current, label(current, language)))
    return [*universal, *((region, list(zones)) for region, zones in _groups(language))]
