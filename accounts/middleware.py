"""What every response to a signed-in learner needs, whichever view made it."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control


def private_when_signed_in(get_response: Callable[[HttpRequest], HttpResponse]):
    """A response that read a signed-in learner's session is theirs: shared caches (a proxy,
    a CDN) must not keep it. Even the catalog carries the learner's name and progress."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        session = getattr(request, "session", None)
        if session is not None and session.accessed and request.user.is_authenticated:
            patch_cache_control(response, private=True)
        return response

    return middleware
