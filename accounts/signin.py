"""Signing in by password, limited so that the limits hold.

- django-axes counts failures under the username as sign-in matches it: allauth's backend
  finds `Alice` for `alice` (case-insensitively), so axes keys on the case-folded name
  (AXES_USERNAME_CALLABLE); another spelling is the same count, not a fresh one.
- One client address may fail SIGN_IN_FAILURE_RATE_PER_CLIENT times across all usernames
  (password spraying); past it, the sign-in page answers 429 before any password is hashed.
- One authentication backend checks the password (allauth's; settings), so a failed sign-in
  hashes it once.
"""

from __future__ import annotations

from allauth.account import views as allauth_views
from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from .client_ip import client_ip
from .limits import hit, limited, reached

GROUP = "sign-in-failures-client"


def username_key(request: HttpRequest | None, credentials: dict | None) -> str:
    """AXES_USERNAME_CALLABLE: the username axes counts failures under, case-folded as sign-in
    matches it (from the credentials a backend was given, or the sign-in form's `login`)."""
    username = (credentials or {}).get("username")
    if username is None and request is not None and request.method == "POST":
        username = request.POST.get("login")
    return str(username or "").strip().casefold()


def _client(request: HttpRequest | None) -> str | None:
    return client_ip(request) if request is not None else None


@receiver(user_login_failed)
def count_failure_per_client(sender, credentials=None, request=None, **kwargs) -> None:
    """Every failed sign-in (a wrong password here or on a page that asks for it again) counts
    against the client's address, whichever username it named."""
    if address := _client(request):
        hit(group=GROUP, key=address, rate=settings.SIGN_IN_FAILURE_RATE_PER_CLIENT)


@require_http_methods(["GET", "POST"])
def login(request: HttpRequest) -> HttpResponse:
    """allauth's sign-in, refused (429) while this client address is past its failures."""
    address = _client(request)
    rate = settings.SIGN_IN_FAILURE_RATE_PER_CLIENT
    if (
        request.method == "POST"
        and address
        and (wait := reached(group=GROUP, key=address, rate=rate))
    ):
        return limited(
            request,
            wait=wait,
            reason=_("Many sign-ins failed from here in a short time, whichever the account."),
            back_url=reverse("accounts:login"),
            back_label=_("Back to sign in"),
        )
    return allauth_views.login(request)
