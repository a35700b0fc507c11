"""The tool's endpoints: OIDC login, launch (and deep-linking launch), JWKS, the quiz picker."""

from __future__ import annotations

import logging
from importlib import import_module
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import login as auth_login
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods
from pylti1p3.deep_link import DeepLink
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.lineitem import LineItem

from quizzes.models import Quiz
from quizzes.search import search_token, search_words

from . import services, tool
from .models import PendingLogin, Registration
from .tool import LaunchRefused

logger = logging.getLogger(__name__)

# Session keys. ORIGINS marks a browser session that a completed launch created to run inside
# a platform's frame (lti.middleware lets that platform frame it and sends its cookies
# cross-site). No other session ever gets it.
ORIGINS = "lti_origins"
DEEP_LINK = "lti_deep_link"
# On a request: the origins that may frame this one response (a login or launch page of a
# registered platform), without any session (lti.middleware).
FRAME_ORIGINS = "lti_frame_origins"


def _no_view(request: HttpRequest) -> HttpResponse:
    return HttpResponse()


def site_origin(request: HttpRequest | None = None) -> str:
    if settings.SITE_ORIGIN:
        return settings.SITE_ORIGIN
    assert request is not None
    return f"{request.scheme}://{request.get_host()}"


def tool_urls(origin: str) -> dict[str, str]:
    """The tool's own endpoints, absolute, as a platform's administrator enters them."""
    return {
        "login": origin + reverse("lti:login"),
        "launch": origin + reverse("lti:launch"),
        "jwks": origin + reverse("lti:jwks"),
        "deep-linking": origin + reverse("lti:deep_linking"),
    }


# What a refusal's reason means to the learner, by words in the reason (pylti1p3's or ours).
REASONS = [
    # Before "signature": pylti1p3 says "Can't decode id_token: Signature has expired".
    (("expired", "exp)", "iat"), gettext_lazy("The launch expired before it reached Daleel.")),
    (
        ("signature", "public key", "decode id_token", "kid"),
        gettext_lazy(
            "The launch's signature does not match the platform's keys: it was not made by your "
            "platform, or the platform's keys changed."
        ),
    ),
    (("used already", "nonce"), gettext_lazy("This launch was used already. A launch works once.")),
    (("deployment",), gettext_lazy("This deployment of Daleel is not registered here.")),
    (("audience", "azp", "client id"), gettext_lazy("The launch was meant for another tool.")),
    (
        ("several registrations",),
        gettext_lazy(
            "Your platform is registered with Daleel more than once and its launch did not say "
            "which registration it is for. Its administrator should have it send the client ID "
            "with the login."
        ),
    ),
    (("registration", "issuer"), gettext_lazy("This platform is not registered with Daleel.")),
    (
        ("state",),
        gettext_lazy(
            "The launch did not come back to the browser that started it (its state is missing)."
        ),
    ),
    (("instructors",), gettext_lazy("Only instructors may add Daleel's quizzes to a course.")),
    (
        ("registered origins",),
        gettext_lazy(
            "The launch names addresses that are not your platform's (where scores or the "
            "learner would go). Daleel sends nothing there."
        ),
    ),
    (
        ("third-party cookies",),
        gettext_lazy("Your browser keeps Daleel's cookies from the course's page."),
    ),
]


def reason_message(reason: str) -> str | Promise:
    lowered = reason.lower()
    for words, message in REASONS:
        if any(word in lowered for word in words):
            return message
    return gettext_lazy("The launch is not valid.")


def refused(
    request: HttpRequest,
    reason: str,
    *,
    status: int = 403,
    frame_origins: list[str] | None = None,
    **extra: Any,
) -> HttpResponse:
    """The refusal page, in both languages. `frame_origins`: the registered platform's, which
    may show it in their frame (nobody else may)."""
    logger.info("LTI launch refused: %s", reason)
    if frame_origins:
        setattr(request, FRAME_ORIGINS, frame_origins)
    context = {
        "reason": reason,
        "message": reason_message(reason),
        "refusal_languages": [code for code, _name in settings.LANGUAGES],
        **extra,
    }
    return render(request, "lti/refused.html", context, status=status)


