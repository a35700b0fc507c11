"""A request over the upload limits (config/settings.py's DATA_UPLOAD_*) is answered with a page
that says what happened and how to go on, in the page's language, the admin's look on the
admin's pages; Django alone answers a bare "400 Bad Request" (DEBUG: its technical page).

The middleware reads the form before CSRF's check would (which is where Django refuses it);
nothing of the request reaches a view, so nothing is stored.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib import admin
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers

REFUSALS = (TooManyFieldsSent, TooManyFilesSent, RequestDataTooBig)
STATUS = 413  # Content Too Large


def upload_limits(get_response: Callable[[HttpRequest], HttpResponse]):
    def middleware(request: HttpRequest) -> HttpResponse:
        if request.method == "POST":
            try:
                request.POST  # noqa: B018 — read now, refused here rather than by CSRF's read
                request.FILES  # noqa: B018
            except REFUSALS as error:
                return refused(request, error)
        return get_response(request)

    return middleware


def limits() -> dict[str, int]:
    return {
        "fields": settings.DATA_UPLOAD_MAX_NUMBER_FIELDS,
        "files": settings.DATA_UPLOAD_MAX_NUMBER_FILES,
        "megabytes": max(1, settings.DATA_UPLOAD_MAX_MEMORY_SIZE // (1024 * 1024)),
        "bytes": settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
    }


def refused(request: HttpRequest, error: Exception) -> HttpResponse:
    context = {
        "limits": limits(),
        "too_many_fields": isinstance(error, TooManyFieldsSent),
        "too_many_files": isinstance(error, TooManyFilesSent),
        "too_big": isinstance(error, RequestDataTooBig),
        "again_url": request.path,
    }
    if request.path.startswith(reverse("admin:index")):
        context |= admin.site.each_context(request)
        context["title"] = context["subtitle"] = None
        response = render(request, "admin/too_large.html", context, status=STATUS)
    elif request.headers.get("HX-Request") == "true":  # (HtmxMiddleware has not run yet)
        response = HttpResponse(status=STATUS, headers={"HX-Refresh": "true"})
    else:
        response = render(request, "errors/413.html", context, status=STATUS)
    patch_vary_headers(response, ["HX-Request"])
    return response
