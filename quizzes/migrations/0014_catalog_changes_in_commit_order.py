"""The catalog's version follows the order in which writes commit, and its table keeps only
the newest row (quizzes.models.CatalogChange; the triggers of 0013 stay as they are).

On PostgreSQL a row's id is given when its statement runs, not when its transaction commits:
a transaction that wrote first and commits last left the newest id unchanged, so its change
did not show until the next write. Now, as each transaction that added rows commits, a
deferred trigger adds one more under a lock held until the commit ends (concurrent commits
take their ids in turn), and deletes the rows before it. A transaction still sees its own
rows before it commits (0013's triggers run at once).

SQLite has one writer at a time, so its ids already come in commit order; a trigger there
deletes the rows before each new one.
"""

from django.db import migrations

POSTGRESQL_FUNCTION = """
CREATE FUNCTION quizzes_catalog_committed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    -- The row this transaction added at its commit, if it did already: rows before it are
    -- covered by it. (Deferred triggers also run early, at SET CONSTRAINTS ALL IMMEDIATE, as
    -- loaddata asks; rows added after that get a row of their own at the commit.)
    covered_to bigint := nullif(current_setting('daleel.catalog_committed', true), '')::bigint;
    newest bigint;
BEGIN
    IF covered_to IS NOT NULL AND NEW.id <= covered_to THEN
        RETURN NULL;
    END IF;
    -- Held until this transaction ends: the next commit takes its id after this one's.
    PERFORM pg_advisory_xact_lock('quizzes_catalogchange'::regclass::oid::bigint);
    newest := nextval(pg_get_serial_sequence('quizzes_catalogchange', 'id'));
    -- Before the INSERT: run at once (SET CONSTRAINTS ALL IMMEDIATE), its own trigger would
    -- otherwise call this again, without end.
    PERFORM set_config('daleel.catalog_committed', newest::text, true);
    INSERT INTO quizzes_catalogchange (id, token) VALUES (newest, floor(random() * 9e18)::bigint);
    -- Rows of transactions still running are not seen, so not deleted: each gets its turn.
    DELETE FROM quizzes_catalogchange WHERE id < newest;
    RETURN NULL;
END
$$
"""

POSTGRESQL_ADD = [
    POSTGRESQL_FUNCTION,
    "CREATE CONSTRAINT TRIGGER quizzes_catalogchange_at_commit "
    "AFTER INSERT ON quizzes_catalogchange DEFERRABLE INITIALLY DEFERRED "
    "FOR EACH ROW EXECUTE FUNCTION quizzes_catalog_committed()",
]
POSTGRESQL_DROP = [
    "DROP TRIGGER IF EXISTS quizzes_catalogchange_at_commit ON quizzes_catalogchange",
    "DROP FUNCTION IF EXISTS quizzes_catalog_committed()",
]
SQLITE_ADD = [
    "CREATE TRIGGER quizzes_catalogchange_keeps_newest AFTER INSERT ON quizzes_catalogchange "
    "BEGIN DELETE FROM quizzes_catalogchange WHERE id < NEW.id; END",
]
SQLITE_DROP = ["DROP TRIGGER IF EXISTS quizzes_catalogchange_keeps_newest"]


def _run(statements: dict[str, list[str]], schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor not in statements:
        raise NotImplementedError(f"No catalog triggers for {vendor}: see this migration.")
    for statement in statements[vendor]:
        schema_editor.execute(statement)


def add_triggers(apps, schema_editor):
    _run({"postgresql": POSTGRESQL_ADD, "sqlite": SQLITE_ADD}, schema_editor)


def drop_triggers(apps, schema_editor):
    _run({"postgresql": POSTGRESQL_DROP, "sqlite": SQLITE_DROP}, schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0013_catalog_changes"),
    ]

    operations = [
        migrations.RunPython(add_triggers, drop_triggers),
    ]
