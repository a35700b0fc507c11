"""Every account's name is held against look-alikes, however the account is made.

Sign-up checks in its form; createsuperuser, the admin's user pages and the shell save the
user model directly, so the check and the skeletons ride on the user's own saves. A name that
looks like another account's is refused before anything is written (createsuperuser shows
the message; the admin's forms check first and say it by the field); the profile with the
name's skeletons is made, or kept up to date on a rename, right after the save.
"""

from __future__ import annotations

import time
from urllib.parse import unquote

from allauth.account.signals import password_reset, user_signed_up
from allauth.mfa.models import Authenticator
from allauth.mfa.signals import authenticator_added
from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.core.exceptions import ValidationError
from django.core.signals import request_finished
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver
from django.utils import timezone, translation

from .middleware import SESSION_FACTOR_ADDED, SESSION_SIGNED_IN_AT, SESSION_TIME_ZONE
from .models import Profile, time_zone_names
from .signin import username_key


def _names_change(raw: bool, update_fields) -> bool:
    # Fixtures load as they are; a save of other fields (last_login) leaves the name alone.
    return not raw and (update_fields is None or "username" in update_fields)


def lookalike_error(user_model) -> ValidationError:
    message = user_model._meta.get_field(user_model.USERNAME_FIELD).error_messages["unique"]
    return ValidationError(message, code="unique")


@receiver(pre_save, sender=settings.AUTH_USER_MODEL)
def refuse_lookalike_username(sender, instance, raw, update_fields, **kwargs) -> None:
    if not _names_change(raw, update_fields):
        return
    username = instance.get_username()
    unchanged = sender._default_manager.filter(pk=instance.pk, **{sender.USERNAME_FIELD: username})
    if instance.pk is not None and unchanged.exists():
        return
    if Profile.objects.looking_like(username).exclude(user_id=instance.pk).exists():
        raise lookalike_error(sender)


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def keep_username_skeletons(sender, instance, created, raw, update_fields, **kwargs) -> None:
    if not _names_change(raw, update_fields):
        return
    profile = None if created else Profile.objects.filter(user=instance).first()
    if profile is None:
        Profile.for_user(instance)
    else:
        profile.keep_skeletons()


@receiver(user_logged_in)
def time_zone_at_sign_in(sender, request, user, **kwargs) -> None:
    """At a sign-in (the first after sign-up, however the sign-up form is made), a profile
    without a time zone takes the browser's, from the `tz` cookie static/js/daleel.js sets;
    the session then keeps the learner's zone for accounts.middleware.learner_time_zone."""
    profile = Profile.for_user(user)
    if request is None:
        return
    if not profile.time_zone:
        name = unquote(request.COOKIES.get("tz", ""))
        if name in time_zone_names():
            profile.time_zone = name
            profile.save(update_fields=["time_zone"])
    if hasattr(request, "session"):
        request.session[SESSION_TIME_ZONE] = profile.time_zone
        # For enrolling a second factor without a password to ask again (accounts.middleware).
        request.session[SESSION_SIGNED_IN_AT] = time.time()


@receiver(request_finished)
def time_zone_after_the_response(sender, **kwargs) -> None:
    """The learner's time zone ends with the response (a streamed CSV is written in it)."""
    timezone.deactivate()


@receiver(password_reset)
def lift_lockouts_on_reset(sender, request, user, **kwargs) -> None:
    """A new password set through the mail also lifts the account's sign-in lockouts: whoever
    reads the learner's mail could take the account anyway, and the learner locked out by their
    own forgotten password gets in at once."""
    axes_reset(username=username_key(None, {"username": user.get_username()}))


@receiver(authenticator_added)
def factor_added_in_this_session(sender, request, user, authenticator, **kwargs) -> None:
    """A second factor set up in this session (its code or passkey proven, after a recent
    sign-in) counts as passed here: staff go on to the admin without entering it again."""
    proven = authenticator.type in {Authenticator.Type.TOTP, Authenticator.Type.WEBAUTHN}
    if proven and request is not None and hasattr(request, "session"):
        request.session[SESSION_FACTOR_ADDED] = user.pk


@receiver(user_signed_up)
def language_at_sign_up(sender, request, user, **kwargs) -> None:
    """The language of the sign-up page becomes the learner's: signed up on /ar/, their
    reminders, verification and reset mails are Arabic, wherever a later request comes from."""
    language = translation.get_language()
    profile = Profile.for_user(user)
    if not profile.language and language in dict(settings.LANGUAGES):
        profile.language = language
        profile.save(update_fields=["language"])
