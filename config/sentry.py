"""Error reports (SENTRY_DSN): sentry-sdk with its Django integration (requests, and the tasks
framework's enqueueing) and its logging integration (an error logged is reported), tagged with
the release (RELEASE), the environment (SENTRY_ENVIRONMENT) and each request's id.

Nothing a learner typed, and no secret, leaves in a report:
- no request body at all (a learner's answers, passwords, second-factor codes, LTI tokens),
  no cookies, no query string's values, and no token in a URL's path (reset, email
  confirmation and unsubscribe links): `scrub`;
- no local variables of a traceback's frames: an answer can sit in any of them, under any
  name, where no list of keys would find it;
- no user but their id, no client address, no SQL parameters (sentry-sdk's personal data
  stays off), no cache keys (its Redis integration is left off: a session's key is in one);
- whatever else has a secret's name (passwords, tokens, keys, codes) is filtered wherever it
  is in the event (sentry-sdk's EventScrubber, with our names added).
Any HTTP endpoint that speaks Sentry's protocol will do (Sentry itself, GlitchTip, Bugsink).
"""

from __future__ import annotations

import logging
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import sentry_sdk
from sentry_sdk.integrations.django import DjangoIntegration
from sentry_sdk.integrations.logging import LoggingIntegration, ignore_logger
from sentry_sdk.scrubber import DEFAULT_DENYLIST, EventScrubber

FILTERED = "[Filtered]"
# Keys whose values never leave, wherever they are in an event, besides sentry-sdk's own
# (passwords, secrets, tokens, sessions, cookies, CSRF): second-factor and recovery codes,
# LTI's signed messages, links' keys, and the fields a learner answers with.
DENYLIST = [
    *DEFAULT_DENYLIST,
    "code",
    "codes",
    "recovery_codes",
    "id_token",
    "jwt",
    "key",
    "signature",
    "nonce",
    "answer",
    "answers",
    "response",
    "choice",
    "choices",
]
# URL parameters that carry secrets: allauth's email confirmation and password reset keys,
# and the unsubscribe token of a reminder mail (quizzes/urls.py).
SECRET_URL_PARAMETERS = {"key", "uidb36", "token"}


def start(*, dsn: str, release: str, environment: str, traces_sample_rate: float) -> None:
    sentry_sdk.init(
        dsn=dsn,
        release=release,
        environment=environment,
        integrations=[
            DjangoIntegration(),
            LoggingIntegration(level=logging.INFO, event_level=logging.ERROR),
        ],
        # Only those, beside sentry-sdk's defaults: its Redis integration would put every
        # cache key in a report's breadcrumbs, and a session's key is in its cache key.
        auto_enabling_integrations=False,
        # Personal data stays off (sentry-sdk's default, its send_default_pii unset): no
        # user's name or address, IP address, cookies or SQL parameters.
        max_request_body_size="never",
        include_local_variables=False,
        event_scrubber=EventScrubber(denylist=DENYLIST, recursive=True),
        before_send=scrub,
        traces_sample_rate=traces_sample_rate,
    )
    # A failed task is reported once, with its task's name and id (config.observe), not also
    # by the lines Django and LOG_FORMAT=json log for it.
    ignore_logger("django.tasks")
    ignore_logger("daleel.tasks")


def _secret_free_path(path: str) -> str:
    from django.urls import Resolver404, resolve
    from django.utils import translation

    language = translation.get_language_from_path(path)
    try:
        with translation.override(language or translation.get_language()):
            match = resolve(path)
    except Resolver404:
        return path
    for name, value in match.kwargs.items():
        if name in SECRET_URL_PARAMETERS and isinstance(value, str) and value:
            path = path.replace(value, FILTERED)
    return path


def scrub(event, hint):
    request = event.get("request")
    if request:
        request.pop("data", None)
        request.pop("cookies", None)
        query = request.get("query_string")
        if query:
            request["query_string"] = urlencode(
                [(key, FILTERED) for key, _value in parse_qsl(query, keep_blank_values=True)]
            )
        url = request.get("url")
        if url:
            parts = urlsplit(url)
            request["url"] = urlunsplit(parts._replace(path=_secret_free_path(parts.path)))
    return event


def tag_request(request, request_id: str) -> None:
    """This request's id on its error reports, and its user's id (only: not their name or
    address) when the request read its session anyway."""
    from config.observe import user_id_of

    scope = sentry_sdk.get_isolation_scope()
    scope.set_tag("request_id", request_id)

    def add_user(event, hint):
        user_id = user_id_of(request)
        if user_id is not None:
            event["user"] = {"id": str(user_id)}
        return event

    scope.add_event_processor(add_user)


def report_task_failure(error: BaseException, *, task: str, task_id: str) -> None:
    with sentry_sdk.new_scope() as scope:
        scope.set_tag("task", task)
        scope.set_tag("task_id", task_id)
        scope.set_tag("request_id", f"task-{task_id}")
        sentry_sdk.capture_exception(error)
