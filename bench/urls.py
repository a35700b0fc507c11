"""The site's URLs, plus `/bench/signed-in`: the floor of a signed-in request.

Every learner view needs to know its learner, so none can be cheaper than this view: the
whole middleware of the site, the session (from Redis) and the user (one statement, as
Django's authentication reads it), and nothing of the view's own. The benchmark measures it
beside /healthz to show how much of a step's cost is the learner's identity and how much the
step's own work. Only bench/settings.py routes here; the site has no such URL.
"""

from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST, require_safe

from config.urls import handler400, handler403, handler404, handler500  # noqa: F401
from config.urls import urlpatterns as site_urlpatterns
from quizzes.attempts import attempt_of_learner, step_submit
from quizzes.catalog import catalog_listing, catalog_query, catalog_version


@require_safe
def signed_in(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return HttpResponse("sign in first", content_type="text/plain", status=403)
    return HttpResponse(request.user.get_username(), content_type="text/plain")


def _text(body: str, status: int = 200) -> HttpResponse:
    return HttpResponse(body, content_type="text/plain", status=status)


@csrf_exempt  # the rules alone: the site's view checks the token
@require_POST
def answer_rules(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Record a step's `choice` as the step view does, and say only right or wrong."""
    if not request.user.is_authenticated:
        return _text("sign in first", 403)
    try:
        choice_id = int(request.POST.get("choice", ""))
        question_id = int(request.POST.get("question", ""))
    except ValueError:
        return _text("choice and question: numbers", 400)
    state = attempt_of_learner(user=request.user, pk=pk, answering=True, question_id=question_id)
    if state is None:
        return _text("no such attempt", 404)
    outcome = step_submit(state=state, number=number, question_id=question_id, choice_id=choice_id)
    if outcome.answer is None:
        return _text(outcome.step.value, 409)
    return _text("feedback--right" if outcome.answer.is_correct else "feedback--wrong")


@require_safe
def catalog_rules(request: HttpRequest) -> HttpResponse:
    """The catalog's page for the learner, its search and filters read from the query string
    as the site's catalog reads them, and only how many quizzes it lists."""
    version = catalog_version()
    query = catalog_query(request.GET, version=version, signed_in=request.user.is_authenticated)
    listing = catalog_listing(
        user=request.user, version=version, page=request.GET.get("page"), query=query
    )
    return _text(f"{len(listing.cards)} cards")


urlpatterns = [
    path("bench/signed-in", signed_in),
    path("bench/rules/attempts/<int:pk>/questions/<int:number>/", answer_rules),
    path("bench/rules/catalog", catalog_rules),
    *site_urlpatterns,
]
