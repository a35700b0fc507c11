import os
from datetime import UTC, datetime

import pytest
from django.core.management import call_command
from django.test import Client
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from bench.services import missing_tools
from quizzes.models import Quiz
from tests.lti.platform import TestPlatform

from . import factories

# Hypothesis: `ci` (the default, `make test`) tries a few examples, the same ones every run;
# `deep` (HYPOTHESIS_PROFILE=deep, `make test-deep`) each fuzz test's full number, new ones each
# run. The numbers themselves: tests/fuzzing.py's `examples`.
_FIXTURES_PER_TEST = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
hypothesis_settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, suppress_health_check=_FIXTURES_PER_TEST
)
hypothesis_settings.register_profile(
    "deep", deadline=None, suppress_health_check=_FIXTURES_PER_TEST
)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(items):
    # A test that starts its own servers runs apart from the parallel ones (`-m servers`).
    for item in items:
        if "real_servers" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.servers)


# The site's time zone for every test: UTC (settings.py) unless DALEEL_TEST_TIME_ZONE names
# another. CI's PostgreSQL run sets Pacific/Kiritimati (UTC+14, a day ahead of UTC from 10:00
# UTC on), so every test that depends on the time runs once in UTC and once far from it at no
# extra cost (README, "Running the tests"). A test names the time in UTC (timezone.now() is
# UTC whatever the zone) and says what a learner reads in the zone that is active. A test whose
# expectations are one zone's wording ("later today at 1 p.m." for a learner without a zone on
# a UTC site) says so with `@pytest.mark.site_time_zone("UTC")` and keeps that zone.
TEST_TIME_ZONE = os.environ.get("DALEEL_TEST_TIME_ZONE", "")


@pytest.fixture(autouse=True)
def _site_time_zone(request, settings):
    pinned = request.node.get_closest_marker("site_time_zone")
    zone = pinned.args[0] if pinned else TEST_TIME_ZONE
    if zone:
        settings.TIME_ZONE = zone  # the default zone, and the process's TZ


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    # Hashing strength is Django's business; the suite needs speed.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _exact_review_dates(settings):
    """FSRS without its random fuzz, so that tests can name the day a card comes back."""
    from quizzes.review.scheduler import scheduler

    settings.REVIEW_FUZZING = False
    scheduler.cache_clear()
    yield
    scheduler.cache_clear()


@pytest.fixture(autouse=True)
def _tasks_run_in_the_test(settings):
    """Background tasks run where they are queued, so a test sees their effect (the mail in
    `mailoutbox`); tests of the queue itself set the database backend."""
    settings.TASKS = {"default": {"BACKEND": settings.TASKS_BACKENDS["immediate"]}}


@pytest.fixture(autouse=True)
def _english_and_fresh_cache(settings):
    """Each test starts in English with empty caches (content, sessions and this process's
    local cache live there)."""
    from django.core.cache import caches
    from django.core.cache.backends.db import DatabaseCache
    from django.utils import translation

    from quizzes.content import content_cache_clear

    def clear() -> None:
        for alias in caches.all(initialized_only=True):
            # The database's cache table goes with the test's transaction (or its flush).
            if not isinstance(alias, DatabaseCache):
                alias.clear()
        content_cache_clear()  # ids and frozen clocks repeat from test to test

    clear()
    translation.activate("en")
    yield
    translation.deactivate()
    clear()


@pytest.fixture(autouse=True)
def _database_cache_emptied_after_committing_tests(request):
    """The database's cache table (limits' durable counts, used codes) belongs to no model, so
    Django's flush after a test that commits (transaction=True, a live server) leaves it: such
    a test empties it after itself. Other tests roll it back with everything else."""
    marker = request.node.get_closest_marker("django_db")
    commits = marker is not None and bool(marker.kwargs.get("transaction") or marker.args[:1])
    if not (commits or {"transactional_db", "live_server"} & set(request.fixturenames)):
        yield
        return
    request.getfixturevalue("transactional_db")
    yield
    from django.core.cache import caches

    caches["database"].clear()


# A whole hour, so that every limit's parts start on it (accounts.limits).
FROZEN_AT = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


@pytest.fixture
def frozen_clock(time_machine):
    """The clock stopped at FROZEN_AT; `frozen_clock.shift(seconds)` moves it."""
    time_machine.move_to(FROZEN_AT, tick=False)
    return time_machine


