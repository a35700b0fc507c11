import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run_manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    # A clean environment, as an operator's shell would be (the browser tests set extra flags).
    ignored = {"SECRET_KEY", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE", "DATABASE_URL", "REDIS_URL"}
    environment = {k: v for k, v in os.environ.items() if k not in ignored}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_site_refuses_to_start_with_debug_off_and_no_secret_key():
    result = _run_manage("check", DEBUG="false")
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr


def test_production_settings_pass_the_deploy_checklist():
    result = _run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="false",
        SECRET_KEY="x" * 20 + "-a-long-random-production-secret-key-for-tests",
        ALLOWED_HOSTS="quiz.example.org",
    )
    assert result.returncode == 0, result.stderr


def test_behind_a_proxy_sign_in_lockouts_count_the_address_the_proxy_passes_on():
    show = "from django.conf import settings; print(settings.AXES_CLIENT_IP_CALLABLE)"
    behind = _run_manage("shell", "--no-imports", "-c", show, BEHIND_TLS_PROXY="true")
    direct = _run_manage("shell", "--no-imports", "-c", show)
    assert behind.stdout.strip() == "accounts.client_ip.client_ip", behind.stderr
    assert direct.stdout.strip() == "None", direct.stderr


def test_without_redis_production_shares_the_database_cache_and_only_debug_keeps_memory():
    show = "from django.conf import settings; print(settings.CACHES['default']['BACKEND'])"
    production = {
        "DEBUG": "false",
        "SECRET_KEY": "x" * 50,
        "ALLOWED_HOSTS": "quiz.example.org",
    }
    shared = _run_manage("shell", "--no-imports", "-c", show, **production)
    local = _run_manage("shell", "--no-imports", "-c", show, DEBUG="true")
    assert shared.stdout.strip() == "django.core.cache.backends.db.DatabaseCache", shared.stderr
    assert local.stdout.strip() == "django.core.cache.backends.locmem.LocMemCache", local.stderr
