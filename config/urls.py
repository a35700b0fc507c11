from django.conf import settings
from django.conf.urls.i18n import i18n_patterns
from django.conf.urls.static import static as media_patterns
from django.contrib import admin
from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path
from django.views.decorators.http import require_GET

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
    path("i18n/setlang/", set_language, name="set_language"),
    path("favicon.ico", favicon, name="favicon"),
]

urlpatterns += i18n_patterns(
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("", include("quizzes.urls")),
)

# Uploaded images while developing (`make run`); in production the web server or the object
# store serves them (`static()` adds nothing when DEBUG is off).
urlpatterns += media_patterns(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)

handler400 = "quizzes.views.errors.bad_request"
handler403 = "quizzes.views.errors.permission_denied"
handler404 = "quizzes.views.errors.page_not_found"
handler500 = "quizzes.views.errors.server_error"
