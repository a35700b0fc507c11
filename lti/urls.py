from django.urls import path

from . import login, views

app_name = "lti"

urlpatterns = [
    path("login/", login.oidc_login, name="login"),
    path("login/continue/", login.oidc_login_continue, name="login_continue"),
    path("launch/", views.launch, name="launch"),
    path("jwks/", views.jwks, name="jwks"),
    path("deep-linking/", views.deep_linking, name="deep_linking"),
]
