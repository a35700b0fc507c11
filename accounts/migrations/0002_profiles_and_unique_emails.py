"""A profile for every existing account, and one account per email address (case-insensitive).

Django's user model cannot declare a constraint on `auth_user` from this app, but the database
can hold one: a unique index on LOWER(email) for the non-empty addresses, on SQLite and
PostgreSQL alike. The forms check first and say so clearly; the index settles races.
"""

from django.db import migrations

INDEX = "accounts_user_email_ci_unique"


def create_profiles(apps, schema_editor):
    from accounts.usernames import skeleton

    User = apps.get_model("auth", "User")
    Profile = apps.get_model("accounts", "Profile")
    seen = set(Profile.objects.values_list("username_skeleton", flat=True))
    have = set(Profile.objects.values_list("user_id", flat=True))
    profiles = []
    for user in User.objects.order_by("pk").exclude(pk__in=have).iterator():
        key = skeleton(user.username)
        # The earliest of look-alike accounts keeps the skeleton; later ones are grandfathered.
        profiles.append(Profile(user=user, username_skeleton="" if key in seen else key))
        seen.add(key)
    Profile.objects.bulk_create(profiles, batch_size=500)


def unique_emails(apps, schema_editor):
    User = apps.get_model("auth", "User")
    table = schema_editor.quote_name(User._meta.db_table)
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            f"SELECT LOWER(email) FROM {table} WHERE email <> '' "
            "GROUP BY LOWER(email) HAVING COUNT(*) > 1"
        )
        shared = [row[0] for row in cursor.fetchall()]
    if shared:
        raise RuntimeError(
            "Several accounts share an email address, which must be unique now: "
            f"{', '.join(shared)}. Change or clear all but one of each in the admin "
            "(Users), then migrate again."
        )
    schema_editor.execute(
        f"CREATE UNIQUE INDEX {schema_editor.quote_name(INDEX)} ON {table} (LOWER(email)) "
        "WHERE email <> ''"
    )


def drop_unique_emails(apps, schema_editor):
    schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(INDEX)}")


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_profile"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.RunPython(create_profiles, migrations.RunPython.noop),
        migrations.RunPython(unique_emails, drop_unique_emails),
    ]
