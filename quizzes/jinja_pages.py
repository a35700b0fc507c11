"""The Jinja2 environment of the learner's step (TEMPLATES' "jinja2" engine, quizzes/jinja2/).

The same functions as the Django templates' tags and filters (quizzes/templatetags/daleel.py,
Django's own), as Jinja2 globals and filters; gettext through Jinja2's i18n extension,
new-style, its %(name)s values escaped. Jinja2 takes a translation as markup; here it is
escaped first, as Django's `{% translate %}` escapes it: a translator's `<` is text.
"""

from __future__ import annotations

import jinja2
from django.template import defaultfilters
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.dateformat import format as date_format
from django.utils.html import escape

from .templatetags import daleel


def _date(value, arg: str) -> str:
    return defaultfilters.date(timezone.template_localtime(value), arg)


def _now(arg: str) -> str:
    return date_format(timezone.localtime(timezone.now()), arg)


def _url(name: str, *args) -> str:
    return reverse(name, args=args)


def _gettext(message: str) -> str:
    return escape(translation.gettext(message))


def _ngettext(singular: str, plural: str, number: int) -> str:
    return escape(translation.ngettext(singular, plural, number))


def _pgettext(context: str, message: str) -> str:
    return escape(translation.pgettext(context, message))


def _npgettext(context: str, singular: str, plural: str, number: int) -> str:
    return escape(translation.npgettext(context, singular, plural, number))


def environment(**options) -> jinja2.Environment:
    # As in Django templates, a missing attribute (of a form not sent: None) is empty.
    options["undefined"] = jinja2.ChainableUndefined  # Django sets its own; ours chains
    env = jinja2.Environment(extensions=["jinja2.ext.i18n"], **options)
    env.install_gettext_callables(  # type: ignore[attr-defined]
        _gettext,
        _ngettext,
        newstyle=True,
        pgettext=_pgettext,
        npgettext=_npgettext,
    )
    env.globals.update(
        url=_url,
        now=_now,
        tr=daleel.tr,
        md=daleel.md,
        arrange_rows=daleel.arrange_rows,
        get_language=translation.get_language,
        get_language_bidi=translation.get_language_bidi,
    )
    env.filters.update(
        date=_date,
        timeuntil=defaultfilters.timeuntil_filter,
        dj_urlencode=defaultfilters.urlencode,
        prompt_parts=daleel.prompt_parts,
        prompt_has_body=daleel.prompt_has_body,
        plain_number=daleel.plain_number,
        mark=daleel.mark,
        mark_tenths=daleel.mark_tenths,
    )
    return env
