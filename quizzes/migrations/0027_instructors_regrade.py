from django.contrib.auth.management import create_permissions
from django.db import migrations

INSTRUCTORS = "Instructors"
# Regrading needs these besides changing questions and viewing attempts (which instructors
# have): adding a regrade, and reading the trail of regrades and the answers they changed.
CODENAMES = [
    "add_regrade",
    "view_regrade",
    "view_regradedanswer",
    "view_regradedattempt",
]


def grant(apps, schema_editor):
    # Permissions are normally created after all migrations; instructors need them now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _created = Group.objects.get_or_create(name=INSTRUCTORS)
    group.permissions.add(
        *Permission.objects.filter(content_type__app_label="quizzes", codename__in=CODENAMES)
    )


def revoke(apps, schema_editor):
    Permission = apps.get_model("auth", "Permission")
    for group in apps.get_model("auth", "Group").objects.filter(name=INSTRUCTORS):
        group.permissions.remove(
            *Permission.objects.filter(content_type__app_label="quizzes", codename__in=CODENAMES)
        )


class Migration(migrations.Migration):
    """Instructors regrade their quizzes' answers after fixing a key, and read the trail."""

    dependencies = [("quizzes", "0026_regrades")]

    operations = [migrations.RunPython(grant, revoke)]
