from django.contrib.auth.management import create_permissions
from django.db import migrations

INSTRUCTORS = "Instructors"
# Instructors see which scores reached the platforms (and why not), and choose per quiz which
# attempt counts; registrations and keys stay with administrators.
CODENAMES = [
    "view_scorepost",
    "view_quizgrading",
    "add_quizgrading",
    "change_quizgrading",
]


def grant(apps, schema_editor):
    # Permissions are normally created after all migrations; instructors need them now.
    app_config = apps.get_app_config("lti")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=INSTRUCTORS).first()
    if group is not None:
        group.permissions.add(
            *Permission.objects.filter(content_type__app_label="lti", codename__in=CODENAMES)
        )


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=INSTRUCTORS).first()
    if group is not None:
        group.permissions.remove(
            *Permission.objects.filter(content_type__app_label="lti", codename__in=CODENAMES)
        )


class Migration(migrations.Migration):
    dependencies = [("lti", "0001_initial"), ("quizzes", "0002_instructors_group")]

    operations = [migrations.RunPython(grant, revoke)]
