"""Usernames' skeletons recomputed, confusables before case folding, with the case-folded
name's skeleton beside them; and a profile for every account made without one (createsuperuser,
the admin and the shell made none before accounts.signals).

The earliest of look-alike accounts keeps its skeletons; later ones are grandfathered
without them (they still sign in; nobody may take a name like theirs or the first's).
"""

from django.conf import settings
from django.db import migrations, models


def recompute_skeletons(apps, schema_editor):
    from accounts.usernames import skeletons

    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Profile = apps.get_model("accounts", "Profile")
    # Cleared first: the constraint on the one column holds only non-empty skeletons.
    Profile.objects.update(username_skeleton="", username_folded_skeleton="")
    profiles = {profile.user_id: profile for profile in Profile.objects.all()}
    seen: set[str] = set()
    new, changed = [], []
    for user in User.objects.order_by("pk").iterator():
        keys = skeletons(getattr(user, User.USERNAME_FIELD))
        plain, folded = ("", "") if seen.intersection(keys) else keys
        seen.update(keys)
        profile = profiles.get(user.pk)
        if profile is None:
            new.append(Profile(user=user, username_skeleton=plain, username_folded_skeleton=folded))
        elif plain:
            profile.username_skeleton, profile.username_folded_skeleton = plain, folded
            changed.append(profile)
    Profile.objects.bulk_update(
        changed, ["username_skeleton", "username_folded_skeleton"], batch_size=500
    )
    Profile.objects.bulk_create(new, batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_profiles_and_unique_emails"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="username_folded_skeleton",
            field=models.CharField(blank=True, default="", editable=False, max_length=600),
        ),
        migrations.RunPython(recompute_skeletons, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="profile",
            constraint=models.UniqueConstraint(
                condition=models.Q(("username_folded_skeleton", ""), _negated=True),
                fields=("username_folded_skeleton",),
                name="one_account_per_folded_username_skeleton",
            ),
        ),
    ]
