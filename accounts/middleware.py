"""What every response to a signed-in learner needs, whichever view made it; and staff's
second factor before the admin."""

from __future__ import annotations

import contextlib
import time
import zoneinfo
from collections.abc import Callable
from urllib.parse import urlencode

from allauth.account import app_settings as allauth_settings
from allauth.account.authentication import get_authentication_records
from allauth.mfa.adapter import get_adapter as get_mfa_adapter
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import REDIRECT_FIELD_NAME, SESSION_KEY
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
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
    view (Django's `timezone.activate`), from the session (set at sign-in). Views marked
    `without_session` (the health checks, which must answer while PostgreSQL is down) are
    left alone: their request neither loads the session nor, through it, the user."""

    def middleware(request: HttpRequest) -> HttpResponse:
        timezone.deactivate()
        return get_response(request)

    def process_view(request: HttpRequest, view_func, view_args, view_kwargs) -> None:
        # Only a request with a session reads it (a first visit does not, and so does not
        # vary on the cookie); the user is not read.
        if getattr(view_func, "without_session", False):
            return
        if settings.SESSION_COOKIE_NAME not in request.COOKIES:
            return
        name = _session_time_zone(request)
        if name:
            with contextlib.suppress(zoneinfo.ZoneInfoNotFoundError, ValueError):
                timezone.activate(zoneinfo.ZoneInfo(name))

    middleware.process_view = process_view  # type: ignore[attr-defined]
    return middleware


def without_session[View: Callable[..., HttpResponse]](view: View) -> View:
    """Mark a view that needs no session: no middleware reads one for it (learner_time_zone,
    lti.middleware), so it answers while the database is down, whatever cookies come."""
    view.without_session = True  # type: ignore[attr-defined]
    return view


def _session_time_zone(request: HttpRequest) -> str:
    """The zone kept in the session ("" for the site's); a session from before time zones
    reads the profile once and keeps it."""
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
    return name


# When the browser signed in (any way: the sign-in form, a sign-up, an LTI launch), as seconds
# since the epoch.
SESSION_SIGNED_IN_AT = "_signed_in_at"
# This session set up a second factor (proving it with a code or the passkey): as good as
# passing it (accounts.signals).
SESSION_FACTOR_ADDED = "_second_factor_added"
# allauth's pages that enrol a second factor.
ENROLMENT_VIEWS = {"mfa_activate_totp", "mfa_add_webauthn"}


def _factor_passed(request: HttpRequest, user) -> bool:
    """Whether this session passed a second factor (at sign-in, or asked again since), or set
    one up."""
    if request.session.get(SESSION_FACTOR_ADDED) == user.pk:
        return True
    records = get_authentication_records(request, user)
    return any(record.get("method") == "mfa" for record in records)


def _signed_in_recently(request: HttpRequest) -> bool:
    signed_in_at = request.session.get(SESSION_SIGNED_IN_AT)
    return (
        isinstance(signed_in_at, int | float)
        and 0 <= time.time() - signed_in_at < allauth_settings.REAUTHENTICATION_TIMEOUT
    )


def staff_two_factor(get_response: Callable[[HttpRequest], HttpResponse]):
    """With MFA_REQUIRED_FOR_STAFF (on whenever DEBUG is off), no admin page opens to a staff
    member whose session has not passed a second factor (an authenticator app, a recovery
    code or a passkey): without one, they are sent to set one up; with one, to enter it. The
    sign-in form asks for it (allauth.mfa), which the admin's own sign-in goes through too
    (config/urls.py); a session signed in another way (an LTI launch) is asked here.

    Enrolling a factor needs a recent authentication. allauth asks for the password again;
    an account with neither a password nor a factor (made by an LTI launch) cannot be asked,
    so it may enrol only within ACCOUNT_REAUTHENTICATION_TIMEOUT of signing in."""

    def middleware(request: HttpRequest) -> HttpResponse:
        # The path first: other pages (/healthz while PostgreSQL is down) never load the user.
        user = getattr(request, "user", None)
        if not (
            settings.MFA_REQUIRED_FOR_STAFF
            and request.path.startswith(reverse("admin:index"))
            and user is not None
            and user.is_authenticated
            and user.is_staff
        ):
            return get_response(request)
        if not get_mfa_adapter().is_mfa_enabled(user):
            messages.warning(
                request,
                _(
                    "Staff accounts need two-factor sign-in before the admin opens: set up an "
                    "authenticator app or a passkey."
                ),
            )
            return redirect("mfa_index")
        if not _factor_passed(request, user):
            again = reverse("accounts:second_factor_again")
            return redirect(f"{again}?{urlencode({REDIRECT_FIELD_NAME: request.get_full_path()})}")
        return get_response(request)

    def process_view(request: HttpRequest, view_func, view_args, view_kwargs):
        match = request.resolver_match
        if match is None or match.url_name not in ENROLMENT_VIEWS:
            return None
        user = request.user
        if (
            not user.is_authenticated
            or user.has_usable_password()
            or get_mfa_adapter().is_mfa_enabled(user)
            or _signed_in_recently(request)
        ):
            return None  # allauth's own reauthentication applies
        return render(request, "accounts/sign_in_again.html", status=403)

    middleware.process_view = process_view  # type: ignore[attr-defined]
    return middleware
