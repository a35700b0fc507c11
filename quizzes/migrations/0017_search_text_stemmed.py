"""Search text in its stemmed form (quizzes.search): titles' tokens, then descriptions',
each word as typed and as its stem. Rows written before keep the old form until this runs."""

from django.db import migrations

from quizzes.search import search_text_restem


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0016_question_draws"),
    ]

    # Backwards, the old form is not rebuilt: the previous code reads it only by substring,
    # and `search_text_refresh()` there rebuilds it.
    operations = [migrations.RunPython(search_text_restem, migrations.RunPython.noop)]
