"""A production site refuses to run half-configured (config/checks.py), and deploy/'s
environment file, filled in as an operator fills it, passes Django's deployment checklist."""

import secrets

import pytest

from deploy.check import read_environment_file
from tests.operations.deploy_files import DEPLOY
from tests.test_settings import _run_manage

PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "quiz.example.org",
    "SITE_ORIGIN": "https://quiz.example.org",
    "EMAIL_HOST": "smtp.example.org",
}


def _check(*args: str, **env: str):
    return _run_manage("check", *args, **{**PRODUCTION, **env})


def test_a_production_site_with_its_origin_and_mail_server_passes_the_checks():
    result = _check()

    assert result.returncode == 0, result.stderr


def test_without_site_origin_a_production_site_refuses_to_start():
    result = _check(SITE_ORIGIN="")

    assert result.returncode != 0
    assert "(daleel.E001) SITE_ORIGIN is not set." in result.stderr


@pytest.mark.parametrize(
    "origin", ["quiz.example.org", "https://quiz.example.org/en", "ftp://quiz.example.org"]
)
def test_a_site_origin_that_is_no_origin_is_refused(origin):
    result = _check(SITE_ORIGIN=origin)

    assert result.returncode != 0
    assert f"(daleel.E002) SITE_ORIGIN {origin!r} is not an origin." in result.stderr


def test_without_a_mail_server_a_production_site_refuses_to_start_unless_mail_is_disabled():
    refused = _check(EMAIL_HOST="")
    disabled = _check(EMAIL_HOST="", EMAIL_DISABLED="true")
    backend = "from django.conf import settings; print(settings.MAILERS['default']['BACKEND'])"
    shown = _run_manage("shell", "--no-imports", "-c", backend, EMAIL_DISABLED="true")

    assert refused.returncode != 0
    assert "(daleel.E003) EMAIL_HOST is not set: no mail could be sent." in refused.stderr
    assert "EMAIL_DISABLED=true" in refused.stderr
    assert disabled.returncode == 0, disabled.stderr
    # Disabled means sent nowhere: not to a server on this machine, not printed.
    assert shown.stdout.strip() == "django.core.mail.backends.dummy.EmailBackend", shown.stderr


def test_on_a_laptop_neither_origin_nor_mail_server_is_needed():
    result = _run_manage("check", DEBUG="true")

    assert result.returncode == 0, result.stderr


def test_metrics_open_to_anyone_are_refused_even_with_debug_on():
    refused = _run_manage("check", DEBUG="true", METRICS_ENABLED="true")
    with_token = _run_manage(
        "check", DEBUG="true", METRICS_ENABLED="true", METRICS_TOKEN=secrets.token_urlsafe(32)
    )
    with_address = _run_manage(
        "check", DEBUG="true", METRICS_ENABLED="true", METRICS_ALLOWED_ADDRESSES="10.0.0.9"
    )

    assert refused.returncode != 0
    assert "(daleel.E004) METRICS_ENABLED is on with neither" in refused.stderr
    assert with_token.returncode == 0, with_token.stderr
    assert with_address.returncode == 0, with_address.stderr


def test_a_short_metrics_token_is_refused():
    result = _run_manage("check", DEBUG="true", METRICS_ENABLED="true", METRICS_TOKEN="change-me")

    assert result.returncode != 0
    assert "(daleel.E005) METRICS_TOKEN is shorter than 24 characters." in result.stderr


def test_hsts_preload_is_off_by_default_and_on_by_its_variable():
    show = "from django.conf import settings; print(settings.SECURE_HSTS_PRELOAD)"

    default = _run_manage("shell", "--no-imports", "-c", show, **PRODUCTION)
    chosen = _run_manage("shell", "--no-imports", "-c", show, **PRODUCTION, SECURE_HSTS_PRELOAD="1")

    assert default.stdout.strip() == "False", default.stderr
    assert chosen.stdout.strip() == "True", chosen.stderr


def test_the_environment_file_filled_in_passes_the_deployment_checklist_with_no_warning():
    environment = read_environment_file(DEPLOY / "daleel.env")
    # What an operator must replace is marked, and is all that changes here.
    placeholders = {
        name for name, value in environment.items() if "change-me" in value or "example" in value
    }
    assert placeholders >= {"SECRET_KEY", "DATABASE_URL", "EMAIL_HOST", "METRICS_TOKEN"}
    environment |= {
        "SECRET_KEY": secrets.token_urlsafe(50),
        "METRICS_TOKEN": secrets.token_urlsafe(32),
        "STATIC_ROOT": "/tmp/daleel-static",
        "MEDIA_ROOT": "/tmp/daleel-media",
    }

    result = _run_manage("check", "--deploy", "--fail-level", "WARNING", **environment)

    assert result.returncode == 0, result.stderr
    assert environment["DEBUG"] == "false"
    assert environment["LOG_FORMAT"] == "json"
    assert environment["METRICS_ENABLED"] == "true"
