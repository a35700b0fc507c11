"""Mail to learners about their account, and the console mail backend of `make run`, which
prints mail as people read it.

Every mail is written in the request (its language and links are the request's) and sent by
the `deliver` task (Django's tasks framework, `TASKS` in config/settings.py): the worker sends
it, so a request that mails answers as fast as one that does not, and a mail server that is
slow or down never holds a page up."""

from __future__ import annotations

import email.policy
import logging
from email.utils import parseaddr

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.core.mail.backends import console
from django.tasks import task
from django.template import TemplateDoesNotExist
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext

logger = logging.getLogger(__name__)


def sender() -> str:
    """Who a mail is from, in the active language: DEFAULT_FROM_EMAIL, its name «دليل» in an
    Arabic mail when it is the product's own ("Daleel", the default); an operator's own name
    is kept as written."""
    name, address = parseaddr(settings.DEFAULT_FROM_EMAIL)
    if name != "Daleel" or not address:
        return settings.DEFAULT_FROM_EMAIL
    return f"{gettext('Daleel')} <{address}>"


@task
def deliver(
    *,
    subject: str,
    body: str,
    to: list[str],
    html: str | None = None,
    headers: dict[str, str] | None = None,
    from_email: str | None = None,
) -> None:
    """Send one mail, plain text with an optional HTML alternative (the worker runs it; a
    failure is the task's, logged there)."""
    _send(subject=subject, body=body, to=to, html=html, headers=headers, from_email=from_email)


def _send(
    *,
    subject: str,
    body: str,
    to: list[str],
    html: str | None,
    headers: dict[str, str] | None,
    from_email: str | None = None,
) -> None:
    message = EmailMultiAlternatives(
        subject, body, from_email=from_email, to=to, headers=headers or {}
    )
    if html is not None:
        message.attach_alternative(html, "text/html")
    message.send()


@task
def deliver_template(
    *,
    template_prefix: str,
    to: str,
    context: dict,
    user_pk: int | None,
    language: str,
    host: str,
) -> None:
    """Write one of allauth's mails (`<prefix>_subject.txt`, `<prefix>_message.txt`, and
    `<prefix>_message.html` if there is one) in the learner's language, and send it. Links
    the request made in its own language are turned into the learner's."""
    from django.contrib.auth import get_user_model
    from django.urls import translate_url

    from .models import Profile

    user = get_user_model()._default_manager.filter(pk=user_pk).first() if user_pk else None
    learner_language = (Profile.for_user(user).language if user else "") or language
    # The links were made in the request's language: under it they resolve, to be made again.
    with translation.override(language):
        links = {
            name: translate_url(value, learner_language)
            for name, value in context.items()
            if name.endswith("_url") and isinstance(value, str)
        }
    with translation.override(learner_language):
        data = {
            **context,
            **links,
            "user": user,
            "email": to,
            "current_site": {"name": "Daleel", "domain": host},
        }
        subject = " ".join(render_to_string(f"{template_prefix}_subject.txt", data).split())
        body = render_to_string(f"{template_prefix}_message.txt", data).strip()
        try:
            html = render_to_string(f"{template_prefix}_message.html", data)
        except TemplateDoesNotExist:
            html = None
        from_email = sender()
    _send(subject=subject, body=body, to=[to], html=html, headers=None, from_email=from_email)


def send_template_later(**mail) -> None:
    """Queue a mail for `deliver_template`; as `send_later`, a queue that cannot take it loses
    this mail, logged, and fails nothing else."""
    enqueue_or_log(deliver_template, **mail)


def send_later(
    *,
    subject: str,
    body: str,
    to: list[str],
    html: str | None = None,
    headers: dict[str, str] | None = None,
    language: str | None = None,
) -> None:
    """Queue a mail for the worker, from the product's name in `language` (the active one's
    by default: sender()). A queue that cannot take it (its database is down) loses this mail,
    logged, and fails nothing else: the page that sent it still answers."""
    with translation.override(language or translation.get_language()):
        from_email = sender()
    enqueue_or_log(
        deliver,
        subject=subject,
        body=body,
        to=to,
        html=html,
        headers=headers,
        from_email=from_email,
    )


def enqueue_or_log(task, **mail) -> None:
    """Queue `task`; a queue that cannot take it loses it, logged, and fails nothing else."""
    try:
        task.enqueue(**mail)
    except Exception:  # any backend's error: the mail is lost, the request is not
        logger.warning("Could not queue a mail (%s)", task.name, exc_info=True)


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
