"""N concurrent requests against each limit let exactly the limit through (N3: a request takes
its place before it is decided), with the cache in memory (as in one process) and on Django's
database cache (production without Redis); tests/outages/test_limits_through_outages.py runs
the same cases on a real Redis."""

from __future__ import annotations

import threading

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.signals import user_login_failed
from django.test import Client

from tests.factories import PASSWORD, make_user

from .limit_cases import AMOUNT, CASES, LTI_CASES, run_case

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("frozen_clock")]

DATABASE_CACHE = {
    "BACKEND": "django.core.cache.backends.db.DatabaseCache",
    "LOCATION": "daleel_cache",
}


@pytest.mark.parametrize("cache", ["memory", "database"])
@pytest.mark.parametrize("case", list(CASES))
def test_concurrent_requests_against_a_limit_pass_exactly_the_limit(case, cache, settings, request):
    if cache == "database":
        settings.CACHES = {**settings.CACHES, "default": DATABASE_CACHE}
    lms = request.getfixturevalue("registered") if case in LTI_CASES else None

    assert run_case(case, settings, lms) == AMOUNT


def test_a_sign_in_beside_a_failure_being_counted_waits_for_it_instead_of_counting_it_twice(
    settings,
):
    """A failed sign-in writes its failure, then gives back its place among those in flight;
    a second sign-in that looks in between sees it in both. It waits for the first to end and
    has its password checked (one failure counted, two allowed), where it was once refused
    unchecked. Its failure is the second: the lockout, answered 429 as it is counted."""
    settings.AXES_FAILURE_LIMIT = 2
    make_user("zaid")
    recorded, release = threading.Event(), threading.Event()
    statuses: dict[str, int] = {}

    def pause_the_first(sender, request=None, **kwargs):
        if request is not None and request.POST.get("password") == "wrong-first":
            recorded.set()  # django-axes has counted it (its receiver ran first)
            release.wait(timeout=10)

    def sign_in(password: str) -> None:
        client = Client(REMOTE_ADDR="203.0.113.9")
        fields = {"login": "zaid", "password": password}
        statuses[password] = client.post("/en/accounts/login/", fields).status_code

    user_login_failed.connect(pause_the_first, dispatch_uid="pause-the-first", weak=False)
    try:
        first = threading.Thread(target=sign_in, args=("wrong-first",))
        first.start()
        assert recorded.wait(timeout=10)
        second = threading.Thread(target=sign_in, args=("wrong-second",))
        second.start()
        second.join(timeout=0.5)  # long enough to look while the first is held
        release.set()
        first.join(timeout=10)
        second.join(timeout=10)
    finally:
        release.set()
        user_login_failed.disconnect(dispatch_uid="pause-the-first")

    assert statuses == {"wrong-first": 200, "wrong-second": 429}
    assert AccessAttempt.objects.get().failures_since_start == 2  # both passwords checked
    right = {"login": "zaid", "password": PASSWORD}
    assert Client(REMOTE_ADDR="203.0.113.9").post("/en/accounts/login/", right).status_code == 429
