"""Two app servers on one PostgreSQL and one Redis behave as one: bench/scale_out.py.

It starts its own PostgreSQL (.ci/postgres.sh, as root), Redis and two gunicorn servers with
production settings, so it needs Debian's postgresql and redis-server. Without them it is
skipped on a laptop and fails in CI (CI=true), where .ci/run installs them.
"""

import subprocess
import sys

import pytest

from bench.services import ROOT


@pytest.mark.usefixtures("real_servers")
def test_one_learner_alternating_between_two_servers_gets_the_same_result_as_on_one():
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
