"""The admin site as Daleel's: its name, and its own apps first in the sidebar and on the index
(Django's documented `AdminConfig.default_site` and `AdminSite.get_app_list`)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext_lazy as _

# The sidebar's order: what instructors come for first; the LTI platforms' records last (their
# "Add" buttons once caught a newcomer's first click). Apps not named keep Django's order.
APP_ORDER = ("quizzes", "accounts", "auth", "account", "mfa", "axes")
LAST = ("django_tasks_database", "lti")

# Libraries' models whose names have no translation of their own (allauth.mfa's has no verbose
# name, so Django shows "Authenticators"): the names the index and the sidebar give them, in the
# page's language. (Apps are named in config/library_apps.py.)
MODEL_NAMES = {
    ("mfa", "authenticator"): _("Two-factor sign-in methods"),
}


class ErrorReportTest(Exception):
    """Raised on purpose by an administrator, to see an error reach the error reports."""


class DaleelAdminSite(admin.AdminSite):
    site_header = _("Daleel administration")
    site_title = _("Daleel administration")
    index_title = _("Quizzes, learners and settings")

    def get_urls(self):
        test = path(
            "error-report-test/",
            self.admin_view(self.error_report_test),
            name="error_report_test",
        )
        return [test, *super().get_urls()]

    def error_report_test(self, request: HttpRequest) -> HttpResponse:
        """An administrator's check that error reports arrive (SENTRY_DSN, docs/operations.md):
        a button whose request fails on purpose, answered with the site's 500 page."""
        if not request.user.is_superuser:
            raise PermissionDenied
        if request.method not in {"GET", "HEAD", "POST"}:
            return HttpResponseNotAllowed(["GET", "POST"])
        if request.method == "POST":
            raise ErrorReportTest(f"A test error report, sent by user {request.user.pk}.")
        context = {
            **self.each_context(request),
            "title": _("Test the error reports"),
            "reports_on": bool(settings.SENTRY_DSN),
        }
        return TemplateResponse(request, "admin/error_report_test.html", context)

    def get_app_list(self, request, app_label=None):
        apps = super().get_app_list(request, app_label)
        for app in apps:
            for model in app["models"]:
                key = (app["app_label"], model["object_name"].lower())
                model["name"] = MODEL_NAMES.get(key, model["name"])

        def place(app: dict) -> tuple[int, int]:
            label = app["app_label"]
            if label in APP_ORDER:
                return (0, APP_ORDER.index(label))
            if label in LAST:
                return (2, LAST.index(label))
            return (1, 0)

        return sorted(apps, key=place)


class DaleelAdminConfig(AdminConfig):
    default_site = "config.admin_site.DaleelAdminSite"
