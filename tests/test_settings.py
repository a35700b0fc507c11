import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run_manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    # A clean environment, as an operator's shell would be (the browser tests set extra flags).
    ignored = {"SECRET_KEY", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE", "DATABASE_URL", "REDIS_URL"}
    ignored |= {"BEHIND_TLS_PROXY", "TRUSTED_PROXIES", "TRUSTED_PROXY_COUNT", "PORT"}
    ignored |= {"SITE_ORIGIN", "EMAIL_HOST", "EMAIL_DISABLED", "LOG_FORMAT", "SENTRY_DSN"}
    ignored |= {"METRICS_ENABLED", "METRICS_TOKEN", "METRICS_ALLOWED_ADDRESSES"}
    ignored |= {"PROMETHEUS_MULTIPROC_DIR"}
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


def test_x_forwarded_for_is_trusted_from_loopback_unless_proxies_are_named():
    show = "from django.conf import settings; print(','.join(settings.TRUSTED_PROXIES))"
    behind = _run_manage("shell", "--no-imports", "-c", show, BEHIND_TLS_PROXY="true")
    counted = _run_manage("shell", "--no-imports", "-c", show, TRUSTED_PROXY_COUNT="1")
    direct = _run_manage("shell", "--no-imports", "-c", show)
    chosen = _run_manage("shell", "--no-imports", "-c", show, TRUSTED_PROXIES=" 10.1.2.3, fd00::/8")
    refused = _run_manage(
        "shell", "--no-imports", "-c", show, BEHIND_TLS_PROXY="true", TRUSTED_PROXIES="none"
    )
    # A campus LAN's private addresses are clients: they may not choose their address.
    loopback = "127.0.0.0/8,::1/128"
    assert behind.stdout.strip() == loopback, behind.stderr
    assert counted.stdout.strip() == loopback, counted.stderr
    assert direct.stdout.strip() == loopback, direct.stderr
    assert chosen.stdout.strip() == "10.1.2.3,fd00::/8", chosen.stderr
    assert refused.stdout.strip() == "", refused.stderr


def test_the_site_refuses_to_start_with_a_trusted_proxy_that_is_no_address():
    result = _run_manage("check", TRUSTED_PROXIES="10.0.0.0/8,load-balancer")
    assert result.returncode != 0
    assert "TRUSTED_PROXIES: 'load-balancer' is not an address" in result.stderr


def test_without_redis_every_manage_py_process_shares_the_database_cache_and_tests_keep_memory(
    settings,
):
    show = "from django.conf import settings; print(settings.CACHES['default']['BACKEND'])"
    production = {
        "DEBUG": "false",
        "SECRET_KEY": "x" * 50,
        "ALLOWED_HOSTS": "quiz.example.org",
    }
    shared = _run_manage("shell", "--no-imports", "-c", show, **production)
    local = _run_manage("shell", "--no-imports", "-c", show, DEBUG="true")
    database = "django.core.cache.backends.db.DatabaseCache"
    assert shared.stdout.strip() == database, shared.stderr
    # `make run`, its worker and `manage.py shell` under DEBUG: one cache between them.
    assert local.stdout.strip() == database, local.stderr
    # This test process did not start through manage.py: its own memory, emptied per test.
    assert settings.CACHES["default"]["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"


def test_a_catalog_change_made_in_a_shell_reaches_the_development_server(tmp_path):
    """Two manage.py processes under DEBUG (a `make run` server and a shell, say): the catalog
    generation one moves is the one the other reads, so a quiz a script adds is listed at
    once rather than after the listings' five minutes."""
    database = {"DEBUG": "true", "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    migrated = _run_manage("migrate", "--noinput", "-v0", **database)
    assert migrated.returncode == 0, migrated.stderr
    read = "from quizzes.content import catalog_generation; print(catalog_generation())"
    change = (
        "from quizzes.content import content_changed; from quizzes.models import Quiz; "
        "content_changed(quiz=Quiz.objects.all())"
    )

    before = _run_manage("shell", "--no-imports", "-c", read, **database)
    changed = _run_manage("shell", "--no-imports", "-c", change, **database)
    after = _run_manage("shell", "--no-imports", "-c", read, **database)

    assert changed.returncode == 0, changed.stderr
    assert int(after.stdout) > int(before.stdout), (before.stderr, after.stderr)


def test_development_links_made_without_a_request_use_the_port_make_run_was_given():
    show = "from quizzes.reminders import site_origin; print(site_origin())"

    default = _run_manage("shell", "--no-imports", "-c", show, DEBUG="true", SITE_ORIGIN="")
    chosen = _run_manage(
        "shell", "--no-imports", "-c", show, DEBUG="true", SITE_ORIGIN="", PORT="9001"
    )

    assert default.stdout.strip() == "http://127.0.0.1:8000", default.stderr
    assert chosen.stdout.strip() == "http://127.0.0.1:9001", chosen.stderr


def test_on_postgresql_statements_are_prepared_after_five_uses_unless_the_operator_says_off():
    show = (
        "from django.conf import settings; o = settings.DATABASES['default']['OPTIONS']; "
        "print(o['server_side_binding'], o['prepare_threshold'])"
    )
    url = "postgres://daleel@127.0.0.1:5432/daleel"
    default = _run_manage("shell", "--no-imports", "-c", show, DATABASE_URL=url)
    first_use = _run_manage(
        "shell", "--no-imports", "-c", show, DATABASE_URL=url, DB_PREPARE_THRESHOLD="0"
    )
    off = _run_manage(
        "shell", "--no-imports", "-c", show, DATABASE_URL=url, DB_PREPARE_THRESHOLD="off"
    )
    assert default.stdout.split() == ["True", "5"], default.stderr
    assert first_use.stdout.split() == ["True", "0"], first_use.stderr
    assert off.stdout.split() == ["True", "None"], off.stderr


def test_review_steps_are_minutes_from_the_environment_and_none_means_whole_days():
    show = (
        "from django.conf import settings; "
        "print(settings.REVIEW_LEARNING_STEPS_MINUTES, settings.REVIEW_RELEARNING_STEPS_MINUTES)"
    )
    default = _run_manage("shell", "--no-imports", "-c", show)
    chosen = _run_manage(
        "shell",
        "--no-imports",
        "-c",
        show,
        REVIEW_LEARNING_STEPS_MINUTES="5, 30",
        REVIEW_RELEARNING_STEPS_MINUTES="none",
    )
    assert default.stdout.strip() == "[1, 10] [10]", default.stderr
    assert chosen.stdout.strip() == "[5, 30] []", chosen.stderr


def test_with_debug_off_no_variable_lets_staff_skip_two_factor_sign_in():
    show = "from django.conf import settings; print(settings.MFA_REQUIRED_FOR_STAFF)"
    production = {"DEBUG": "false", "SECRET_KEY": "x" * 50, "ALLOWED_HOSTS": "quiz.example.org"}
    required = _run_manage("shell", "--no-imports", "-c", show, **production)
    asked_off = _run_manage(
        "shell", "--no-imports", "-c", show, MFA_REQUIRED_FOR_STAFF="false", **production
    )
    local = _run_manage("shell", "--no-imports", "-c", show, DEBUG="true")
    tried = _run_manage(
        "shell", "--no-imports", "-c", show, DEBUG="true", MFA_REQUIRED_FOR_STAFF="1"
    )
    outputs = [run.stdout.strip() for run in (required, asked_off, local, tried)]
    assert outputs == ["True", "True", "False", "True"], [r.stderr for r in (required, local)]


def test_the_worker_of_make_run_prints_each_task_line_once(tmp_path):
    """`make run` (DEBUG on): Django's own logging of DEBUG and the site's console both took
    django.tasks' lines, so every "Task id=… state=…" line was printed twice."""
    database = {"DEBUG": "true", "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    assert _run_manage("migrate", "--noinput", "-v0", **database).returncode == 0
    queue = "from accounts.mail import send_later; send_later(subject='s', body='b', to=['a@b.c'])"
    assert _run_manage("shell", "--no-imports", "-c", queue, **database).returncode == 0

    worked = _run_manage("db_worker", "--batch", **database)

    lines = [line for line in (worked.stdout + worked.stderr).splitlines() if "state=" in line]
    assert [line.rsplit("state=", 1)[1] for line in lines] == ["RUNNING", "SUCCESSFUL"], lines
