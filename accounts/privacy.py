"""A learner's rights over their data: a copy of everything held about them, and erasure.

The export is one JSON document made of sections, one function each (`SECTIONS`), written as it
is read (`account_export_json`): a section that is a list may be any iterable, and a long one
(a learner's attempts, their review cards) an iterator reading in chunks, so that the download
streams in bounded memory whatever its size. What a new model holds about a learner is a new
section: write `thing_export(user)` next to the model and add it here.

Erasure follows the database's cascades from the user (attempts and their answers, review cards
and review answers, reports, the profile, email addresses, second factors), then removes what
refers to the learner only by name (django-axes' sign-in records) and ends every session they
have.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from config.downloads import in_pieces
from quizzes.privacy import attempts_export, iso, reports_export, review_cards_export

from .models import Profile
from .signin import username_key

FORMAT = "daleel-account-export"
VERSION = 1


def account_section(user: User) -> dict:
    profile = Profile.for_user(user)
    return {
        "username": user.get_username(),
        "email": user.email,
        "preferred_language": profile.language,
        "time_zone": profile.time_zone,
        "reminder_hour": profile.reminder_hour,
        # Asked how sure with each review answer: true, false, or null (not chosen).
        "review_confidence": profile.review_confidence,
        "last_reminded_on": profile.reminded_on.isoformat() if profile.reminded_on else None,
        "date_joined": iso(user.date_joined),
        "last_login": iso(user.last_login),
    }


def sign_ins_section(user: User) -> list[dict]:
    """Successful sign-ins as django-axes records them (address and browser)."""
    logs = AccessLog.objects.filter(username=user.get_username()).order_by("attempt_time")
    return [
        {
            "at": iso(log.attempt_time),
            "signed_out_at": iso(log.logout_time),
            "ip_address": log.ip_address,
            "user_agent": log.user_agent,
        }
        for log in logs
    ]


def email_addresses_section(user: User) -> list[dict]:
    return [
        {"email": address.email, "verified": address.verified, "primary": address.primary}
        for address in EmailAddress.objects.filter(user=user).order_by("pk")
    ]


def two_factor_section(user: User) -> list[dict]:
    """Which second factors the account has, and when they were added and last used; never
    their secrets."""
    return [
        {
            "type": authenticator.type,
            "created_at": iso(authenticator.created_at),
            "last_used_at": iso(authenticator.last_used_at),
        }
        for authenticator in Authenticator.objects.filter(user=user).order_by("pk")
    ]


SECTIONS: dict[str, Callable[[User], Any]] = {
    "account": account_section,
    "email_addresses": email_addresses_section,
    "two_factor": two_factor_section,
    "sign_ins": sign_ins_section,
    "attempts": attempts_export,
    "review_cards": review_cards_export,
    "question_reports": reports_export,
}


# The download is sent in pieces of about this many characters.
EXPORT_PIECE = 64 * 1024


def account_export(*, user: User) -> dict:
    """Everything held about `user`, as one JSON-ready document (in memory: see
    `account_export_json` for the download)."""
    return json.loads("".join(account_export_json(user=user)))


def account_export_json(*, user: User) -> Iterator[str]:
    """Everything held about `user` as one JSON document (indented), in pieces as it is read.
    Scores and marks are decimals ("3.5"): written as strings, exactly."""
    encoder = DjangoJSONEncoder(ensure_ascii=False, indent=2)

    def value(data: Any, depth: int) -> str:
        return encoder.encode(data).replace("\n", "\n" + "  " * depth)

    def parts() -> Iterator[str]:
        head = {"format": FORMAT, "version": VERSION, "exported_at": timezone.now().isoformat()}
        fields = list(head.items())
        yield "{"
        for index, (name, data) in enumerate(fields):
            yield f"{',' if index else ''}\n  {encoder.encode(name)}: {value(data, 1)}"
        for name, section in SECTIONS.items():
            data = section(user)
            yield f",\n  {encoder.encode(name)}: "
            if isinstance(data, dict | str) or not isinstance(data, Iterable):
                yield value(data, 1)
                continue
            empty = True
            for item in data:
                yield ("[" if empty else ",") + "\n    " + value(item, 2)
                empty = False
            yield "[]" if empty else "\n  ]"
        yield "\n}\n"

    return in_pieces(parts(), EXPORT_PIECE)


def _session_keys(user: User) -> list[str]:
    """Keys of the sessions signed in as `user`.

    Sessions are stored signed, not queryable, so each unexpired one is decoded: a pass over
    the session table, paid only when an account is deleted. (SESSION_ENGINE is cached_db,
    so every session is in the table.)
    """
    user_id = str(user.pk)
    sessions = Session.objects.filter(expire_date__gt=timezone.now())
    return [
        session.session_key
        for session in sessions.iterator(chunk_size=500)
        if session.get_decoded().get("_auth_user_id") == user_id
    ]


def account_delete(*, user: User) -> None:
    """Erase `user` with everything of theirs, and end all their sessions, everywhere."""
    store = import_string(f"{settings.SESSION_ENGINE}.SessionStore")
    username = user.get_username()
    # axes keeps the case-folded name (accounts.signin.username_key); older rows kept it as typed.
    axes_names = {username, username_key(None, {"username": username})}
    keys = _session_keys(user)
    with transaction.atomic():
        for model in (AccessAttempt, AccessFailureLog, AccessLog):
            model.objects.filter(username__in=axes_names).delete()
        user.delete()
    for key in keys:
        # Through the session engine, so that the cache's copy goes with the table's row.
        store(session_key=key).delete()
