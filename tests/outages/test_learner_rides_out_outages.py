"""A learner in the middle of a quiz on gunicorn with production settings, while Redis and then
PostgreSQL are stopped and started again under the site: no error while Redis is away, a 503
while PostgreSQL is, /healthz up throughout, recovery without a restart, and every answer
counted exactly once."""

import re
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest
import redis as redis_py

from bench import services
from bench.browser import Browser, Response, score_of

pytestmark = [pytest.mark.outage, pytest.mark.usefixtures("real_servers")]

PASSWORD = "outage-passphrase-7"  # noqa: S105 — a throwaway learner on a throwaway site
STEP = re.compile(r"/en/attempts/(\d+)/questions/1/")


class Learner:
    def __init__(self, site: str, correct: list[int]) -> None:
        self.browser = Browser(site)
        self.correct = correct
        self.attempt = ""

    def get(self, path: str, **kwargs) -> Response:
        return self.browser.get(path, **kwargs)

    def sign_in(self, username: str, *, new: bool = False) -> None:
        form = "/en/accounts/signup/" if new else "/en/accounts/login/"
        fields = (
            {"username": username, "password1": PASSWORD, "password2": PASSWORD}
            if new
            else {"login": username, "password": PASSWORD}
        )
        assert self.get(form).status == 200
        assert self.browser.post(form, fields).status == 302

    def start(self, slug: str) -> None:
        assert self.get(f"/en/quizzes/{slug}/").status == 200
        started = self.browser.post(f"/en/quizzes/{slug}/start/")
        self.attempt = STEP.search(started.header("Location") or "")[1]

    def step(self, number: int) -> str:
        return f"/en/attempts/{self.attempt}/questions/{number}/"

    def answer(self, number: int, *, htmx: bool = False) -> Response:
        return self.browser.post(self.step(number), {"choice": self.correct[number - 1]}, htmx=htmx)

    def answer_and_see_feedback(self, number: int) -> None:
        assert self.get(self.step(number)).status == 200
        assert self.answer(number).status == 302
        feedback = self.get(self.step(number))
        assert feedback.status == 200
        assert "feedback--" in feedback.text


def answer_in_flight(
    learner: Learner, number: int, database_url: str
) -> tuple[Future, psycopg.Connection]:
    """Send answer `number` from another connection of the learner's browser and return once
    the server is writing it: its INSERT waits on a lock that the returned connection holds
    until the server stops."""
    locker = psycopg.connect(database_url, autocommit=False)
    locker.execute("LOCK TABLE quizzes_answer IN EXCLUSIVE MODE")
    tab = Browser(learner.browser.base_url, cookies=dict(learner.browser.cookies))
    form = {"choice": learner.correct[number - 1]}
    pool = ThreadPoolExecutor(1)
    sent = pool.submit(tab.post, learner.step(number), form)
    pool.shutdown(wait=False)
    deadline = time.monotonic() + 30
    while not locker.execute("SELECT count(*) FROM pg_locks WHERE NOT granted").fetchone()[0]:
        assert time.monotonic() < deadline, "the answer never reached its INSERT"
        time.sleep(0.05)
    return sent, locker


def wait_until_ready(browser: Browser, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while browser.get("/readyz").status != 200:
        assert time.monotonic() < deadline, "/readyz not 200 after PostgreSQL came back"
        time.sleep(0.2)


def test_a_learner_finishes_a_quiz_through_a_redis_outage_and_a_postgresql_outage(tmp_path: Path):
    with services.postgres_server() as database, services.redis_server() as redis:
        env = services.site_env(
            database.url,
            redis.url,
            tmp_path / "static",
            REDIS_CONNECT_TIMEOUT="0.2",
            REDIS_SOCKET_TIMEOUT="0.2",
            REDIS_RETRY_SECONDS="1",
            DB_POOL_TIMEOUT="1",
        )
        services.prepare_site(env)
        slug, quiz = sorted(services.site_task(env, "content").items())[0]
        assert len(quiz["correct"]) == 8
        with services.gunicorn(env, workers=2, threads=2, log_dir=tmp_path) as [site]:
            learner = Learner(site, quiz["correct"])
            learner.sign_in("rides-out", new=True)
            learner.start(slug)
            learner.answer_and_see_feedback(1)
            learner.answer_and_see_feedback(2)

            # Redis stops: every page still works, from PostgreSQL.
            redis.stop()
            learner.answer_and_see_feedback(3)
            assert learner.answer(4, htmx=True).status == 200
            for page in ("/en/", f"/en/quizzes/{slug}/", "/en/attempts/", "/ar/"):
                assert learner.get(page).status == 200, page
            assert learner.browser.post("/en/accounts/logout/").status == 302
            learner.sign_in("rides-out")
            assert learner.get(learner.step(5)).status == 200

            # Redis is back: used again, without a restart.
            redis.start()
            time.sleep(1.2)  # REDIS_RETRY_SECONDS
            learner.answer_and_see_feedback(5)
            assert redis_py.Redis.from_url(redis.url).dbsize() > 0

            # PostgreSQL crashes while answer 6 is being written (its INSERT waits on a lock).
            in_flight, _lock = answer_in_flight(learner, 6, database.url)
            database.stop(crash=True)
            done = in_flight.result(timeout=30)
            assert done.status == 503

            # While it is down: 503 with Retry-After on learner and admin pages, /healthz up.
            refused = learner.answer(6)
            assert refused.status == 503
            assert refused.header("Retry-After") == "30"
            assert "temporarily unavailable" in refused.text
            assert learner.answer(6, htmx=True).status == 503
            arabic = learner.get(learner.step(6).replace("/en/", "/ar/"))
            assert arabic.status == 503
            assert "«دليل» غير متاح مؤقتًا" in arabic.text
            assert learner.get("/en/admin/").status == 503
            assert learner.get("/healthz").status == 200
            not_ready = learner.get("/readyz")
            assert not_ready.status == 503
            assert not_ready.header("Retry-After") == "30"

            # PostgreSQL is back: the same servers serve again.
            database.start()
            wait_until_ready(learner.browser)
            assert "feedback--" not in learner.get(learner.step(6)).text  # not half-written
            for number in (6, 7, 8):
                learner.answer_and_see_feedback(number)
            result = learner.get(f"/en/attempts/{learner.attempt}/result/")
            assert result.status == 200
            assert score_of(result.text) == "8 / 8"

            checked = services.site_task(env, "verify")
            log = "".join(path.read_text() for path in tmp_path.glob("gunicorn-*.log"))

    assert checked["finished"] == 1
    assert checked["answers"] == 8
    assert checked["misscored"] == 0
    assert "Internal Server Error" not in log
    # One warning per process and minute, not one per request: two workers.
    assert 1 <= log.count("Redis unreachable") <= 2
    assert 1 <= log.count("Database unreachable, answered 503") <= 2