@pytest.fixture(autouse=True)
def _limits_reached_under_a_frozen_clock(request, monkeypatch):
    """A test that reaches a limit stops the clock (time-machine): a limit's count rolling over
    between two of its requests once made such a test pass a request it should have refused.
    Refusing a request (accounts.limits) fails a test that has not. Browser tests are left
    out: their requests run in the live server's thread, where the failure would only show as
    a server error page, and their few requests are counted over sliding windows that a
    boundary does not reset (accounts.limits, issue 52 N4)."""
    from accounts import limits

    if request.node.get_closest_marker("e2e"):
        return

    wait = limits._Window.wait

    def checked(window, counts):
        if "time_machine" not in request.fixturenames:
            pytest.fail("this test reaches a limit: freeze the clock (frozen_clock)")
        return wait(window, counts)

    monkeypatch.setattr(limits._Window, "wait", checked)


@pytest.fixture(autouse=True)
def _media_in_a_temporary_folder(settings, tmp_path_factory):
    """Uploaded images go to a folder of the test's own, never the checkout's media/."""
    settings.MEDIA_ROOT = tmp_path_factory.mktemp("media")


@pytest.fixture
def learner(db):
    return factories.make_user("Amina")


@pytest.fixture
def other_learner(db):
    return factories.make_user("Bilal")


@pytest.fixture
def bystander(db, quiz):
    """Another learner ("Bystander") with activity on the same quiz and questions as `learner`
    (tests/steps.py, `bystander_on`). A learner-scoped page or service (history, results,
    review, statistics, export, deletion, the instructor's record of a learner, the catalog's
    progress) must neither show nor touch any of it."""
    from tests.steps import bystander_on

    return bystander_on(quiz)


@pytest.fixture
def among_others(request):
    """For a module of learner-scoped tests (`pytest.mark.usefixtures("among_others")`): each
    test of `learner` and `quiz` has the `bystander` beside them."""
    if {"learner", "quiz"} <= set(request.fixturenames):
        request.getfixturevalue("bystander")


@pytest.fixture
def instructor(db):
    return factories.make_instructor("Ustadha")


@pytest.fixture
def quiz(db):
    return factories.make_quiz(questions=3)


@pytest.fixture
def learner_client(learner):
    client = Client()
    client.force_login(learner)
    return client


@pytest.fixture
def csrf_client():
    """A client that enforces CSRF like a browser, for the tests where it matters."""
    return Client(enforce_csrf_checks=True)


@pytest.fixture
def seed_quizzes(db):
    call_command("seed_quizzes", verbosity=0)
    return list(Quiz.objects.order_by("slug"))


@pytest.fixture
def real_servers() -> None:
    """For tests that start their own PostgreSQL (.ci/postgres.sh, as root), Redis and
    gunicorn (bench/services.py): skipped on a laptop without them, failed in CI (CI=true),
    where .ci/system-packages installs them."""
    missing = missing_tools()
    if os.geteuid() != 0:
        missing.append("root (initdb runs as the postgres user)")
    if missing:
        message = f"needs {', '.join(missing)}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


# The LMS of the LTI tests (tests/lti/platform.py), here so that tests of limits elsewhere
# may launch too.
@pytest.fixture
def platform():
    test_platform = TestPlatform().start()
    yield test_platform
    test_platform.stop()


# The platform's other registration with Daleel (another tool registration of the same
# issuer, as Moodle makes one per course category): made first, so that a lookup that drops the
# client id, or takes the first of an issuer's registrations (by id or by client id), picks it
# and fails the launch.
OTHER_CLIENT_ID = "another-client"


@pytest.fixture
def registered(db, platform):
    """The test LMS registered with Daleel twice, each registration its own client id:
    `platform.client_id`'s (its launches) and OTHER_CLIENT_ID's (registered first)."""
    for client_id, name in [(OTHER_CLIENT_ID, "Test LMS, other"), (platform.client_id, "Test LMS")]:
        call_command(
            "lti_register",
            issuer=platform.issuer,
            client_id=client_id,
            deployment_id=platform.deployment_id,
            auth_url=platform.auth_url,
            token_url=platform.token_url,
            jwks_url=platform.jwks_url,
            name=name,
            base_url="http://testserver",
            stdout=open("/dev/null", "w"),  # noqa: SIM115
        )
    return platform
