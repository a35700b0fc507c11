"""Browsers that have signed in to an account before ("device cookies", as OWASP recommends
against password spraying without locking out those who share an address).

One address may fail SIGN_IN_FAILURE_RATE_PER_CLIENT sign-ins across all usernames; past it,
sign-in from there answers 429 before any password is checked. Behind a school's NAT that
address is the whole class's, and one student spraying it would lock the class out. So a
browser that has signed in to an account carries a signed cookie that names the account (by a
keyed hash, not its name) with a random id of its own; a sign-in to that account from that
browser counts its failures against the id, AXES_FAILURE_LIMIT in AXES_COOLOFF_MINUTES, not
against the address: the address's limit never stops it, and its own failures never spend the
address's. A browser past its own failures is counted against the address again.

A sprayer has no such cookie for the accounts it tries, so spraying stays bounded by the
address's limit; a stolen cookie gives its thief the account's own few tries, no more.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.core import signing
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.utils.crypto import salted_hmac

COOKIE = "daleel_devices"
SALT = "accounts.devices"
MAX_AGE = 365 * 24 * 60 * 60
ACCOUNTS_PER_BROWSER = 10
# Set on the request by a sign-in: the account's key, for `remember`.
SIGNED_IN = "device_signed_in"


def account_key(username: str) -> str:
    """The account as the cookie names it: a keyed hash of its case-folded username."""
    digest = salted_hmac(SALT, username.strip().casefold(), algorithm="sha256")
    return digest.hexdigest()[:24]


def _known(request: HttpRequest) -> dict[str, str]:
    try:
        pairs = signing.loads(request.COOKIES.get(COOKIE, ""), salt=SALT, max_age=MAX_AGE)
        return {str(account): str(device) for account, device in pairs}
    except (signing.BadSignature, TypeError, ValueError):
        return {}


def device_of(request: HttpRequest, username: str) -> str | None:
    """This browser's id for `username`'s account if it has signed in to it before."""
    return _known(request).get(account_key(username)) if username else None


@receiver(user_logged_in)
def note_sign_in(sender, request=None, user=None, **kwargs) -> None:
    if request is not None and user is not None:
        setattr(request, SIGNED_IN, account_key(user.get_username()))


def remember(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """After a sign-in (a password, then a second factor if the account has one): this browser
    is known to the account from now on."""
    account = getattr(request, SIGNED_IN, None)
    if account is None:
        return response
    known = _known(request)
    device = known.pop(account, None) or secrets.token_urlsafe(16)
    known[account] = device  # the most recent last: the oldest go first
    pairs = list(known.items())[-ACCOUNTS_PER_BROWSER:]
    response.set_cookie(
        COOKIE,
        signing.dumps(pairs, salt=SALT, compress=True),
        max_age=MAX_AGE,
        httponly=True,
        secure=settings.SESSION_COOKIE_SECURE,
        samesite="Lax",
    )
    return response
