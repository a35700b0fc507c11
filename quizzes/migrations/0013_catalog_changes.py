"""The catalog's version, written by the database (quizzes.models.CatalogChange).

Triggers add a row to quizzes_catalogchange after every write that may change a listing, in
the writing transaction and whatever wrote it. On PostgreSQL one row per statement (a bulk
insert of 10,000 quizzes adds one), appended only, so concurrent writers never wait on each
other for it; SQLite has row triggers only, and one writer at a time.

They replace reading a count of the published quizzes and the newest edit on every catalog
request, which grew with the catalog (the index of the newest edit is dropped).
"""

from django.db import migrations, models

# What a listing shows: a quiz's own columns, its guide's, and its number of questions.
WATCHED = [
    ("quizzes_quiz", ("INSERT", "UPDATE", "DELETE")),
    ("quizzes_guide", ("INSERT", "UPDATE", "DELETE")),
    ("quizzes_question", ("INSERT", "UPDATE OF quiz_id", "DELETE")),
]


def _name(table: str, event: str) -> str:
    return f"{table}_{event.split()[0].lower()}_changes_catalog"


POSTGRESQL_FUNCTION = """
CREATE FUNCTION quizzes_catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO quizzes_catalogchange (token) VALUES (floor(random() * 9e18)::bigint);
    RETURN NULL;
END
$$
"""


def _statements(vendor: str) -> tuple[list[str], list[str]]:
    """The statements that add the triggers, and those that drop them."""
    add, drop = [], []
    if vendor == "postgresql":
        add.append(POSTGRESQL_FUNCTION)
        for table, events in WATCHED:
            name = f"{table}_changes_catalog"
            add.append(
                f"CREATE TRIGGER {name} AFTER {' OR '.join(events)} ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION quizzes_catalog_changed()"
            )
            drop.append(f"DROP TRIGGER IF EXISTS {name} ON {table}")
        drop.append("DROP FUNCTION IF EXISTS quizzes_catalog_changed()")
    elif vendor == "sqlite":
        for table, events in WATCHED:
            for event in events:
                name = _name(table, event)
                add.append(
                    f"CREATE TRIGGER {name} AFTER {event} ON {table} FOR EACH ROW BEGIN "
                    "INSERT INTO quizzes_catalogchange (token) VALUES (random()); END"
                )
                drop.append(f"DROP TRIGGER IF EXISTS {name}")
    else:
        raise NotImplementedError(f"No catalog triggers for {vendor}: see this migration.")
    return add, drop


def add_triggers(apps, schema_editor):
    for statement in _statements(schema_editor.connection.vendor)[0]:
        schema_editor.execute(statement)


def drop_triggers(apps, schema_editor):
    for statement in _statements(schema_editor.connection.vendor)[1]:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0012_catalog_version_index"),
    ]

    operations = [
        migrations.CreateModel(
            name="CatalogChange",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("token", models.BigIntegerField()),
            ],
            options={
                "verbose_name": "catalog change",
                "verbose_name_plural": "catalog changes",
            },
        ),
        migrations.RunPython(add_triggers, drop_triggers),
        migrations.RemoveIndex(model_name="quiz", name="quiz_updated_at"),
    ]
