"""The catalog's version lives in the cache (quizzes.content.catalog_generation): after
`migrate`, the database has no trigger of ours, on SQLite or PostgreSQL (migration 0015
dropped those of 0013 and 0014)."""

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def test_the_migrated_database_has_no_trigger():
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal"
                " UNION ALL SELECT proname FROM pg_proc WHERE proname LIKE 'quizzes_catalog%%'"
            )
        else:
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        assert cursor.fetchall() == []