def _login_origins(request: HttpRequest) -> list[str] | None:
    """The origins of the platform whose login this launch's state names, if any: its pages
    may frame the refusal."""
    state = request.POST.get("state", "")
    login = PendingLogin.objects.select_related("registration").filter(state=state).first()
    return login.registration.origins if state and login else None


def _refused_launch(request: HttpRequest, reason: str) -> HttpResponse:
    # A login on its way (not launched yet, not forged): its platform may frame the refusal.
    origins = _login_origins(request)
    state_cookie = "lti1p3-" + request.POST.get("state", "")  # pylti1p3's name for it
    if origins and "state not found" in reason.lower() and state_cookie not in request.COOKIES:
        # The browser withheld the login's cookie (it blocks third-party cookies, partitioned
        # ones too): the platform's hint is used up, so say what to do rather than reuse it.
        reason = "The browser did not send back Daleel's cookie (third-party cookies blocked)."
        return refused(request, reason, frame_origins=origins, cookies_blocked=True)
    return refused(request, reason, frame_origins=origins)


def _new_session(request: HttpRequest) -> None:
    """A session of its own for the launch: whatever session the browser sent (a learner
    signed in on the site) is left as it was, and only this one may be framed."""
    request.session = import_module(settings.SESSION_ENGINE).SessionStore()


def _launch(request: HttpRequest) -> HttpResponse:
    try:
        launch = tool.validate_launch(request)
    except LaunchRefused as error:
        return _refused_launch(request, error.reason)
    body = launch.claims()
    registration = launch.tool_conf.registration
    assert registration is not None
    if reason := services.foreign_addresses(registration=registration, body=body):
        return refused(request, reason, frame_origins=registration.origins)
    is_instructor = launch.check_teacher_access() or launch.check_staff_access()
    language = services.language_for_launch(body)
    if launch.is_deep_link_launch():
        if not is_instructor:
            return refused(
                request,
                "Only instructors may add Daleel's quizzes to a course.",
                frame_origins=registration.origins,
            )
        _new_session(request)
        request.session[ORIGINS] = registration.origins
        request.session[DEEP_LINK] = {
            "registration": registration.pk,
            "deployment_id": body[services.CLAIM + "deployment_id"],
            "settings": body["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"],
            # The picker speaks the instructor's LMS language (its URL has no language prefix).
            "language": language,
        }
        with translation.override(language or translation.get_language()):
            return redirect(reverse("lti:deep_linking"))
    if not launch.is_resource_launch():
        return refused(
            request,
            "Daleel handles resource-link and deep-linking launches only.",
            frame_origins=registration.origins,
        )
    quiz = services.quiz_for_launch(body)
    with transaction.atomic():
        user = services.user_for_launch(registration=registration, body=body)
        if user is None:
            return refused(
                request, "The launch names no user (sub).", frame_origins=registration.origins
            )
        services.grant_roles(user=user, registration=registration, is_instructor=is_instructor)
        if quiz is not None:
            services.grade_link_record(
                user=user,
                quiz=quiz,
                registration=registration,
                body=body,
                is_instructor=is_instructor,
            )
    _new_session(request)
    auth_login(request, user, backend=settings.SIGN_IN_BACKEND)
    request.session[ORIGINS] = registration.origins
    with translation.override(language or translation.get_language()):
        if quiz is None:
            return redirect(reverse("quizzes:catalog"))
        return redirect(reverse("quizzes:detail", kwargs={"slug": quiz.slug}))


@csrf_exempt
@never_cache
@require_http_methods(["POST"])
def launch(request: HttpRequest) -> HttpResponse:
    """The platform POSTs the id_token here (resource links and deep linking alike)."""
    return _launch(request)


