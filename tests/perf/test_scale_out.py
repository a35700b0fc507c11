"""Two app servers on one PostgreSQL and one Redis behave as one: bench/scale_out.py.

It starts its own PostgreSQL (.ci/postgres.sh, as root), Redis and two gunicorn servers with
production settings, so it needs Debian's postgresql and redis-server. Without them it is
skipped on a laptop and fails in CI (CI=true), where .ci/run installs them.
"""

import os
import subprocess
import sys

import pytest

from bench.services import ROOT, missing_tools


def test_one_learner_alternating_between_two_servers_gets_the_same_result_as_on_one():
    missing = missing_tools()
    if os.geteuid() != 0:
        missing.append("root (initdb runs as the postgres user)")
    if missing:
        message = f"scale-out needs {', '.join(missing)}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)

    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "scale_out.py")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "scale-out: ok" in done.stdout
