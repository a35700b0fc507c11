"""Daily review reminders: an email at the hour a learner chose (Profile.reminder_hour, in
their time zone) on days when review questions are due, with a link to the review and a
one-click unsubscribe link that works without signing in.

One pass (`reminders_send`; `manage.py send_review_reminders`) looks at every learner who
opted in: once their local hour has reached their reminder hour, the day is theirs to check
once (`Profile.reminded_on`, their local date, claimed by one conditional update, so two
passes never both send): if questions are due, the mail is queued (`accounts.mail`). A day
checked with nothing due sends nothing and is not checked again, so a question that falls due
later that day (a same-day relearning step) does not bring a second-thought mail at night. A
pass that runs late (the worker was down at the hour) still sends once that day.

The `reminders_hourly` task runs a pass and queues itself for the next hour: see
`quizzes.schedule`.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime

from django.conf import settings
from django.core import signing
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from accounts.mail import send_later
from accounts.models import Profile

from .review.badge import review_due_count

logger = logging.getLogger(__name__)

UNSUBSCRIBE_SALT = "quizzes.reminders.unsubscribe"


def _address_tag(address: str) -> str:
    """A short digest of the address a reminder went to: the link names no address, and
    stops working once the learner's address is another."""
    return hashlib.sha256(address.strip().casefold().encode()).hexdigest()[:16]


def unsubscribe_token(profile: Profile) -> str:
    """A signed token of the profile's id and the address the mail goes to (as a digest):
    no name or address in the link."""
    return signing.dumps([profile.pk, _address_tag(profile.user.email)], salt=UNSUBSCRIBE_SALT)


def profile_of_token(token: str) -> Profile | None:
    """The profile an unsubscribe token was made for, or None (tampered, gone, or made for
    an address the learner no longer has)."""
    try:
        value = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    if not (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], int)
        and isinstance(value[1], str)
    ):
        return None
    pk, tag = value
    profile = Profile.objects.select_related("user").filter(pk=pk).first()
    if profile is None or _address_tag(profile.user.email) != tag:
        return None
    return profile


def site_origin() -> str:
    """Where the links of a mail sent without a request point: SITE_ORIGIN; while DEBUG is
    on and it is unset, the development server on its PORT (DEV_SERVER_ORIGIN)."""
    if settings.SITE_ORIGIN:
        return settings.SITE_ORIGIN
    if settings.DEBUG:
        return settings.DEV_SERVER_ORIGIN
    raise RuntimeError("Reminders need SITE_ORIGIN, the site's public origin.")


def _mail(profile: Profile, *, due: int, origin: str) -> None:
    language = profile.language or settings.LANGUAGE_CODE
    with translation.override(language):
        review_url = origin + reverse("quizzes:review")
        unsubscribe_url = origin + reverse(
            "quizzes:reminders_unsubscribe", args=[unsubscribe_token(profile)]
        )
        context = {
            "user": profile.user,
            "due": due,
            "review_url": review_url,
            "unsubscribe_url": unsubscribe_url,
        }
        subject = render_to_string("quizzes/email/reminder_subject.txt", context).strip()
        body = render_to_string("quizzes/email/reminder.txt", context)
        html = render_to_string("quizzes/email/reminder.html", context)
    send_later(
        subject=subject,
        body=body,
        html=html,
        to=[profile.user.email],
        language=language,
        headers={
            # RFC 2369 and RFC 8058: the mail client's own "Unsubscribe", in one click.
            "List-Unsubscribe": f"<{unsubscribe_url}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )


def reminders_send(*, now: datetime | None = None) -> int:
    """One pass: queue today's reminder for every learner whose hour has come, who has not
    been checked today and has questions due. Returns how many were queued."""
    now = now or timezone.now()
    origin = site_origin()
    sent = 0
    learners = Profile.objects.mailable().filter(reminder_hour__isnull=False).order_by("pk")
    for profile in learners.iterator(chunk_size=500):
        try:
            local = now.astimezone(profile.zone)
        except Exception:  # a zone this system no longer knows: the site's
            local = timezone.localtime(now, timezone.get_default_timezone())
        today = local.date()
        if local.hour < profile.reminder_hour or profile.reminded_on == today:
            continue
        claimed = (
            Profile.objects.filter(pk=profile.pk)
            .exclude(reminded_on=today)
            .update(reminded_on=today)
        )
        if not claimed:
            continue  # another pass took this day
        due = review_due_count(user_id=profile.user_id, now=now)
        if due:
            _mail(profile, due=due, origin=origin)
            sent += 1
    return sent
