"""What every response to a signed-in learner needs, whichever view made it; and staff's
second factor before the admin."""

from __future__ import annotations

import contextlib
import zoneinfo
from collections.abc import Callable

from allauth.mfa.adapter import get_adapter as get_mfa_adapter
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import SESSION_KEY
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext as _

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


def staff_two_factor(get_response: Callable[[HttpRequest], HttpResponse]):
    """With MFA_REQUIRED_FOR_STAFF (on whenever DEBUG is off), a staff member without a second
    factor (an authenticator app or a passkey) is sent to set one up before any admin page
    opens. Whoever has one is asked for it at sign-in (allauth.mfa), which the admin's own
    sign-in goes through too (config/urls.py)."""

    def middleware(request: HttpRequest) -> HttpResponse:
        # The path first: other pages (/healthz while PostgreSQL is down) never load the user.
        user = getattr(request, "user", None)
        if (
            settings.MFA_REQUIRED_FOR_STAFF
            and request.path.startswith(reverse("admin:index"))
            and user is not None
            and user.is_authenticated
            and user.is_staff
            and not get_mfa_adapter().is_mfa_enabled(user)
        ):
            messages.warning(
                request,
                _(
                    "Staff accounts need two-factor sign-in before the admin opens: set up an "
                    "authenticator app or a passkey."
                ),
            )
            return redirect("mfa_index")
        return get_response(request)

    return middleware
