"""lti_register's output is a contract; keys rotate with the old one published a while."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from lti.models import Deployment, Registration, ToolKey

pytestmark = pytest.mark.django_db

ARGS = {
    "issuer": "https://lms.example.org",
    "client_id": "client-1",
    "deployment_id": "1",
    "auth_url": "https://lms.example.org/mod/lti/auth.php",
    "token_url": "https://lms.example.org/mod/lti/token.php",
    "jwks_url": "https://lms.example.org/mod/lti/certs.php",
}


def register(**extra) -> str:
    out = io.StringIO()
    call_command("lti_register", stdout=out, **{**ARGS, **extra})
    return out.getvalue()


def test_lti_register_prints_the_tools_endpoints_one_a_line(settings):
    settings.SITE_ORIGIN = "https://quiz.example.org"

    output = register(name="Moodle")

    assert output.splitlines() == [
        "login: https://quiz.example.org/lti/login/",
        "launch: https://quiz.example.org/lti/launch/",
        "jwks: https://quiz.example.org/lti/jwks/",
        "deep-linking: https://quiz.example.org/lti/deep-linking/",
    ]
    registration = Registration.objects.get()
    assert registration.name == "Moodle" and not registration.grants_instructor
    assert ToolKey.objects.count() == 1
    assert "PRIVATE" not in output


def test_lti_register_takes_a_base_url_and_updates_instead_of_duplicating():
    register(base_url="https://a.example/")
    output = register(
        base_url="https://b.example", deployment_id="2", token_url="https://t.example/"
    )

    assert output.splitlines()[0] == "login: https://b.example/lti/login/"
    registration = Registration.objects.get()
    assert registration.token_url == "https://t.example/"
    assert sorted(Deployment.objects.values_list("deployment_id", flat=True)) == ["1", "2"]


def test_one_issuer_may_register_several_clients():
    register(base_url="https://a.example")
    register(base_url="https://a.example", client_id="client-2")

    assert Registration.objects.filter(issuer=ARGS["issuer"]).count() == 2


def test_the_printed_endpoints_answer(settings):
    settings.SITE_ORIGIN = "http://testserver"
    register()
    client = Client()

    assert client.get("/lti/jwks/").status_code == 200
    assert client.get("/lti/login/").status_code == 400
    assert client.post("/lti/launch/").status_code == 403
    assert client.post("/lti/deep-linking/").status_code == 400


def test_a_rotated_key_stays_published_until_its_date(time_machine):
    time_machine.move_to("2026-12-01 10:00:00+00:00", tick=False)
    register(base_url="https://a.example")
    old = ToolKey.objects.get()

    call_command("lti_rotate_key", keep_days=7, stdout=io.StringIO())

    kids = [key["kid"] for key in Client().get("/lti/jwks/").json()["keys"]]
    new = ToolKey.objects.exclude(pk=old.pk).get()
    assert sorted(kids) == sorted([old.kid, new.kid])
    assert all("d" not in key for key in Client().get("/lti/jwks/").json()["keys"])
    time_machine.move_to(timezone.now() + timedelta(days=7, seconds=1), tick=False)
    kids = [key["kid"] for key in Client().get("/lti/jwks/").json()["keys"]]
    assert kids == [new.kid]
