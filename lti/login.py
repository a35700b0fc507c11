"""The OIDC login, kept apart from every browser session.

A platform starts a launch by sending the browser to /lti/login/ (third-party initiated login),
often inside its frame, and the browser may be signed in to Daleel already. So the login
writes nothing into whatever session the browser has, and makes none:

1. /lti/login/ checks that the platform is registered (and limits how often one client address
   may start logins, LTI_LOGIN_RATE_PER_CLIENT), signs the platform's login-initiation
   parameters into the address of step 2, and sets a test cookie.
2. /lti/login/continue/ sees whether the test cookie came back. If it did, our cookies work
   where the login runs: it sends the browser to the platform with a new state (pylti1p3's
   cookie) and nonce (a PendingLogin row, keyed by the state). If it did not (the browser
   blocks third-party cookies in the frame, and partitioned ones too), it shows a page, which
   the platform may frame, with a link that opens step 2 in a window of its own, where our
   cookies are first-party: the platform's parameters are used for the first time there, so a
   platform that takes its `lti_message_hint` once still takes it. It is limited like
   step 1 (its own count), and its address goes to the platform once: a replay of it within
   its five minutes is refused (a UsedLaunchValue row for its check value), making no second
   PendingLogin.

Every cookie of the login is third-party (SameSite=None; Secure) and partitioned (CHIPS):
lti.middleware writes them so.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from accounts.client_ip import client_key
from accounts.limits import hit, limited

from . import tool
from .models import Registration
from .tool import LaunchRefused
from .views import refused, site_origin, tool_urls

CHECK_COOKIE = "lti1p3-check"
LOGIN_SECONDS = 5 * 60
SALT = "lti.login"
LOGIN_PARAMS = (
    "iss",
    "login_hint",
    "target_link_uri",
    "lti_message_hint",
    "client_id",
    "lti_deployment_id",
)


def registration_for(params: dict[str, Any]) -> Registration | None:
    """The one active registration the parameters name (an issuer with several registrations
    needs the client id)."""
    registrations = Registration.objects.filter(issuer=params.get("iss", ""), is_active=True)
    if params.get("client_id"):
        registrations = registrations.filter(client_id=params["client_id"])
    found = list(registrations[:2])
    return found[0] if len(found) == 1 else None


def _no_registration(request: HttpRequest, params: dict[str, Any]) -> HttpResponse:
    """400 for a login whose parameters name no one registration: an unknown issuer, or one
    registered several times whose login does not say which (never one of them at random)."""
    issuer = Registration.objects.filter(issuer=params.get("iss", ""), is_active=True)
    if not params.get("client_id") and issuer.count() > 1:
        return refused(
            request,
            "This issuer has several registrations with Daleel and its login names none of them "
            "(no client_id).",
            status=400,
        )
    return refused(request, "Could not find registration details for this issuer.", status=400)


def _limited(request: HttpRequest, group: str) -> HttpResponse | None:
    """429 once this client has made LTI_LOGIN_RATE_PER_CLIENT requests of this step."""
    key = client_key(request) or "unknown"
    if wait := hit(group=group, key=key, rate=settings.LTI_LOGIN_RATE_PER_CLIENT):
        return limited(
            request,
            wait=wait,
            reason=_("Many launches were started from here in a short time."),
            back_url=reverse("quizzes:catalog"),
            back_label=_("Back to quizzes"),
        )
    return None


@csrf_exempt
@never_cache
@require_http_methods(["GET", "POST"])
def oidc_login(request: HttpRequest) -> HttpResponse:
    """Step 1: the platform's login initiation; on to step 2 with a test cookie."""
    if response := _limited(request, "lti-login"):
        return response
    params = request.POST if request.method == "POST" else request.GET
    kept = {key: str(params[key])[:2000] for key in LOGIN_PARAMS if params.get(key)}
    if registration_for(kept) is None:
        return _no_registration(request, kept)
    if not kept.get("login_hint"):
        return refused(request, "The login names no user (login_hint).", status=400)
    check = secrets.token_urlsafe(16)
    token = signing.dumps({"params": kept, "check": check}, salt=SALT, compress=True)
    response = redirect(reverse("lti:login_continue") + "?" + urlencode({"t": token}))
    response.set_cookie(
        CHECK_COOKIE, check, max_age=LOGIN_SECONDS, httponly=True, secure=True, samesite="None"
    )
    return response


@never_cache
@require_GET
def oidc_login_continue(request: HttpRequest) -> HttpResponse:
    """Step 2: to the platform's authorization endpoint, where our cookies work; else the page
    that opens this step in a window of its own. Limited like step 1, and its address leads
    to the platform once: a replay makes no second login (nor a second PendingLogin row)."""
    if response := _limited(request, "lti-login-continue"):
        return response
    try:
        data = signing.loads(request.GET.get("t", ""), salt=SALT, max_age=LOGIN_SECONDS)
        kept, check = dict(data["params"]), str(data["check"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return refused(
            request, "The launch expired or was changed on its way (login token).", status=400
        )
    registration = registration_for(kept)
    if registration is None:
        return _no_registration(request, kept)
    in_new_window = request.GET.get("window") == "new"
    if not in_new_window and request.COOKIES.get(CHECK_COOKIE) != check:
        again = request.path + "?" + urlencode({"t": request.GET["t"], "window": "new"})
        return refused(
            request,
            "The browser did not send back Daleel's cookie (third-party cookies blocked).",
            status=403,
            new_window_url=again,
            frame_origins=registration.origins,
        )
    if not tool.use_once(f"login:{check}", timezone.now() + timedelta(seconds=LOGIN_SECONDS)):
        return refused(
            request,
            "This launch's login was used already (replayed).",
            status=400,
            frame_origins=registration.origins,
        )
    urls = tool_urls(site_origin(request))
    target = kept.get("target_link_uri", "")
    redirect_uri = urls["deep-linking"] if target == urls["deep-linking"] else urls["launch"]
    try:
        response = tool.oidc_login(request, redirect_uri, params=kept)
    except LaunchRefused as error:
        return refused(request, error.reason, status=400)
    response.delete_cookie(CHECK_COOKIE, samesite="None")
    return response
