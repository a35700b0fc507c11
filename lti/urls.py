from django.urls import path

from . import views

app_name = "lti"

urlpatterns = [
    path("login/", views.oidc_login, name="login"),
    path("launch/", views.launch, name="launch"),
    path("jwks/", views.jwks, name="jwks"),
    path("deep-linking/", views.deep_linking, name="deep_linking"),
]
