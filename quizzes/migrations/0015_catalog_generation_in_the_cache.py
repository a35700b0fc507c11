"""The catalog's version moves to the cache: `quizzes.content.content_changed` bumps a
generation there once an edit commits (the pattern of djangoproject.com's dashboard). The
database's catalog triggers (0013, 0014) and their table go.

Backwards, the table and the triggers come back as 0013 and 0014 made them.
"""

from importlib import import_module

from django.db import migrations, models

first = import_module("quizzes.migrations.0013_catalog_changes")
commit_order = import_module("quizzes.migrations.0014_catalog_changes_in_commit_order")


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0014_catalog_changes_in_commit_order"),
    ]

    operations = [
        migrations.RunPython(commit_order.drop_triggers, commit_order.add_triggers),
        migrations.RunPython(first.drop_triggers, first.add_triggers),
        migrations.DeleteModel(name="CatalogChange"),
    ]
