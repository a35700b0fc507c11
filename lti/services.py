"""What a validated launch does in Daleel: the learner's account, their rights, the quiz it
opens, where its grade goes."""

from __future__ import annotations

import logging
import re
import secrets
import unicodedata
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import Resolver404, resolve
from django.utils import timezone

from accounts.models import Profile
from quizzes.models import Quiz

from .models import GradeLink, LtiIdentity, Registration, sub_digest

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
DL_SETTINGS_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
INSTRUCTORS = "Instructors"
USERNAME_MAX = 150
URL_MAX = GradeLink._meta.get_field("lineitem_url").max_length or 1000


def _username_base(body: dict[str, Any]) -> str:
    for candidate in (
        body.get("preferred_username"),
        (body.get("email") or "").split("@")[0],
        body.get("given_name"),
        body.get("name"),
    ):
        if candidate:
            text = unicodedata.normalize("NFKC", str(candidate)).strip()
            # Django's username characters: letters, digits and @.+-_ (any script).
            text = re.sub(r"[^\w.@+-]+", "-", text).strip("-.")
            if text:
                return text[:40]
    return "learner"


def _unique_username(base: str) -> str:
    """`base`, or `base-2`, … : the first that neither exists nor looks like an existing
    account (accounts.usernames, through Profile.looking_like)."""
    user_model = get_user_model()
    for n in range(1, 50):
        name = base if n == 1 else f"{base}-{n}"
        if n > 10:
            name = f"{base}-{secrets.token_hex(3)}"
        taken = user_model._default_manager.filter(username__iexact=name).exists()
        if not taken and not Profile.objects.looking_like(name).exists():
            return name
    return f"lti-{secrets.token_hex(8)}"


def _new_user(body: dict[str, Any]) -> User:
    user_model = get_user_model()
    base = _username_base(body)
    for _attempt in range(5):
        username = _unique_username(base)
        try:
            with transaction.atomic():
                # No password: an unusable one, so the account signs in only by launches.
                return user_model._default_manager.create_user(
                    username=username,
                    password=None,
                    email=str(body.get("email") or "")[:254],
                    first_name=str(body.get("given_name") or "")[:150],
                    last_name=str(body.get("family_name") or "")[:150],
                )
        except (IntegrityError, ValidationError):
            # A look-alike made meanwhile (accounts.signals refuses it), or an email
            # another account holds: try again without the email if that was it.
            body = {**body, "email": ""}
    raise IntegrityError("No free username for this learner.")


def user_for_launch(*, registration: Registration, body: dict[str, Any]) -> User | None:
    """The Daleel user tied to (issuer, sub), made on their first launch, without a password."""
    sub = str(body.get("sub") or "")
    if not sub:
        return None
    # Any length: the identity is keyed by the sub's digest and keeps the sub itself.
    identity = (
        LtiIdentity.objects.select_related("user")
        .filter(issuer=registration.issuer, sub_digest=sub_digest(sub))
        .first()
    )
    if identity is not None:
        return identity.user
    with transaction.atomic():
        user = _new_user(body)
        try:
            with transaction.atomic():
                LtiIdentity.objects.create(issuer=registration.issuer, sub=sub, user=user)
        except IntegrityError:  # the same learner's second tab won
            user.delete()
            return LtiIdentity.objects.get(
                issuer=registration.issuer, sub_digest=sub_digest(sub)
            ).user
    return user


def grant_roles(*, user: User, registration: Registration, is_instructor: bool) -> None:
    """Platform instructors and administrators join the Instructors group when the
    registration allows it; nothing in a claim ever takes rights away or makes an admin."""
    if not (is_instructor and registration.grants_instructor):
        return
    group = Group.objects.filter(name=INSTRUCTORS).first()
    if group is None:
        return
    user.groups.add(group)
    if not user.is_staff:
        user.is_staff = True
        user.save(update_fields=["is_staff"])


def quiz_for_launch(body: dict[str, Any]) -> Quiz | None:
    """The published quiz the launch names: its custom parameter `quiz` (a slug), or a
    `target_link_uri` that is a quiz's page."""
    custom = body.get(CLAIM + "custom") or {}
    slug = custom.get("quiz") if isinstance(custom, dict) else None
    if not slug:
        path = urlsplit(str(body.get(CLAIM + "target_link_uri") or "")).path
        try:
            match = resolve(path)
        except Resolver404:
            match = None
        if match is not None and match.view_name == "quizzes:detail":
            slug = match.kwargs.get("slug")
    if not slug:
        return None
    quiz: Quiz | None = Quiz.objects.published().filter(slug=str(slug)).first()
    return quiz


def language_for_launch(body: dict[str, Any]) -> str | None:
    locale = str(body.get("locale") or "").lower()
    for code in ("ar", "en"):
        if locale == code or locale.startswith(code + "-") or locale.startswith(code + "_"):
            return code
    return None


def _claim_dict(body: dict[str, Any], name: str) -> dict[str, Any]:
    value = body.get(name)
    return value if isinstance(value, dict) else {}


def foreign_addresses(*, registration: Registration, body: dict[str, Any]) -> str | None:
    """Why the launch is refused when it names an address of the platform's (the line items
    scores go to, where the learner or the picked quizzes return) that is not at the
    registration's origins; None when every one is. The platform's bearer token and the
    learner follow these addresses, so they must be the platform's."""
    ags = _claim_dict(body, AGS_CLAIM)
    named = {
        "line item": ags.get("lineitem"),
        "line items": ags.get("lineitems"),
        "return": _claim_dict(body, CLAIM + "launch_presentation").get("return_url"),
        "deep-linking return": _claim_dict(body, DL_SETTINGS_CLAIM).get("deep_link_return_url"),
    }
    for what, url in named.items():
        if url is not None and len(str(url)) > URL_MAX:
            return f"The launch's {what} address is longer than Daleel keeps."
        if url is not None and not registration.serves(url):
            # The address itself goes to the log, not the reason (whose words are matched).
            logger.info("LTI launch names a foreign %s address: %.300s", what, url)
            return f"The launch's {what} address is not at the platform's registered origins."
    return None


def grade_link_record(
    *, user: User, quiz: Quiz, registration: Registration, body: dict[str, Any], is_instructor: bool
) -> GradeLink | None:
    """Remember the line item of this launch, where the learner's score goes (an
    instructor's only where the registration asks: lti.grades)."""
    ags = body.get(AGS_CLAIM) or {}
    lineitem = ags.get("lineitem") if isinstance(ags, dict) else None
    scopes = ags.get("scope") or [] if isinstance(ags, dict) else []
    if not lineitem or SCORE_SCOPE not in scopes:
        return None
    link, _created = GradeLink.objects.update_or_create(
        user=user,
        quiz=quiz,
        lineitem_url=lineitem,
        defaults={
            "registration": registration,
            "deployment_id": str(body.get(CLAIM + "deployment_id") or ""),
            "sub": str(body["sub"]),
            "for_instructor": is_instructor,
            "scopes": scopes,
            "updated_at": timezone.now(),
        },
    )
    return link
