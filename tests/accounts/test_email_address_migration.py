"""accounts 0005: every existing account with an address gets allauth's record of it, primary
and unverified (verified later by link); accounts without one get none."""

import pytest
from allauth.account.models import EmailAddress
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [
    ("accounts", "0004_time_zone_and_reminders"),
    ("account", "0009_emailaddress_unique_primary_email"),
]


@pytest.mark.django_db(transaction=True)
def test_existing_addresses_become_primary_unverified_email_addresses():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    User = old.get_model("auth", "User")
    huda = User.objects.create(username="huda", email="Huda@Example.org")
    User.objects.create(username="sami", email="")

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    assert list(EmailAddress.objects.values_list("user_id", "email", "primary", "verified")) == [
        (huda.pk, "huda@example.org", True, False)
    ]
