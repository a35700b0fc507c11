"""Mail to learners about their account, and the console mail backend of `make run`, which
prints mail as people read it."""

from __future__ import annotations

import email.policy
import logging
from typing import TYPE_CHECKING

from django.core.mail import send_mail
from django.core.mail.backends import console
from django.template.loader import render_to_string
from django.utils import translation

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)


def email_changed_notice(*, user: User, old_email: str, language: str) -> None:
    """Tell the old address that the account's email address changed: whoever changed it
    (the learner, or someone at a computer they left signed in) now receives the password
    resets. The new address is not written in it; the mail says what to do if it was not
    the learner. A mail server that fails does not undo the change or fail the page: it is
    logged."""
    with translation.override(language or translation.get_language()):
        context = {"user": user}
        subject = render_to_string("accounts/email/email_changed_subject.txt", context).strip()
        body = render_to_string("accounts/email/email_changed.txt", context)
    try:
        send_mail(subject, body, None, [old_email])
    except Exception:  # any mail backend's error: the change is saved either way
        logger.warning(
            "Could not send the email-change notice to the old address of user %s",
            user.pk,
            exc_info=True,
        )


class ReadableConsoleBackend(console.EmailBackend):
    """Django's console backend, without transfer encodings in the way.

    Django's own prints the message as it would go over SMTP: a reset link longer than 78
    characters comes out quoted-printable, cut by "=" line breaks, and Arabic text as base64.
    Lines of up to 998 characters (SMTP's own limit) in 8-bit UTF-8 print as they are, so
    that the link can be copied from the run command's output.
    """

    policy = email.policy.default.clone(max_line_length=998, utf8=True)

    def write_message(self, message) -> None:
        text = message.message(policy=self.policy).as_bytes().decode("utf-8")
        self.stream.write(f"{text}\n{'-' * 79}\n")