@require_GET
def jwks(request: HttpRequest) -> JsonResponse:
    response = JsonResponse(tool.jwks())
    response["Cache-Control"] = "public, max-age=300"
    return response


def _picker_quizzes(query: str) -> QuerySet[Quiz]:
    quizzes: QuerySet[Quiz] = Quiz.objects.published().order_by("title")
    if query:
        # The catalog's own search: both languages, Arabic folded, stemmed.
        for word in search_words(query):
            quizzes = quizzes.filter(search_text__contains=search_token(word))
    return quizzes[:100]


@csrf_exempt
@never_cache
@require_http_methods(["GET", "POST"])
def deep_linking(request: HttpRequest) -> HttpResponse:
    """Deep linking: the platform's launch arrives here (an id_token), then the instructor
    picks quizzes (GET to list, POST `quizzes` to return them to the platform)."""
    if request.method == "POST" and "id_token" in request.POST:
        return _launch(request)
    pending = request.session.get(DEEP_LINK) or {}
    with translation.override(pending.get("language") or translation.get_language()):
        return _deep_linking_pick(request)


def _deep_linking_pick(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        # Picking is a form of ours, in a session of ours: CSRF applies (csrf_exempt only
        # lets the platform's id_token in), so it is checked here.
        reason = CsrfViewMiddleware(_no_view).process_view(request, _no_view, (), {})
        if reason is not None:
            return reason
    pending = request.session.get(DEEP_LINK)
    if not pending:
        return refused(
            request,
            "No deep-linking launch is in progress in this browser: start again from your "
            'course\'s "add activity".',
            status=400,
        )
    query = request.GET.get("q", "").strip()[:200]
    # accept_multiple false: the platform takes one item, so one quiz is picked.
    single = pending["settings"].get("accept_multiple") in (False, "false")
    context = {"quizzes": _picker_quizzes(query), "query": query, "single": single}
    if request.method == "GET":
        return render(request, "lti/picker.html", context)
    slugs = request.POST.getlist("quizzes")
    picked = list(Quiz.objects.published().filter(slug__in=slugs).order_by("title"))
    error = None
    if not picked:
        error = _("Choose at least one quiz.")
    elif single and len(picked) > 1:
        error = _("Your course takes one quiz at a time here: choose one.")
    if error:
        return render(request, "lti/picker.html", {**context, "error": error}, status=400)
    registration = Registration.objects.filter(pk=pending["registration"]).first()
    if registration is None:
        return refused(request, "This platform's registration was removed.", status=400)
    origin = site_origin(request)
    resources = []
    for quiz in picked:
        # What every attempt is scored out of: the draw, or the whole quiz when it is smaller.
        count = quiz.questions.count()
        questions = min(quiz.questions_per_attempt or count, count)
        resources.append(
            DeepLinkResource()
            .set_url(origin + reverse("quizzes:detail", kwargs={"slug": quiz.slug}))
            .set_title(quiz.title)
            .set_custom_params({"quiz": quiz.slug})
            .set_lineitem(
                LineItem()
                .set_label(quiz.title)
                .set_score_maximum(max(questions, 1))
                .set_resource_id(quiz.slug)
            )
        )
    deep_link = DeepLink(
        tool.py_registration(registration), pending["deployment_id"], pending["settings"]
    )
    token = deep_link.get_response_jwt(resources)
    return_url = pending["settings"]["deep_link_return_url"]
    del request.session[DEEP_LINK]
    return_origin = urlsplit(return_url)
    # The form goes to the platform: lti.middleware adds its origin to form-action.
    request.lti_form_action = f"{return_origin.scheme}://{return_origin.netloc}"  # type: ignore[attr-defined]
    return render(
        request,
        "lti/deep_link_return.html",
        {"return_url": return_url, "jwt": token, "quizzes": picked},
    )
