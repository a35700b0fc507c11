import os

import pytest
from django.core.management import call_command
from django.test import Client
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from bench.services import missing_tools
from quizzes.models import Quiz

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
    from django.utils import translation

    from quizzes.content import content_cache_clear

    for alias in caches.all(initialized_only=True):
        alias.clear()
    content_cache_clear()  # ids and frozen clocks repeat from test to test
    translation.activate("en")
    yield
    translation.deactivate()
    for alias in caches.all(initialized_only=True):
        alias.clear()
    content_cache_clear()


@pytest.fixture(autouse=True)
def _media_in_a_temporary_folder(settings, tmp_path_factory):
    """Uploaded images go to a folder of the test's own, never the checkout's media/."""
    settings.MEDIA_ROOT = tmp_path_factory.mktemp("media")


@pytest.fixture
def learner(db):
    return factories.make_user("amina")


@pytest.fixture
def other_learner(db):
    return factories.make_user("bilal")


@pytest.fixture
def instructor(db):
    return factories.make_instructor("ustadha")


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
