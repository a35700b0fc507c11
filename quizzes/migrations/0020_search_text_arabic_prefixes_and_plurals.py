"""Search text with the Arabic stems of quizzes.search as they are now: stacked prefixes
(«وبالتجزئة»), ب, ل or ك without the article, and the glossary's broken plurals written as their
singulars («مراحل» as «مرحلة»). Rows written before keep the old stems until this runs."""

from django.db import migrations

from quizzes.search import search_text_restem


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0019_review_answer_ratings"),
    ]

    # Backwards, the old stems are not rebuilt: the previous code matches by substring, and
    # `search_text_refresh()` there rebuilds them.
    operations = [migrations.RunPython(search_text_restem, migrations.RunPython.noop)]
