"""deploy/'s files and the docs say one thing: each process is started one way, the proxy takes
what the admin takes, and every variable of the environment file is documented."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from deploy.check import read_environment_file, read_unit
from quizzes.instructors.images import MAX_BYTES
from tests.operations.deploy_files import DEPLOY, ROOT

README = (ROOT / "README.md").read_text()
OPERATIONS = (ROOT / "docs" / "operations.md").read_text()
NGINX = (DEPLOY / "nginx-daleel.conf").read_text()


def _service(name: str) -> dict[str, list[str]]:
    return read_unit((DEPLOY / name).read_text())


@pytest.mark.parametrize("unit", ["daleel-web.service", "daleel-worker.service"])
def test_the_readme_and_operations_start_each_process_as_its_unit_does(unit):
    start = _service(unit)["ExecStart"][0]

    assert start in README
    assert start in OPERATIONS


def test_the_worker_queues_the_hourly_task_before_it_starts_as_the_docs_say():
    (before,) = _service("daleel-worker.service")["ExecStartPre"]

    assert before.endswith("manage.py schedule_tasks")
    assert "manage.py schedule_tasks" in README and "manage.py schedule_tasks" in OPERATIONS


def test_both_units_read_the_environment_file_and_share_the_metrics_folder():
    for unit in ["daleel-web.service", "daleel-worker.service"]:
        service = _service(unit)
        assert service["EnvironmentFile"][0] == "/etc/daleel/daleel.env"
        assert service["User"] == ["daleel"]
        assert "PROMETHEUS_MULTIPROC_DIR=/run/daleel" in service["Environment"]
        assert service["RuntimeDirectory"] == ["daleel"]


def test_the_proxy_takes_what_the_admin_takes_and_passes_the_client_on():
    megabytes = int(re.search(r"client_max_body_size (\d+)m;", NGINX).group(1))

    # Several images at their largest in one save of a quiz's page.
    assert megabytes * 1024 * 1024 >= 5 * MAX_BYTES
    for header in ["X-Forwarded-For", "X-Forwarded-Proto", "X-Request-ID", "Host"]:
        assert f"proxy_set_header {header} " in NGINX


def test_the_proxy_serves_the_images_from_where_the_site_keeps_them():
    environment = read_environment_file(DEPLOY / "daleel.env")
    alias = re.search(r"location /media/ \{\s*alias ([^;]+);", NGINX).group(1)

    assert alias.rstrip("/") == environment["MEDIA_ROOT"]
    # And passes everything else to gunicorn where it listens.
    gunicorn = (DEPLOY / "gunicorn.conf.py").read_text()
    bind = re.search(r'bind = \["([^"]+)"\]', gunicorn).group(1)
    assert f"server {bind};" in NGINX


def test_every_variable_of_the_environment_file_is_in_the_readmes_table():
    table = README.split("## Configuration", 1)[1]

    for name in read_environment_file(DEPLOY / "daleel.env"):
        assert f"`{name}`" in table, name


def test_hsts_preload_is_nowhere_turned_on_by_the_files():
    assert "SECURE_HSTS_PRELOAD" not in (DEPLOY / "daleel.env").read_text()
    assert "preload" not in NGINX


def test_gunicorn_started_as_the_unit_starts_it_refuses_a_half_configured_site(tmp_path):
    """The configuration's check runs in gunicorn's master before any worker (on_starting)."""
    environment = {
        "PATH": "/usr/bin:/bin",
        "DEBUG": "false",
        "SECRET_KEY": "s" * 60,
        "ALLOWED_HOSTS": "quiz.example.org",
        "EMAIL_HOST": "smtp.example.org",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    gunicorn = ROOT / ".venv" / "bin" / "gunicorn"
    started = subprocess.run(
        [
            str(gunicorn if gunicorn.exists() else sys.executable),
            "--config",
            "deploy/gunicorn.conf.py",
            "--bind",
            "127.0.0.1:0",
            "config.wsgi",
        ],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert started.returncode != 0
    assert "(daleel.E001) SITE_ORIGIN is not set." in started.stderr
    assert "Booting worker" not in started.stderr
