"""The site's URLs, plus `/bench/signed-in`: the floor of a signed-in request.

Every learner view needs to know its learner, so none can be cheaper than this view: the
whole middleware of the site, the session (from Redis) and the user (one statement, as
Django's authentication reads it), and nothing of the view's own. The benchmark measures it
beside /healthz to show how much of a step's cost is the learner's identity and how much the
step's own work. Only bench/settings.py routes here; the site has no such URL.
"""

from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.http import require_safe

from config.urls import handler400, handler403, handler404, handler500  # noqa: F401
from config.urls import urlpatterns as site_urlpatterns


@require_safe
def signed_in(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return HttpResponse("sign in first", content_type="text/plain", status=403)
    return HttpResponse(request.user.get_username(), content_type="text/plain")


urlpatterns = [
    path("bench/signed-in", signed_in),
    *site_urlpatterns,
]
