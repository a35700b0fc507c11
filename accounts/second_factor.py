"""Second-factor codes (allauth.mfa's authenticator app and recovery codes) cannot be guessed.

allauth limits wrong codes only through its own rate limits, which ACCOUNT_RATE_LIMITS = False
turns off (settings), and django-axes never sees them. So every wrong code counts here, in our
limits (accounts.limits), per account and per client address; once either has
SECOND_FACTOR_RATE_PER_ACCOUNT or SECOND_FACTOR_RATE_PER_CLIENT wrong codes in its window, the
second step answers 429 with Retry-After until the window ends, the right code included. A
wrong code answers 400 with the form's error.

The forms are allauth's (MFA_FORMS "authenticate" and "reauthenticate"), the views allauth's
too, answered at their own addresses (accounts.urls comes before allauth's URLs).
"""

from __future__ import annotations

from allauth.core import context
from allauth.mfa.base import forms as mfa_forms
from allauth.mfa.base import views as mfa_views
from django import forms
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from .client_ip import client_ip
from .limits import hit, limited, reached

# Set on the request when the form refused a code unread: the view answers 429.
WAIT_ATTRIBUTE = "second_factor_wait"


def _counters(user, request: HttpRequest | None) -> list[tuple[str, str, str]]:
    counters = [("second-factor-account", str(user.pk), settings.SECOND_FACTOR_RATE_PER_ACCOUNT)]
    address = client_ip(request) if request is not None else None
    if address:
        counters.append(("second-factor-client", address, settings.SECOND_FACTOR_RATE_PER_CLIENT))
    return counters


def wait_for(*, user, request: HttpRequest | None) -> int | None:
    """Seconds until this account (or this client) may try a code again; None: now."""
    waits = [
        wait
        for group, key, rate in _counters(user, request)
        if (wait := reached(group=group, key=key, rate=rate))
    ]
    return max(waits) if waits else None


def count_wrong_code(*, user, request: HttpRequest | None) -> None:
    for group, key, rate in _counters(user, request):
        hit(group=group, key=key, rate=rate)


class LimitedCode:
    """allauth's code check, refused unread while the limit holds; a wrong code counts."""

    user: object

    def clean_code(self) -> str:
        request = context.request
        wait = wait_for(user=self.user, request=request)
        if wait:
            if request is not None:
                setattr(request, WAIT_ATTRIBUTE, wait)
            raise forms.ValidationError(
                gettext_lazy("Too many wrong codes. Try again later."), code="limited"
            )
        try:
            return super().clean_code()  # type: ignore[misc]
        except forms.ValidationError:
            count_wrong_code(user=self.user, request=request)
            raise


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
    """allauth's second step of signing in, limited."""
    return _answer(request, mfa_views.authenticate(request))


@require_http_methods(["GET", "POST"])
def reauthenticate(request: HttpRequest) -> HttpResponse:
    """allauth's "enter a code again", limited the same way."""
    return _answer(request, mfa_views.reauthenticate(request))
