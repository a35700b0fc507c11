"""An allauth email address for every account that has an address: primary and unverified.

Addresses were never verified before allauth, so none is taken as verified now: each learner
verifies theirs by link (a reset asked for an unverified address mails that link first).
"""

from django.db import migrations


def create_email_addresses(apps, schema_editor):
    User = apps.get_model("auth", "User")
    EmailAddress = apps.get_model("account", "EmailAddress")
    have = set(EmailAddress.objects.values_list("user_id", flat=True))
    addresses = [
        EmailAddress(user_id=pk, email=email.lower(), primary=True, verified=False)
        for pk, email in User.objects.exclude(email="")
        .exclude(pk__in=have)
        .order_by("pk")
        .values_list("pk", "email")
        .iterator()
    ]
    EmailAddress.objects.bulk_create(addresses, batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_time_zone_and_reminders"),
        ("account", "0009_emailaddress_unique_primary_email"),
    ]

    operations = [migrations.RunPython(create_email_addresses, migrations.RunPython.noop)]
