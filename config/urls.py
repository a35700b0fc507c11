from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path

from quizzes.views.ops import healthz, readyz, set_language

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("i18n/setlang/", set_language, name="set_language"),
]

urlpatterns += i18n_patterns(
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("", include("quizzes.urls")),
)

handler400 = "quizzes.views.errors.bad_request"
handler403 = "quizzes.views.errors.permission_denied"
handler404 = "quizzes.views.errors.page_not_found"
handler500 = "quizzes.views.errors.server_error"
