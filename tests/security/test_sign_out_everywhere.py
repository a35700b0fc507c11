"""Without Redis, signing out on one app process ends the session on every other.

Two gunicorn servers of one worker each, with the production settings and no REDIS_URL, share
one SQLite file (and nothing else), as two workers or two servers of a small deployment would.
Each first serves the learner, so each has read the session; then the learner signs out on
one, and the old cookie is replayed on both. With a per-process memory cache the other server
kept serving it as the learner (the outside probe saw 11 of 48 replays get through).
"""

import http.client
import secrets
import subprocess
from urllib.parse import urlsplit

from bench.services import PYTHON, ROOT, gunicorn, site_env, site_task


def _request(base_url: str, method: str, path: str, cookies: dict, headers=None):
    address = urlsplit(base_url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=30)
    try:
        cookie = "; ".join(f"{name}={value}" for name, value in cookies.items())
        connection.request(method, path, headers={"Cookie": cookie, **(headers or {})})
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def test_a_session_signed_out_on_one_process_is_refused_by_every_other(tmp_path):
    env = site_env(
        f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "",  # no Redis
        tmp_path / "static",
        # The site plus /bench/signed-in, which answers the signed-in learner's username.
        DJANGO_SETTINGS_MODULE="bench.settings",
    )
    subprocess.run(
        [str(PYTHON), "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    [learner] = site_task(env, "create", "1", "replay")
    csrf = secrets.token_hex(16)  # any 32 characters make a CSRF cookie and its token
    cookies = {"sessionid": learner["session"], "csrftoken": csrf}

    with gunicorn(env, count=2, workers=1, threads=1, log_dir=tmp_path) as (first, second):
        for server in (first, second):
            assert _request(server, "GET", "/bench/signed-in", cookies) == (
                200,
                learner["username"],
            )

        status, _ = _request(first, "POST", "/en/accounts/logout/", cookies, {"X-CSRFToken": csrf})
        assert status == 302

        for _ in range(10):
            for server in (second, first):
                assert _request(server, "GET", "/bench/signed-in", cookies) == (
                    403,
                    "sign in first",
                )
