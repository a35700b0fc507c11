"""How soon the site serves again once PostgreSQL is back after a long outage: the next
requests get working connections and /readyz is steady within 10 seconds, on gunicorn with
production settings (the pool's own defaults, not shortened for the test)."""

import time
from pathlib import Path

import pytest

from bench import services
from tests.outages.test_learner_rides_out_outages import Learner

pytestmark = [pytest.mark.outage, pytest.mark.usefixtures("real_servers")]

# Long enough for psycopg_pool's default backoff (1, 2, 4, 8, 16 … s between tries, for five
# minutes) to leave the pool sleeping for many seconds when PostgreSQL returns.
OUTAGE_SECONDS = 70
RECOVERY_SECONDS = 10
STEADY_SECONDS = 5


def test_after_a_long_postgresql_outage_the_site_serves_again_within_ten_seconds(
    tmp_path: Path,
):
    with services.postgres_server() as database, services.redis_server() as redis:
        env = services.site_env(database.url, redis.url, tmp_path / "static")
        services.prepare_site(env)
        slug, quiz = sorted(services.site_task(env, "content").items())[0]
        with services.gunicorn(env, workers=2, threads=2, log_dir=tmp_path) as [site]:
            learner = Learner(site, quiz["correct"])
            learner.sign_in("comes-back", new=True)
            learner.start(slug)
            learner.answer_and_see_feedback(1)

            database.stop()
            down_until = time.monotonic() + OUTAGE_SECONDS
            while time.monotonic() < down_until:  # every worker keeps asking, and failing
                assert learner.get("/readyz").status == 503
                assert learner.answer(2).status == 503
            database.start()
            back_at = time.monotonic()

            # Ready: the first answer after which every /readyz and page for STEADY_SECONDS
            # answers 200 (each request may land on either worker).
            ready_at = None
            while time.monotonic() - back_at < RECOVERY_SECONDS + STEADY_SECONDS:
                ok = all(
                    learner.get(path).status == 200
                    for path in ("/readyz", learner.step(2), "/readyz", f"/en/quizzes/{slug}/")
                )
                if not ok:
                    ready_at = None
                elif ready_at is None:
                    ready_at = time.monotonic()
                elif time.monotonic() - ready_at >= STEADY_SECONDS:
                    break
            assert ready_at is not None, "not steady after PostgreSQL came back"
            recovered_in = ready_at - back_at
            learner.answer_and_see_feedback(2)

    print(f"steady {recovered_in:.1f} s after PostgreSQL came back")
    assert recovered_in <= RECOVERY_SECONDS
