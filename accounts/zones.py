"""Time zones as a reader says them: by their city, in the page's language («الرياض», "Riyadh"),
never by an offset ("+03") or an IANA name ("Asia/Riyadh"); the picker lists today's zones only,
grouped by region, each as "city — country".

The names are CLDR's, through Babel. Today's zones are those of the system's zone.tab (one line
per zone in use, with its country); the old names (US/Pacific, Asia/Calcutta) are links that
zone.tab does not list, and stay valid for a profile that holds one.
"""

from __future__ import annotations

import zoneinfo
from functools import cache
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.dates import get_timezone_location
from django.utils import translation
from django.utils.translation import gettext_lazy as _

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
    try:
        return get_timezone_location(name, locale=_locale(language), return_city=True)
    except LookupError:
        return name.rsplit("/", 1)[-1].replace("_", " ")


def label(name: str, language: str | None = None) -> str:
    """The zone as the picker lists it: "Riyadh — Saudi Arabia", «الرياض — المملكة العربية
    السعودية»."""
    city = place(name, language)
    country = _locale(language).territories.get(current_zones().get(name, ""), "")
    return f"{city} — {country}" if country and country != city else city


@cache
def _groups(language: str) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """Today's zones grouped by region in `language`, each group's zones by label (built once
    per language and process: CLDR's names do not change while it runs)."""
    with translation.override(language):
        groups: dict[str, list[tuple[str, str]]] = {}
        for name in current_zones():
            region = REGIONS.get(name.split("/")[0])
            if region is not None:
                groups.setdefault(str(region), []).append((name, label(name, language)))
        return tuple(
            (region, tuple(sorted(zones, key=lambda zone: zone[1])))
            for region, zones in sorted(groups.items())
        )


def choices(current: str = "", language: str | None = None) -> list:
    """The picker's groups, by region in the reader's language, zones by name within each; a
    profile's old name (a link zone.tab does not list) keeps its place, at the top."""
    language = language or translation.get_language() or "en"
    universal = [("UTC", "UTC")]
    if current and current not in current_zones() and current != "UTC":
        universal.insert(0, (current, label(current, language)))
    return [*universal, *((region, list(zones)) for region, zones in _groups(language))]
