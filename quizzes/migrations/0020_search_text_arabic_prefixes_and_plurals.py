"""Search text with the Arabic stems of quizzes.search as they are now: stacked prefixes
(«وبالتجزئة»), ب, ل or ك without the article, and the glossary's broken plurals written as their
singulars («مراحل» as «مرحلة»). Rows written before keep the old stems until this runs."""

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
        ("quizzes", "0019_review_answer_ratings"),
    ]

    # Backwards, the old stems are not rebuilt: the previous code matches by substring, and
    # `search_text_refresh()` there rebuilds them.
    operations = [migrations.RunPython(restem, migrations.RunPython.noop)]
