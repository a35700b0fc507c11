"""N concurrent requests against each limit let exactly the limit through (N3: a request takes
its place before it is decided), with the cache in memory (as in one process) and on Django's
database cache (production without Redis); tests/outages/test_limits_through_outages.py runs
the same cases on a real Redis."""

from __future__ import annotations

import pytest

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
