"""Search text with the broken plurals quizzes.search knows now («أسباب» as «سبب», «نتائج» as
«نتيجة», …). Rows written before keep the old stems until this runs."""

from django.db import migrations

from quizzes.search import search_text_for


def restem(apps, schema_editor):
    Quiz = apps.get_model("quizzes", "Quiz")
    changed = []
    for quiz in Quiz.objects.iterator(chunk_size=2000):
        text = search_text_for(quiz)
        if text != quiz.search_text:
            quiz.search_text = text
            changed.append(quiz)
    Quiz.objects.bulk_update(changed, ["search_text"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0023_instructors_edit_typed_parts"),
    ]

    # Backwards, the old stems are not rebuilt: the previous code matches by substring, and
    # `search_text_refresh()` there rebuilds them.
    operations = [migrations.RunPython(restem, migrations.RunPython.noop)]
