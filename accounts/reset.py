"""A password reset asked for by address: the request only queues `reset_requested`, the same
task with the same arguments' kinds for every address, so its answer (time, queries, page)
says nothing about whether an account holds the address.

The worker then does what allauth's reset does in the request: looks the address up, makes
the reset link (or a verification link for an unverified address, or the "no account" mail)
and queues the mail through our adapter (accounts.adapter), in the request's language and with
links to the request's host."""

from __future__ import annotations

from allauth.account.adapter import get_adapter
from allauth.account.forms import ResetPasswordForm as AllauthResetPasswordForm
from allauth.account.internal.flows.password_reset import request_password_reset
from allauth.account.internal.userkit import filter_users_by_email
from allauth.core.context import request_context
from django.http import HttpRequest
from django.tasks import task
from django.utils import translation

from .mail import enqueue_or_log


class _AskedFrom(HttpRequest):
    """The request that asked, as the worker knows it: its host and scheme, for links."""

    def __init__(self, *, host: str, scheme: str) -> None:
        super().__init__()
        self.META["HTTP_HOST"] = host
        self._asked_scheme = scheme

    def _get_scheme(self) -> str:
        return self._asked_scheme


@task
def reset_requested(*, email: str, language: str, host: str, scheme: str) -> None:
    """allauth's reset for `email` (a reset link to each active account holding it, preferring
    a verified address; else the "no account" mail), run by the worker."""
    request = _AskedFrom(host=host, scheme=scheme)
    users = filter_users_by_email(email, is_active=True, prefer_verified=True, for_login=True)
    with request_context(request), translation.override(language):
        request_password_reset(request, email, users, None)


class ResetPasswordForm(AllauthResetPasswordForm):
    """allauth's reset form, looking nothing up in the request (the worker does)."""

    def clean_email(self) -> str:
        get_adapter().clean_email(self.cleaned_data["email"].lower())
        self.users = []
        return self.cleaned_data["email"]

    def save(self, request: HttpRequest, **kwargs) -> str:
        email = self.cleaned_data["email"]
        enqueue_or_log(
            reset_requested,
            email=email.lower(),
            language=translation.get_language(),
            host=request.get_host(),
            scheme=request.scheme or "http",
        )
        return email
