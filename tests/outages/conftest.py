"""Outage tests start real servers (bench/services.py): Redis, and PostgreSQL through
.ci/postgres.sh as root. Without them they are skipped on a laptop and fail in CI (CI=true),
where .ci/system-packages installs them."""

import os

import pytest

from bench.services import missing_tools


@pytest.fixture
def real_servers() -> None:
    missing = missing_tools()
    if os.geteuid() != 0:
        missing.append("root (initdb runs as the postgres user)")
    if missing:
        message = f"outage tests need {', '.join(missing)}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
