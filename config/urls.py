import re

from allauth.account.decorators import secure_admin_login
from django.conf import settings
from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.decorators.http import require_GET
from django.views.static import serve

from config.metrics import metrics
from quizzes.views.ops import healthz, readyz, set_language


@require_GET
def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    # Browsers ask for /favicon.ico wherever a page names no icon (a JSON download, an error
    # from the proxy): the site's mark, not a 404. Its static address is hashed in production,
    # so it is looked up per request, not when the URLs load.
    return HttpResponsePermanentRedirect(static("favicon.png"))


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics, name="metrics"),
    path("i18n/setlang/", set_language, name="set_language"),
    path("favicon.ico", favicon, name="favicon"),
    # LTI endpoints that platforms call: one address whatever the language.
    path("lti/", include("lti.urls")),
]

# The admin signs in through the site's sign-in (allauth, with its second factor), not its own
# form, which would skip both.
admin.site.login = secure_admin_login(admin.site.login)  # type: ignore[method-assign]

urlpatterns += i18n_patterns(
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("", include("quizzes.urls")),
)


@require_GET
def media(request: HttpRequest, path: str) -> HttpResponse:
    # Uploaded images from the media folder while developing (`make run`: SERVE_MEDIA follows
    # DEBUG); in production the web server in front or the object store serves them.
    if not settings.SERVE_MEDIA:
        raise Http404
    return serve(request, path, document_root=settings.MEDIA_ROOT)


if settings.MEDIA_URL.startswith("/"):
    prefix = re.escape(settings.MEDIA_URL.lstrip("/"))
    urlpatterns.append(re_path(rf"^{prefix}(?P<path>.+)$", media))

handler400 = "quizzes.views.errors.bad_request"
handler403 = "quizzes.views.errors.permission_denied"
handler404 = "quizzes.views.errors.page_not_found"
handler500 = "quizzes.views.errors.server_error"
