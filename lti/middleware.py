"""Inside a platform's frame: for a browser session that a completed launch from a registered
platform created, that platform (and only it) may frame Daleel, and the session's cookies are
sent in its third-party context. A login or launch page of a registered platform (lti.login,
the refusals) may be framed by it too, for that response only. Everywhere else nothing
changes: frame-ancestors 'none' and X-Frame-Options DENY, cookies SameSite=Lax.

The login's own cookies (pylti1p3's state, lti.login's test cookie: named `lti1p3-…`) are
always third-party.

Every third-party cookie is also `Partitioned` (CHIPS): a cookie of its own per top-level site,
which browsers that block third-party cookies (Chromium here) still keep and send in the
platform's frame. Python 3.12's http.cookies cannot write the attribute (3.14 can); every
Set-Cookie header is written by `Morsel.OutputString` (documented; Django's WSGI and ASGI
handlers call it through `Morsel.output`), which `PartitionedMorsel` extends.

Placed between the CSP and X-Frame-Options middlewares (above it, which read what it sets on
the way out) and the session and CSRF middlewares (below it, whose cookies it adjusts)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Container
from http.cookies import Morsel
from typing import cast

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.csp import CSP
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csp import csp_override

from config.outages import DATABASE_UNREACHABLE

ORIGINS = "lti_origins"  # lti.views.ORIGINS
FRAME_ORIGINS = "lti_frame_origins"  # lti.views.FRAME_ORIGINS
LOGIN_COOKIE_PREFIX = "lti1p3-"


class PartitionedMorsel(Morsel[str]):
    """A cookie written with the `Partitioned` attribute."""

    def OutputString(self, attrs: Container[str] | None = None) -> str:  # http.cookies' name
        return super().OutputString(attrs) + "; Partitioned"


def third_party(morsel: Morsel[str]) -> PartitionedMorsel:
    """`morsel` as a cookie sent in another site's frame: SameSite=None, Secure, Partitioned."""
    partitioned = PartitionedMorsel()
    partitioned.set(morsel.key, morsel.value, morsel.coded_value)
    partitioned.update(morsel)
    partitioned["samesite"] = "None"
    partitioned["secure"] = True
    return partitioned


def _launched_origins(request: HttpRequest) -> list[str] | None:
    """The origins kept in a session that a launch created, if this request has one."""
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
        return session.get(ORIGINS) if has_session else None  # type: ignore[union-attr]
    except DATABASE_UNREACHABLE:  # PostgreSQL down: the response (a 503 or /healthz) as is
        return None


def lti_embedding(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[[HttpRequest], HttpResponse]:
    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        for name, morsel in list(response.cookies.items()):
            if name.startswith(LOGIN_COOKIE_PREFIX):
                response.cookies[name] = third_party(morsel)
        origins = getattr(request, FRAME_ORIGINS, None)
        launched = False
        if not origins:
            origins = _launched_origins(request)
            launched = bool(origins)
        if not origins:
            return response
        policy = {
            **cast("dict[str, Collection[str] | str]", settings.SECURE_CSP),
            "frame-ancestors": list(origins),
        }
        form_action = getattr(request, "lti_form_action", None)
        if form_action:
            policy["form-action"] = [CSP.SELF, form_action]

        def same(_request: HttpRequest) -> HttpResponse:
            return response

        # Django's documented per-view overrides, applied to this response.
        response = csp_override(policy)(xframe_options_exempt(same))(request)
        if launched:
            names = {settings.SESSION_COOKIE_NAME, settings.CSRF_COOKIE_NAME}
            for name, morsel in list(response.cookies.items()):
                if name in names:
                    response.cookies[name] = third_party(morsel)
        return response

    return middleware
