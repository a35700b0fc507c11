from django.contrib.auth.management import create_permissions
from django.db import migrations

INSTRUCTORS = "Instructors"
ACTIONS = ("add", "change", "delete", "view")
MODELS = ("acceptedtext", "matchpair", "orderitem")
CODENAMES = [f"{action}_{model}" for action in ACTIONS for model in MODELS]


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
    """Instructors write the accepted answers, pairs and items of short-answer, matching and
    ordering questions, as they write choices and accepted numbers."""

    dependencies = [("quizzes", "0022_seed_additions")]

    operations = [migrations.RunPython(grant, revoke)]
