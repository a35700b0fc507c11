"""The table of Django's database cache, which production uses when there is no Redis.

Made here rather than by `createcachetable` in every run and deploy step, so that `migrate`
is all a deployment needs. It is created whatever CACHES says when `migrate` runs, so a site
first migrated with DEBUG on (a memory cache) has the table when DEBUG is turned off.
"""

from django.core.management.commands.createcachetable import Command as CreateCacheTable
from django.db import migrations

TABLE = "daleel_cache"  # config/settings.py: CACHES["default"]["LOCATION"] without Redis


def create_table(apps, schema_editor):
    command = CreateCacheTable()
    command.verbosity = 0
    # Django's own schema for the table (it does nothing if the table exists).
    command.create_table(schema_editor.connection.alias, TABLE, dry_run=False)


def drop_table(apps, schema_editor):
    schema_editor.execute(f"DROP TABLE IF EXISTS {schema_editor.quote_name(TABLE)}")


class Migration(migrations.Migration):
    dependencies = []

    operations = [migrations.RunPython(create_table, drop_table)]
