"""Second-factor codes (allauth.mfa's authenticator app and recovery codes) cannot be guessed.

allauth limits wrong codes only through its own rate limits, which ACCOUNT_RATE_LIMITS = False
turns off (settings), and django-axes never sees them. So every wrong code counts here, in our
limits (accounts.limits), per account and per client; once either has
SECOND_FACTOR_RATE_PER_ACCOUNT or SECOND_FACTOR_RATE_PER_CLIENT wrong codes in a span of its
period, the second step answers 429 with Retry-After, the right code included. A wrong code
answers 400 with the form's error.

- Each code takes its place under both limits before it is checked, and a right code gives
  them back (accounts.limits: increment, then decide): concurrent codes cannot pass the limit.
- Both counts, and the record of each authenticator-app code used (allauth keeps it in the
  cache with `add`), are kept in the database (`durable`), whatever the cache: a Redis outage
  neither forgets a lock or a used code nor splits them per process. A code is accepted once,
  on any server, before, during and after an outage.

The forms are allauth's (MFA_FORMS "authenticate" and "reauthenticate"), the views allauth's
too, answered at their own addresses (accounts.urls comes before allauth's URLs).
"""

from __future__ import annotations

from allauth.core import context
from allauth.mfa import app_settings as mfa_settings
from allauth.mfa.adapter import get_adapter
from allauth.mfa.base import forms as mfa_forms
from allauth.mfa.base import views as mfa_views
from allauth.mfa.models import Authenticator
from django import forms
from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from . import devices
from .client_ip import client_key
from .limits import Place, give_back, limited, take

# Set on the request when the form refused a code unread: the view answers 429.
WAIT_ATTRIBUTE = "second_factor_wait"


def _counters(user, request: HttpRequest | None) -> list[tuple[str, str, str]]:
    counters = [("second-factor-account", str(user.pk), settings.SECOND_FACTOR_RATE_PER_ACCOUNT)]
    address = client_key(request) if request is not None else None
    if address:
        counters.append(("second-factor-client", address, settings.SECOND_FACTOR_RATE_PER_CLIENT))
    return counters


def take_places(*, user, request: HttpRequest | None) -> tuple[int | None, list[Place]]:
    """A place under each limit for one code: (None, the places) if it may be checked, (the
    seconds to wait, []) if not (and nothing taken)."""
    places: list[Place] = []
    waits: list[int] = []
    for group, key, rate in _counters(user, request):
        wait, place = take(group=group, key=key, rate=rate, durable=True)
        if wait:
            waits.append(wait)
        elif place is not None:
            places.append(place)
    if waits:
        for place in places:
            give_back(place)
        return max(waits), []
    return None, places


def first_use(*, user, code: str) -> bool:
    """Record an authenticator-app code as used, in the database: False if it was already."""
    period = mfa_settings.TOTP_PERIOD
    seconds = period * (2 * mfa_settings.TOTP_TOLERANCE + 2)  # as long as it can be valid
    key = f"totp-used:{user.pk}:{''.join(code.split())}"
    return caches["database"].add(key, 1, timeout=seconds)


class LimitedCode:
    """allauth's code check, refused unread while the limit holds; a wrong code counts."""

    user: object
    authenticator: Authenticator

    def clean_code(self) -> str:
        request = context.request
        wait, places = take_places(user=self.user, request=request)
        if wait:
            if request is not None:
                setattr(request, WAIT_ATTRIBUTE, wait)
            raise forms.ValidationError(
                gettext_lazy("Too many wrong codes. Try again later."), code="limited"
            )
        code = super().clean_code()  # type: ignore[misc]  # a wrong code keeps its places
        if self.authenticator.type == Authenticator.Type.TOTP and not first_use(
            user=self.user, code=code
        ):
            raise get_adapter().validation_error("incorrect_code")
        for place in places:
            give_back(place)
        return code


class AuthenticateForm(LimitedCode, mfa_forms.AuthenticateForm):
    pass


class ReauthenticateForm(LimitedCode, mfa_forms.ReauthenticateForm):
    pass


def _answer(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    wait = getattr(request, WAIT_ATTRIBUTE, None)
    if wait:
        return limited(
            request,
            wait=wait,
            reason=_(
                "Too many wrong codes were entered for this account or from here. For your "
                "safety, two-factor sign-in is paused for a while."
            ),
            back_url=reverse("quizzes:catalog"),
            back_label=_("Back to quizzes"),
        )
    form = (getattr(response, "context_data", None) or {}).get("form")
    if response.status_code == 200 and form is not None and form.is_bound and form.errors:
        response.status_code = 400
    return response


@require_http_methods(["GET", "POST"])
def authenticate(request: HttpRequest) -> HttpResponse:
    """allauth's second step of signing in, limited; a browser that signs in is remembered
    (accounts.devices)."""
    return devices.remember(request, _answer(request, mfa_views.authenticate(request)))


@require_http_methods(["GET", "POST"])
def reauthenticate(request: HttpRequest) -> HttpResponse:
    """allauth's "enter a code again", limited the same way."""
    return _answer(request, mfa_views.reauthenticate(request))
