"""The GIFT import page says what the importer does: every kind, imported as the page shows."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from quizzes.models import Question, Quiz
from tests.factories import make_guide

pytestmark = pytest.mark.django_db

PAGE = "/en/admin/quizzes/quiz/import/"

# The page's own examples, one question of each kind.
EXAMPLES = """\
$CATEGORY: Every kind

::one:: What does ZeRO-1 shard? {=optimizer states ~parameters ~activations}

::several:: What does recomputation trade? {~%50%memory ~%50%time ~%-50%accuracy ~%-50%data}

::truefalse:: Activations are kept for the backward pass. {T}

::number:: How many bytes does fp16 take? {#2}

::tolerance:: sqrt(2) to two places? {#1.41:0.005}

::range:: A number from 10 to 20? {#10..20}

::short:: What does ZeRO-1 shard? {=optimizer states =%50%states}

::matching:: Match each stage. {=ZeRO-1 -> optimizer states =ZeRO-2 -> gradients = -> training data}
"""


def test_the_import_page_lists_every_kind_it_imports(instructor_client):
    page = instructor_client.get(PAGE).content.decode()
    for words in ("one answer", "several answers", "true or false", "numbers"):
        assert words in page
    for words in ("Short answer:", "{=TCP =%50%tcp}", "Matching:", "= -> training data}"):
        assert words in page
    assert "numerical, matching" not in page  # the old list said numbers were skipped


def test_the_pages_examples_import_as_the_kinds_it_names(instructor_client):
    guide = make_guide(slug="memory")
    upload = SimpleUploadedFile("kinds.gift", EXAMPLES.encode(), content_type="text/plain")

    response = instructor_client.post(PAGE, {"file": upload, "guide": guide.pk})

    assert response.status_code == 302, response.content.decode()[-3000:]
    quiz = Quiz.objects.get(title_en="Every kind")
    kinds = list(quiz.questions.order_by("position").values_list("kind", flat=True))
    assert kinds == [
        "single",
        "multiple",
        "truefalse",
        "numerical",
        "numerical",
        "numerical",
        "short",
        "matching",
    ]
    several = quiz.questions.get(position=2)
    assert sorted(c.fraction for c in several.choices.all()) == [-0.5, -0.5, 0.5, 0.5]
    ranged = quiz.questions.get(position=6).numerical_answers.get()
    assert (ranged.value, ranged.tolerance) == (15, 5)
    short = quiz.questions.get(position=7).accepted_texts.order_by("position")
    assert [(t.text_en, t.fraction) for t in short] == [("optimizer states", 1), ("states", 0.5)]
    pairs = quiz.questions.get(position=8).pairs.order_by("position")
    assert [(p.prompt_en, p.match_en) for p in pairs] == [
        ("ZeRO-1", "optimizer states"),
        ("ZeRO-2", "gradients"),
        ("", "training data"),
    ]
    assert Question.objects.filter(quiz=quiz).count() == 8


def test_a_file_without_blank_lines_is_refused_with_every_error_listed_at_once(
    instructor_client,
):
    from tests.instructors.test_gift import WITHOUT_BLANK_LINES

    upload = SimpleUploadedFile("week3.gift", WITHOUT_BLANK_LINES.encode())

    response = instructor_client.post(PAGE, {"file": upload, "guide": make_guide().pk})

    page = response.content.decode()
    assert response.status_code == 200
    for line in (7, 11, 17):
        assert f"Line {line}: " in page
    assert not Quiz.objects.exists()
