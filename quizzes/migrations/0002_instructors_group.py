from django.contrib.auth.management import create_permissions
from django.db import migrations

INSTRUCTORS = "Instructors"
EDITABLE = ["guide", "quiz", "question", "choice"]
VIEWABLE = ["attempt", "answer"]


def create_instructors_group(apps, schema_editor):
    # Permissions are normally created after all migrations; instructors need them now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None

    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    codenames = [
        f"{action}_{model}" for model in EDITABLE for action in ("add", "change", "delete", "view")
    ] + [f"view_{model}" for model in VIEWABLE]
    group, _created = Group.objects.get_or_create(name=INSTRUCTORS)
    group.permissions.set(
        Permission.objects.filter(content_type__app_label="quizzes", codename__in=codenames)
    )


def remove_instructors_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=INSTRUCTORS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_instructors_group, remove_instructors_group)]
