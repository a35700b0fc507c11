"""Error pages, and what htmx gets instead of one."""

from __future__ import annotations

import sys
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.cache import patch_vary_headers

from config.outages import RETRY_AFTER_SECONDS, is_database_outage

# Error pages that must render while the database or the session is failing
# (templates/errors/standalone.html).
STANDALONE_ERROR_PAGES = {"errors/500.html", "errors/503.html"}


def _error_page(
    request: HttpRequest, template: str, status: int, context: dict[str, Any] | None = None
) -> HttpResponse:
    """Our error page; to an htmx request, an order to reload the page it was sent from.

    htmx swaps error responses into the target too, and a whole error page inside the quiz
    card helps nobody. Reloaded, the page shows where things stand (a step, a sign-in form)
    with a fresh CSRF token; the failed request changed nothing.
    """
    if getattr(request, "htmx", False):
        response = HttpResponse(status=status, headers={"HX-Refresh": "true"})
    elif template in STANDALONE_ERROR_PAGES:
        # Without context processors: they may read the user, and so the database, which is
        # what may have failed.
        page = render_to_string(template, {"request": request, **(context or {})})
        response = HttpResponse(page, status=status)
    else:
        response = render(request, template, context, status=status)
    patch_vary_headers(response, ["HX-Request"])
    return response


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error_page(request, "errors/400.html", 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error_page(request, "errors/403.html", 403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error_page(request, "errors/404.html", 404)


def server_error(request: HttpRequest) -> HttpResponse:
    # Django calls this while it handles the exception, so sys.exception() is the error.
    if is_database_outage(sys.exception()):
        response = _error_page(request, "errors/503.html", 503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    return _error_page(request, "errors/500.html", 500)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    return _error_page(request, "errors/403.html", 403, {"csrf": True})
