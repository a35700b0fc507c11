"""The tool's endpoints: OIDC login, launch (and deep-linking launch), JWKS, the quiz picker."""

from __future__ import annotations

import logging
from urllib.parse import parse_qs, urlencode, urlsplit

from django.conf import settings
from django.contrib.auth import login as auth_login
from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
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
from .models import Registration, origins_of
from .tool import LaunchRefused

logger = logging.getLogger(__name__)

# Session keys. ORIGINS marks a browser session that runs inside a platform's frame
# (lti.middleware lets that platform frame it and sends its cookies cross-site).
ORIGINS = "lti_origins"
DEEP_LINK = "lti_deep_link"
LOGIN_PARAMS_SECONDS = 5 * 60

LOGIN_PARAMS = (
    "iss",
    "login_hint",
    "target_link_uri",
    "lti_message_hint",
    "client_id",
    "lti_deployment_id",
)


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
    (
        ("signature", "public key", "decode id_token", "kid"),
        gettext_lazy(
            "The launch's signature does not match the platform's keys: it was not made by your "
            "platform, or the platform's keys changed."
        ),
    ),
    (("expired", "exp)", "iat"), gettext_lazy("The launch expired before it reached Daleel.")),
    (("used already", "nonce"), gettext_lazy("This launch was used already. A launch works once.")),
    (("deployment",), gettext_lazy("This deployment of Daleel is not registered here.")),
    (("audience", "azp", "client id"), gettext_lazy("The launch was meant for another tool.")),
    (("registration", "issuer"), gettext_lazy("This platform is not registered with Daleel.")),
    (
        ("state",),
        gettext_lazy(
            "The launch did not come back to the browser that started it (its state is missing)."
        ),
    ),
    (("instructors",), gettext_lazy("Only instructors may add Daleel's quizzes to a course.")),
]


def reason_message(reason: str):
    lowered = reason.lower()
    for words, message in REASONS:
        if any(word in lowered for word in words):
            return message
    return gettext_lazy("The launch is not valid.")


def refused(request: HttpRequest, reason: str, *, status: int = 403, **extra) -> HttpResponse:
    logger.info("LTI launch refused: %s", reason)
    context = {
        "reason": reason,
        "message": reason_message(reason),
        "refusal_languages": [code for code, _name in settings.LANGUAGES],
        **extra,
    }
    return render(request, "lti/refused.html", context, status=status)


@csrf_exempt
@never_cache
@require_http_methods(["GET", "POST"])
def oidc_login(request: HttpRequest) -> HttpResponse:
    """Third-party initiated login: to the platform's authorization endpoint and back to
    `launch` (or `deep-linking`, when that is the target) with a new state and nonce."""
    params = request.POST if request.method == "POST" else request.GET
    urls = tool_urls(site_origin(request))
    target = params.get("target_link_uri", "")
    redirect_uri = urls["deep-linking"] if target == urls["deep-linking"] else urls["launch"]
    registrations = Registration.objects.filter(issuer=params.get("iss", ""), is_active=True)
    if params.get("client_id"):
        registrations = registrations.filter(client_id=params["client_id"])
    found = list(registrations[:2])
    try:
        response = tool.oidc_login(request, redirect_uri)
    except LaunchRefused as error:
        return refused(request, error.reason, status=400)
    if len(found) == 1:
        request.session[ORIGINS] = found[0].origins
    # Kept for "open in a new window": when the browser withholds our cookies in the frame,
    # the launch starts again from these in a window of its own.
    state = parse_qs(urlsplit(response["Location"]).query).get("state", [""])[0]
    kept = {key: params[key] for key in LOGIN_PARAMS if params.get(key)}
    cache.set(f"lti-login-{state}", kept, LOGIN_PARAMS_SECONDS)
    return response


def _cookies_blocked_response(request: HttpRequest, reason: str) -> HttpResponse | None:
    """The page for a launch that failed because the browser withheld the cookies of the
    login (it blocks third-party cookies): a link that starts the launch again in a window of
    its own. None for any other failure."""
    if settings.SESSION_COOKIE_NAME in request.COOKIES or "state" not in reason.lower():
        return None
    state = request.POST.get("state", "")
    kept = cache.get(f"lti-login-{state}") if state else None
    if not kept:
        return None
    cache.delete(f"lti-login-{state}")
    again = reverse("lti:login") + "?" + urlencode(kept)
    return refused(request, reason, status=403, new_window_url=again)


def _frame_origins(registration: Registration, body: dict) -> list[str]:
    """Who may frame this session: the registration's origins, and the platform's own pages as
    its signed launch names them (Canvas serves courses from a school's host, not its issuer's)."""
    presentation = body.get(services.CLAIM + "launch_presentation") or {}
    platform = body.get(services.CLAIM + "tool_platform") or {}
    deep_linking = (
        body.get("https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings") or {}
    )
    return origins_of(
        [
            *registration.origins,
            presentation.get("return_url") if isinstance(presentation, dict) else None,
            platform.get("url") if isinstance(platform, dict) else None,
            deep_linking.get("deep_link_return_url") if isinstance(deep_linking, dict) else None,
        ]
    )


def _launch(request: HttpRequest) -> HttpResponse:
    try:
        launch = tool.validate_launch(request)
    except LaunchRefused as error:
        blocked = _cookies_blocked_response(request, error.reason)
        return blocked or refused(request, error.reason)
    body = launch.get_launch_data()
    cache.delete(f"lti-login-{request.POST.get('state', '')}")
    registration = launch.tool_conf.registration
    assert registration is not None
    is_instructor = launch.check_teacher_access() or launch.check_staff_access()
    language = services.language_for_launch(body)
    if launch.is_deep_link_launch():
        if not is_instructor:
            return refused(request, "Only instructors may add Daleel's quizzes to a course.")
        request.session[ORIGINS] = _frame_origins(registration, body)
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
        return refused(request, "Daleel handles resource-link and deep-linking launches only.")
    quiz = services.quiz_for_launch(body)
    with transaction.atomic():
        user = services.user_for_launch(registration=registration, body=body)
        if user is None:
            return refused(request, "The launch names no user (sub).")
        services.grant_roles(user=user, registration=registration, is_instructor=is_instructor)
        if quiz is not None:
            services.grade_link_record(user=user, quiz=quiz, registration=registration, body=body)
    auth_login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    request.session[ORIGINS] = _frame_origins(registration, body)
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


def _picker_quizzes(query: str):
    quizzes = Quiz.objects.published().order_by("title")
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
    if request.method == "GET":
        return render(
            request,
            "lti/picker.html",
            {"quizzes": _picker_quizzes(query), "query": query},
        )
    slugs = request.POST.getlist("quizzes")
    picked = list(Quiz.objects.published().filter(slug__in=slugs).order_by("title"))
    if not picked:
        return render(
            request,
            "lti/picker.html",
            {
                "quizzes": _picker_quizzes(query),
                "query": query,
                "error": _("Choose at least one quiz."),
            },
            status=400,
        )
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
