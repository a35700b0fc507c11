"""System checks that refuse to run a production site half-configured.

Django runs them before `migrate`, `db_worker` and every other management command, and
deploy/gunicorn.conf.py runs them before gunicorn starts its workers: an error stops each.
With DEBUG on (a laptop, `make run`) nothing here applies but the metrics' protection.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.core import checks

SMTP = "django.core.mail.backends.smtp.EmailBackend"


def register() -> None:
    checks.register(production_links, "daleel")
    checks.register(production_mail, "daleel")
    checks.register(metrics_protected, "daleel")


def production_links(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """Mails sent by the worker (review reminders) link to SITE_ORIGIN: without it they could
    not be written, and with a wrong one every link would lead elsewhere."""
    origin = settings.SITE_ORIGIN
    if not origin:
        if settings.DEBUG:
            return []
        return [
            checks.Error(
                "SITE_ORIGIN is not set.",
                hint="Set SITE_ORIGIN to the site's public origin, e.g. https://quiz.example.org: "
                "reminder mails link to it.",
                id="daleel.E001",
            )
        ]
    parts = urlsplit(origin)
    if parts.scheme not in {"http", "https"} or not parts.netloc or parts.path or parts.query:
        return [
            checks.Error(
                f"SITE_ORIGIN {origin!r} is not an origin.",
                hint="An origin is a scheme and a host, with a port if not the default: "
                "https://quiz.example.org, with no path.",
                id="daleel.E002",
            )
        ]
    return []


def production_mail(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """Without EMAIL_HOST, mail would go to an SMTP server on this machine that is most likely
    not there, and every verification link, password reset and reminder would be lost."""
    mailer = settings.MAILERS["default"]
    if settings.DEBUG or mailer["BACKEND"] != SMTP or mailer["OPTIONS"].get("host"):
        return []
    return [
        checks.Error(
            "EMAIL_HOST is not set: no mail could be sent.",
            hint="Set EMAIL_HOST (and EMAIL_HOST_USER, EMAIL_HOST_PASSWORD) to your SMTP "
            "server, or EMAIL_DISABLED=true to run without mail (no sign-up verification, "
            "password reset or reminder reaches anyone).",
            id="daleel.E003",
        )
    ]


# A token is a password that Prometheus keeps in its configuration: long and random.
METRICS_TOKEN_MIN_LENGTH = 24


def metrics_protected(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """The metrics say how many learners are active and which pages fail: not for anyone."""
    token = settings.METRICS_TOKEN
    if not settings.METRICS_ENABLED:
        return []
    if token and len(token) < METRICS_TOKEN_MIN_LENGTH:
        return [
            checks.Error(
                f"METRICS_TOKEN is shorter than {METRICS_TOKEN_MIN_LENGTH} characters.",
                hint="Make one: python3 -c 'import secrets; print(secrets.token_urlsafe(32))'",
                id="daleel.E005",
            )
        ]
    if token or settings.METRICS_ALLOWED_ADDRESSES:
        return []
    return [
        checks.Error(
            "METRICS_ENABLED is on with neither METRICS_TOKEN nor METRICS_ALLOWED_ADDRESSES.",
            hint="Set METRICS_TOKEN to a long random string (Prometheus sends it as a bearer "
            "token), or METRICS_ALLOWED_ADDRESSES to the Prometheus server's address.",
            id="daleel.E004",
        )
    ]
