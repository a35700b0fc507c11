"""Search text with the broken plurals quizzes.search knows now («أسباب» as «سبب», «نتائج» as
«نتيجة», …). Rows written before keep the old stems until this runs."""

from django.db import migrations

from quizzes.search import search_text_restem


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0023_instructors_edit_typed_parts"),
    ]

    # Backwards, the old stems are not rebuilt: the previous code matches by substring, and
    # `search_text_refresh()` there rebuilds them.
    operations = [migrations.RunPython(search_text_restem, migrations.RunPython.noop)]
