from django.contrib.auth.management import create_permissions
from django.db import migrations

INSTRUCTORS = "Instructors"
CODENAMES = ["view_questionreport", "change_questionreport"]


def grant(apps, schema_editor):
    # Permissions are normally created after all migrations; instructors need them now.
    app_config = apps.get_app_config("quizzes")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=INSTRUCTORS).first()
    if group is not None:
        group.permissions.add(
            *Permission.objects.filter(content_type__app_label="quizzes", codename__in=CODENAMES)
        )


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group = Group.objects.filter(name=INSTRUCTORS).first()
    if group is not None:
        group.permissions.remove(
            *Permission.objects.filter(content_type__app_label="quizzes", codename__in=CODENAMES)
        )


class Migration(migrations.Migration):
    dependencies = [("quizzes", "0006_question_reports")]

    operations = [migrations.RunPython(grant, revoke)]
