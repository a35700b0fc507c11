"""Daleel's hooks into django-allauth (ACCOUNT_ADAPTER, MFA_ADAPTER).

- Mail is queued with what it needs and written by the worker, in the learner's language
  (`accounts.mail.deliver_template`): a request that mails answers as fast as one that does
  not, so a reset or a sign-up for a known address takes as long as for an unknown one.
- An address is used only once it is verified by link. A taken address (sign-up, email change)
  is answered as a free one; its owner is mailed instead of a verification link, and it is
  never verified for the second account (the database keeps addresses unique).
- Mail to one address is limited (PASSWORD_RESET_RATE_PER_EMAIL): past it, no more mail goes,
  and the page answers the same, so that the limit says nothing either.
- Usernames are held against look-alikes of other accounts' (accounts.usernames).
- Sign-in switches to the learner's preferred language.
"""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.models import EmailAddress, EmailConfirmationHMAC
from allauth.mfa.adapter import DefaultMFAAdapter
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Model
from django.urls import translate_url
from django.utils import translation

from .client_ip import client_ip
from .limits import hit
from .mail import send_template_later
from .models import Profile
from .signals import lookalike_error

# Mail anyone can make the site send to any address, by typing it into a form.
ASKED_FOR_MAIL = {
    "account/email/password_reset_key",
    "account/email/password_reset_unverified",
    "account/email/unknown_account",
    "account/email/account_already_exists",
    "account/email/email_confirmation",
    "account/email/email_confirmation_signup",
}


def address_taken(email: str, *, user=None) -> bool:
    """Whether another account holds `email` (as its address, or verified)."""
    users = get_user_model()._default_manager.filter(email__iexact=email)
    addresses = EmailAddress.objects.filter(email__iexact=email, verified=True)
    if user is not None and user.pk is not None:
        users = users.exclude(pk=user.pk)
        addresses = addresses.exclude(user_id=user.pk)
    return users.exists() or addresses.exists()


class AccountAdapter(DefaultAccountAdapter):
    def send_mail(self, template_prefix: str, email: str, context: dict) -> None:
        """Queue the mail to be written and sent by the worker (accounts.mail.deliver_template):
        the request only counts it and queues it, the same work for every address."""
        if template_prefix in ASKED_FOR_MAIL and hit(
            group="mail-to",
            key=email.strip().casefold(),
            rate=settings.PASSWORD_RESET_RATE_PER_EMAIL,
        ):
            return
        user = context.get("user")
        fields = {
            name: value
            for name, value in context.items()
            if isinstance(value, str | int | float | bool) and not isinstance(value, Model)
        }
        send_template_later(
            template_prefix=template_prefix,
            to=email,
            context=fields,
            user_pk=getattr(user, "pk", None),
            language=translation.get_language(),
            host=self.request.get_host() if self.request else "",
        )

    def send_notification_mail(self, template_prefix, user, context=None, email=None) -> None:
        # Our notices greet the learner by name, in their language.
        super().send_notification_mail(
            template_prefix, user, {"user": user, **(context or {})}, email
        )

    def send_confirmation_mail(self, request, emailconfirmation, signup: bool) -> None:
        address = emailconfirmation.email_address
        if address_taken(address.email, user=address.user):
            # Another account has this address: tell its owner, send nobody a link.
            self.send_account_already_exists_mail(address.email)
            return
        super().send_confirmation_mail(request, emailconfirmation, signup)

    def confirm_email(self, request, email_address) -> bool:
        if address_taken(email_address.email, user=email_address.user):
            return False
        return super().confirm_email(request, email_address)

    def send_password_reset_mail(self, user, email: str, context: dict[str, Any]) -> None:
        """A reset link only to a verified address; an unverified one gets a link that
        verifies it (then the learner asks again)."""
        address = EmailAddress.objects.filter(user=user, email__iexact=email).first()
        if address is not None and address.verified:
            super().send_password_reset_mail(user, email, context)
            return
        if address is None or address_taken(email, user=user):
            return
        url = self.get_email_confirmation_url(self.request, EmailConfirmationHMAC(address))
        self.send_mail(
            "account/email/password_reset_unverified",
            email,
            {"user": user, "activate_url": url},
        )

    def clean_username(self, username: str, shallow: bool = False) -> str:
        # Beyond case (allauth's check): a name that looks like another is taken too, said
        # first (a look-alike with marks such as harakat is taken before it is malformed).
        if not shallow and Profile.objects.looking_like(username).exists():
            raise lookalike_error(get_user_model())
        return super().clean_username(username, shallow=shallow)

    def is_safe_url(self, url: str) -> bool:
        # A `next` such as "http://[" is not a URL at all: not safe, and not a 500.
        try:
            return super().is_safe_url(url)
        except ValueError:
            return False

    def get_client_ip(self, request) -> str:
        # The client behind our trusted proxies (TRUSTED_PROXIES), as axes and limits see it.
        return client_ip(request) or "0.0.0.0"  # noqa: S104 — a key, not a bind address

    def post_login(self, request, user, **kwargs):
        response = super().post_login(request, user, **kwargs)
        language = Profile.for_user(user).language
        if not language or not hasattr(response, "url"):
            return response
        response["Location"] = translate_url(response.url, language)
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            language,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            secure=settings.LANGUAGE_COOKIE_SECURE,
            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
        return response


class MFAAdapter(DefaultMFAAdapter):
    def get_totp_issuer(self) -> str:
        return settings.MFA_TOTP_ISSUER
