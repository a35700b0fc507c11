"""What every response to a signed-in learner needs, whichever view made it."""

from __future__ import annotations

import contextlib
import zoneinfo
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.cache import patch_cache_control

# The signed-in learner's time zone (Profile.time_zone, "" for the site's), kept in the
# session at sign-in and when the profile changes it, so that no request reads the profile.
SESSION_TIME_ZONE = "_time_zone"


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


def learner_time_zone(get_response: Callable[[HttpRequest], HttpResponse]):
    """Every date and time a signed-in learner sees is in their time zone: activated for the
    request (Django's `timezone.activate`), from the session (set at sign-in); a session from
    before time zones reads the profile once."""

    def middleware(request: HttpRequest) -> HttpResponse:
        name = ""
        # Only a request with a session reads it (a health check or a first visit does not,
        # and so does not vary on the cookie); the user is not read.
        if settings.SESSION_COOKIE_NAME in request.COOKIES:
            session = request.session
            name = session.get(SESSION_TIME_ZONE)
            if name is None:
                name = ""
                if SESSION_KEY in session:
                    from .models import Profile

                    name = (
                        Profile.objects.filter(user_id=session[SESSION_KEY])
                        .values_list("time_zone", flat=True)
                        .first()
                        or ""
                    )
                    session[SESSION_TIME_ZONE] = name
        timezone.deactivate()
        if name:
            with contextlib.suppress(zoneinfo.ZoneInfoNotFoundError, ValueError):
                timezone.activate(zoneinfo.ZoneInfo(name))
        return get_response(request)

    return middleware
