"""What every whole page's frame (templates/base.html) needs, computed once where it can be."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest
from django.templatetags.static import static
from django.urls import get_script_prefix, reverse
from django.utils import translation
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext

from .review.badge import review_due_badge


@dataclass(frozen=True)
class OtherLanguage:
    code: str
    # The name in the language itself ("English", "العربية"), and what its button does in the
    # page's language.
    name_local: str
    title: str


@dataclass(frozen=True)
class Frame:
    """The frame's addresses in one language: the navigation's links and the static files'
    paths (their hashed names in production), and the languages to switch to."""

    catalog: str
    guides: str
    history: str
    review: str
    admin: str
    profile: str
    login: str
    logout: str
    signup: str
    set_language: str
    stylesheet: str
    code_stylesheet: str
    math_stylesheet: str
    htmx: str
    script: str
    favicon_svg: str
    favicon_png: str
    touch_icon: str
    other_languages: tuple[OtherLanguage, ...]


@functools.lru_cache(maxsize=16)
def _frame(language: str, script_prefix: str) -> Frame:
    # Per process, language and script prefix; a release is a new process (static files'
    # hashed names change with it), so nothing here outlives what it was computed for.
    with translation.override(language):
        return Frame(
            catalog=reverse("quizzes:catalog"),
            guides=reverse("quizzes:guides"),
            history=reverse("quizzes:history"),
            review=reverse("quizzes:review"),
            admin=reverse("admin:index"),
            profile=reverse("accounts:profile"),
            login=reverse("accounts:login"),
            logout=reverse("accounts:logout"),
            signup=reverse("accounts:signup"),
            set_language=reverse("set_language"),
            stylesheet=static("css/daleel.css"),
            code_stylesheet=static("css/code.css"),
            math_stylesheet=static("css/math.css"),
            htmx=static("django_htmx/htmx-4.min.js"),
            script=static("js/daleel.js"),
            favicon_svg=static("favicon.svg"),
            favicon_png=static("favicon.png"),
            touch_icon=static("apple-touch-icon.png"),
            other_languages=tuple(
                OtherLanguage(
                    code=code,
                    name_local=translation.get_language_info(code)["name_local"],
                    title=gettext("Read this page in %(name)s")
                    % {"name": translation.get_language_info(code)["name_translated"]},
                )
                for code, _name in settings.LANGUAGES
                if code != language
            ),
        )


def frame(request: HttpRequest) -> dict[str, object]:
    """The page frame (`Frame`), looked up only by a template that shows it: a message or a
    mail rendered with the request reads no static file's name."""
    language = (translation.get_language() or settings.LANGUAGE_CODE).split("-")[0]
    prefix = get_script_prefix()
    return {"frame": SimpleLazyObject(lambda: _frame(language, prefix))}


def review_due(request: HttpRequest) -> dict[str, object]:
    """The number of review questions due, for the navigation: read (`review_due_badge`) only
    when a template shows it: a fragment pays nothing unless it swaps the navigation's review
    link (an answer's, base.html#review_link)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"review_due": SimpleLazyObject(lambda: review_due_badge(user_id=user.pk))}
