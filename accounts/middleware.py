"""What every response to a signed-in learner needs, whichever view made it; and staff's
second factor before the admin."""

from __future__ import annotations

from collections.abc import Callable

from allauth.mfa.adapter import get_adapter as get_mfa_adapter
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext as _


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
