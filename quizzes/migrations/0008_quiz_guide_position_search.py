from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations, models
from django.db.models.functions import Coalesce, NullIf

from quizzes.search import search_text_for

# On PostgreSQL only: a trigram index answers the catalog's substring search (LIKE '%word%')
# without reading every quiz. SQLite has no such index and reads the table, with the same
# results. It is not in Quiz.Meta.indexes, which every database would be asked to create.
SEARCH_INDEX = GinIndex(
    fields=["search_text"], opclasses=["gin_trgm_ops"], name="quiz_search_text_trgm"
)


def number_and_index(apps, schema_editor):
    """Number each guide's quizzes by title and fill in their search text."""
    Quiz = apps.get_model("quizzes", "Quiz")
    position = {}
    quizzes = list(Quiz.objects.order_by("guide_id", "title_en", "pk"))
    for quiz in quizzes:
        position[quiz.guide_id] = position.get(quiz.guide_id, 0) + 1
        quiz.guide_position = position[quiz.guide_id]
        quiz.search_text = search_text_for(quiz)
    Quiz.objects.bulk_update(quizzes, ["guide_position", "search_text"], batch_size=500)


def add_search_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.add_index(apps.get_model("quizzes", "Quiz"), SEARCH_INDEX)


def remove_search_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.remove_index(apps.get_model("quizzes", "Quiz"), SEARCH_INDEX)


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0007_instructors_see_reports"),
    ]

    operations = [
        migrations.AddField(
            model_name="quiz",
            name="guide_position",
            field=models.PositiveSmallIntegerField(
                default=0,
                help_text="Quizzes of a guide are listed by this number, then by title.",
                verbose_name="position in the guide",
            ),
        ),
        migrations.AddField(
            model_name="quiz",
            name="search_text",
            field=models.TextField(
                blank=True, default="", editable=False, verbose_name="search text"
            ),
        ),
        migrations.AddIndex(
            model_name="quiz",
            index=models.Index(models.F("title_en"), models.F("id"), name="quiz_catalog_order_en"),
        ),
        migrations.AddIndex(
            model_name="quiz",
            index=models.Index(
                Coalesce(
                    NullIf(models.F("title_ar"), models.Value("")),
                    models.F("title_en"),
                    output_field=models.CharField(),
                ),
                models.F("id"),
                name="quiz_catalog_order_ar",
            ),
        ),
        migrations.AddIndex(
            model_name="quiz",
            index=models.Index(
                condition=models.Q(("is_published", True)), fields=["id"], name="quiz_published"
            ),
        ),
        migrations.RunPython(number_and_index, migrations.RunPython.noop),
        # Does nothing on other databases.
        TrigramExtension(),
        migrations.RunPython(add_search_index, remove_search_index),
    ]
