"""Signing in by password, limited so that the limits hold.

- django-axes counts failures under the username as sign-in matches it: allauth's backend
  finds `Alice` for `alice` (case-insensitively), so axes keys on the case-folded name
  (AXES_USERNAME_CALLABLE); another spelling is the same count, not a fresh one. A username
  locked out from this client is answered before any password is checked.
- One client (an IPv4 address, an IPv6 /64: accounts.client_ip.client_key) may fail
  SIGN_IN_FAILURE_RATE_PER_CLIENT times across all usernames (password spraying); past it,
  the sign-in page answers 429 before any password is checked. A browser that has signed in
  to the account before is counted apart (accounts.devices), so one learner spraying from a
  school's address does not lock the class out.
- Increment, then decide (accounts.limits): a sign-in takes its place under the client's
  limit (or its browser's) and under the username's lockout before its password is checked,
  and gives them back unless it failed. Concurrent sign-ins cannot pass either limit; those
  past the lockout only because others are still in flight wait for them (_in_flight).
- One authentication backend checks the password (allauth's; settings), so a failed sign-in
  hashes it once.
"""

from __future__ import annotations

import time

from allauth.account import views as allauth_views
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_lockout_response
from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from . import devices
from .client_ip import client_key
from .limits import Place, give_back, hit, limited, take

GROUP = "sign-in-failures-client"
DEVICE_GROUP = "sign-in-failures-device"
ACCOUNT_GROUP = "sign-in-in-flight"
# Set on the request by the sign-in page, which counts its own failures: a list the receiver
# below marks when the password was wrong.
COUNTED = "sign_in_counted"
# How long a sign-in waits for others in flight (same username, same client) before it counts
# them as failures, and how often it looks again: a password check takes well under a second.
IN_FLIGHT_WAIT = 5.0
IN_FLIGHT_POLL = 0.02


def username_key(request: HttpRequest | None, credentials: dict | None) -> str:
    """AXES_USERNAME_CALLABLE: the username axes counts failures under, case-folded as sign-in
    matches it (from the credentials a backend was given, or the sign-in form's `login`)."""
    username = (credentials or {}).get("username")
    if username is None and request is not None and request.method == "POST":
        username = request.POST.get("login")
    return str(username or "").strip().casefold()


@receiver(user_login_failed)
def count_failure_per_client(sender, credentials=None, request=None, **kwargs) -> None:
    """Every failed sign-in (a wrong password here or on a page that asks for it again) counts
    against the client, whichever username it named; the sign-in page has counted it
    already (its place is kept)."""
    if request is None:
        return
    failed = getattr(request, COUNTED, None)
    if failed is not None:
        failed.append(True)
    elif address := client_key(request):
        hit(group=GROUP, key=address, rate=settings.SIGN_IN_FAILURE_RATE_PER_CLIENT)


def _device_rate() -> str:
    return f"{settings.AXES_FAILURE_LIMIT}/{round(settings.AXES_COOLOFF_TIME * 60)}m"


def _in_flight(request: HttpRequest, username: str) -> tuple[bool, Place | None]:
    """A place among the username's sign-ins in flight from this client; (False, None) when
    the failures django-axes has counted make its lockout.

    The place is taken before the failures are read: a sign-in that ends in between is
    counted in one or the other (it writes its failure before it gives its place back), never
    in neither. It may be counted in both, for the moment between the two: so a sign-in that
    the places in flight would put past the lockout waits for them to end (IN_FLIGHT_WAIT at
    most) and looks again, and is refused only by failures counted. Concurrent sign-ins pass
    exactly the lockout's number, neither more nor fewer."""
    limit = settings.AXES_FAILURE_LIMIT
    key = f"{username}\n{client_key(request)}"
    deadline = time.monotonic() + IN_FLIGHT_WAIT
    while True:
        _wait, place = take(group=ACCOUNT_GROUP, key=key, rate=f"{limit}/m")
        failures = AxesProxyHandler.get_failures(request, {"username": username})
        if place is not None and failures + place.count <= limit:
            return True, place
        give_back(place)
        if failures >= limit or time.monotonic() >= deadline:
            return False, None
        time.sleep(IN_FLIGHT_POLL)


def _limited(request: HttpRequest, wait: int) -> HttpResponse:
    return limited(
        request,
        wait=wait,
        reason=_("Many sign-ins failed from here in a short time, whichever the account."),
        back_url=reverse("accounts:login"),
        back_label=_("Back to sign in"),
    )


@require_http_methods(["GET", "POST"])
def login(request: HttpRequest) -> HttpResponse:
    """allauth's sign-in, refused (429) while this client is past its failures or the
    username is locked out from it."""
    if request.method != "POST":
        return allauth_views.login(request)
    username = username_key(request, None)
    if AxesProxyHandler.is_locked(request, {"username": username}):
        return get_lockout_response(request, credentials={"username": username})
    place = None
    if (device := devices.device_of(request, username)) is not None:
        # Its own failures first; past them, the client's like any browser's.
        _wait, place = take(group=DEVICE_GROUP, key=device, rate=_device_rate())
    if place is None and (address := client_key(request)):
        rate = settings.SIGN_IN_FAILURE_RATE_PER_CLIENT
        wait, place = take(group=GROUP, key=address, rate=rate)
        if wait:
            return _limited(request, wait)
    allowed, in_flight = _in_flight(request, username)
    if not allowed:
        give_back(place)
        return get_lockout_response(request, credentials={"username": username})
    failed: list[bool] = []
    setattr(request, COUNTED, failed)
    try:
        response = allauth_views.login(request)
    finally:
        give_back(in_flight)
        if not failed:  # signed in, or no password checked (a form sent half filled)
            give_back(place)
    return devices.remember(request, response)
