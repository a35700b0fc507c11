"""Inside a platform's frame: for a browser session launched from a registered platform, that
platform (and only it) may frame Daleel, and our cookies are sent in its third-party context.
Everywhere else nothing changes: frame-ancestors 'none' and X-Frame-Options DENY.

Placed between the CSP and X-Frame-Options middlewares (above it, which read what it sets on
the way out) and the session and CSRF middlewares (below it, whose cookies it adjusts)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from http.cookies import CookieError

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.csp import CSP
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csp import csp_override

from config.outages import DATABASE_UNREACHABLE

ORIGINS = "lti_origins"  # lti.views.ORIGINS


def _third_party(morsel) -> None:
    morsel["samesite"] = "None"
    morsel["secure"] = True
    # CHIPS: a cookie of its own per top-level site, which browsers that block third-party
    # cookies still send. http.cookies knows the attribute from Python 3.14 on.
    with contextlib.suppress(CookieError):
        morsel["partitioned"] = True


def lti_embedding(get_response: Callable[[HttpRequest], HttpResponse]):
    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        session = getattr(request, "session", None)
        # Only a session that exists (its cookie came) or was just written: a request without
        # one reads nothing more than it did.
        view = getattr(request.resolver_match, "func", None)
        has_session = (
            session is not None
            and not getattr(view, "without_session", False)
            and (settings.SESSION_COOKIE_NAME in request.COOKIES or session.modified)
        )
        try:
            origins = session.get(ORIGINS) if has_session else None
        except DATABASE_UNREACHABLE:  # PostgreSQL down: the response (a 503 or /healthz) as is
            origins = None
        if not origins:
            return response
        policy = {**settings.SECURE_CSP, "frame-ancestors": list(origins)}
        form_action = getattr(request, "lti_form_action", None)
        if form_action:
            policy["form-action"] = [CSP.SELF, form_action]

        def same(_request: HttpRequest) -> HttpResponse:
            return response

        # Django's documented per-view overrides, applied to this response.
        response = csp_override(policy)(xframe_options_exempt(same))(request)
        names = {settings.SESSION_COOKIE_NAME, settings.CSRF_COOKIE_NAME}
        for name, morsel in response.cookies.items():
            if name in names or name.startswith("lti1p3-"):
                _third_party(morsel)
        return response

    return middleware
