"""A `sub` of any length (keyed by its digest), logins' state and nonce in rows of their own,
instructors' scores sent only where the registration asks."""

import hashlib

import django.db.models.deletion
from django.db import migrations, models


def digests(apps, schema_editor):
    LtiIdentity = apps.get_model("lti", "LtiIdentity")
    for identity in LtiIdentity.objects.only("pk", "sub").iterator():
        digest = hashlib.sha256(identity.sub.encode()).hexdigest()
        LtiIdentity.objects.filter(pk=identity.pk).update(sub_digest=digest)


class Migration(migrations.Migration):
    dependencies = [("lti", "0004_score_post_sending")]

    operations = [
        migrations.AddField(
            model_name="registration",
            name="instructor_grades",
            field=models.BooleanField(
                default=False,
                help_text=(
                    "Off: only learners' attempts send a score to the platform's grade book "
                    "(many platforms refuse grades for instructors)."
                ),
                verbose_name="send instructors' scores too",
            ),
        ),
        migrations.AddField(
            model_name="gradelink",
            name="for_instructor",
            field=models.BooleanField(default=False, verbose_name="launched as an instructor"),
        ),
        migrations.AlterField(
            model_name="gradelink",
            name="sub",
            field=models.TextField(verbose_name="subject"),
        ),
        migrations.AddField(
            model_name="ltiidentity",
            name="sub_digest",
            field=models.CharField(
                default="", editable=False, max_length=64, verbose_name="subject's SHA-256"
            ),
            preserve_default=False,
        ),
        migrations.RunPython(digests, migrations.RunPython.noop),
        migrations.RemoveConstraint(model_name="ltiidentity", name="lti_one_user_per_sub"),
        migrations.AlterField(
            model_name="ltiidentity",
            name="sub",
            field=models.TextField(verbose_name="subject"),
        ),
        migrations.AddConstraint(
            model_name="ltiidentity",
            constraint=models.UniqueConstraint(
                fields=("issuer", "sub_digest"), name="lti_one_user_per_sub_digest"
            ),
        ),
        migrations.CreateModel(
            name="PendingLogin",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("state", models.CharField(max_length=100, unique=True)),
                ("nonce", models.CharField(max_length=100, unique=True)),
                ("expires_at", models.DateTimeField(db_index=True)),
                (
                    "registration",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, to="lti.registration"
                    ),
                ),
            ],
        ),
    ]
