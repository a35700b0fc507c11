"""Operators' endpoints (health, readiness) and the language switch."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_safe
from django.views.i18n import set_language as django_set_language

from accounts.middleware import without_session
from config.outages import DATABASE_UNREACHABLE, RETRY_AFTER_SECONDS


@without_session
@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")


@without_session
@require_safe
def readyz(request: HttpRequest) -> HttpResponse:
    """Ready to serve learners: the database answers. (Redis is not asked: without it the
    site is slower, not down.)"""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DATABASE_UNREACHABLE:
        return HttpResponse(
            "database unavailable",
            content_type="text/plain",
            status=503,
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )
    return HttpResponse("ok", content_type="text/plain")


def set_language(request: HttpRequest) -> HttpResponse:
    """Django's set_language, reading `next` in the language of its own prefix.

    Django finds `next` in the other language by resolving it in the active one, which on this
    unprefixed URL comes from the cookie or the browser. When that is not the page's language
    (an Arabic browser on an /en/ link) the path does not resolve and the switch leaves the
    learner where they were.
    """
    next_url = request.POST.get("next", request.GET.get("next", ""))
    # Only a `next` on this site is followed (Django checks it again); checking first also
    # keeps urlsplit from meeting what it refuses (`http://[`, `//[::1`), which is no 500.
    if url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        page_language = translation.get_language_from_path(urlsplit(next_url).path)
        if page_language:
            translation.activate(page_language)
    return django_set_language(request)
