"""Search text in its stemmed form (quizzes.search): titles' tokens, then descriptions',
each word as typed and as its stem. Rows written before keep the old form until this runs."""

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
        ("quizzes", "0016_question_draws"),
    ]

    # Backwards, the old form is not rebuilt: the previous code reads it only by substring,
    # and `search_text_refresh()` there rebuilds it.
    operations = [migrations.RunPython(restem, migrations.RunPython.noop)]
