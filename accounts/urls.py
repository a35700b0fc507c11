"""Our account pages, and the names (`accounts:login`, …) of allauth's at the addresses they
always had. allauth's own URLs (config/urls.py) come after these, under the same prefix: where
both have a path, ours answers (a limit around allauth's view, or the same view)."""

from allauth.account import views as allauth_views
from django.urls import path
from django.views.generic import RedirectView

from . import preferences, second_factor, signin, views

app_name = "accounts"

urlpatterns = [
    path("profile/preferences/", preferences.preferences, name="preferences"),
    path("signup/", views.signup, name="signup"),
    path("login/", signin.login, name="login"),
    path("logout/", allauth_views.logout, name="logout"),
    path("email/", views.email, name="email"),
    path("password/change/", views.password_change, name="password_change"),
    # Addresses from before allauth, bookmarked or in old mail.
    path("password/", RedirectView.as_view(pattern_name="accounts:password_change")),
    path("password/done/", RedirectView.as_view(pattern_name="accounts:password_change")),
    path("password/reset/sent/", RedirectView.as_view(pattern_name="account_reset_password_done")),
    path(
        "password/reset/complete/",
        RedirectView.as_view(pattern_name="account_reset_password_from_key_done"),
    ),
    path("password/reset/", views.password_reset, name="password_reset"),
    # allauth's second step and "enter a code again", with their wrong codes limited.
    path("2fa/authenticate/", second_factor.authenticate, name="second_factor"),
    path("2fa/reauthenticate/", second_factor.reauthenticate, name="second_factor_again"),
    path("profile/", views.profile, name="profile"),
    path("profile/data.json", views.download_data, name="download_data"),
    path("delete/", views.delete_account, name="delete"),
    path("deleted/", views.deleted, name="deleted"),
]
