"""`manage.py check_images`: after a restore, every image the quizzes name is in the store."""

import json

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command

from tests.factories import make_quiz
from tests.instructors.test_images import png

pytestmark = pytest.mark.django_db


def test_every_image_named_by_a_question_or_choice_is_found_or_named_missing(capsys):
    quiz = make_quiz(questions=2)
    first, second = quiz.questions.order_by("position")
    first.image.save("a.png", ContentFile(png()), save=True)
    first.explanation_image.save("b.png", ContentFile(png()), save=True)
    choice = second.choices.first()
    choice.image.save("c.png", ContentFile(png()), save=True)

    call_command("check_images")
    assert json.loads(capsys.readouterr().out) == {"images": 3, "missing": 0}

    default_storage.delete(choice.image.name)
    with pytest.raises(CommandError, match="1 of 3 images are missing"):
        call_command("check_images")
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"images": 3, "missing": 1}
    assert f"missing: {choice.image.name} (Choice.image)" in captured.err
