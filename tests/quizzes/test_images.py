"""Learners see the images of questions, choices and explanations: on a step, in the feedback,
on the result and in the instructor's preview, in English and Arabic."""

from __future__ import annotations

import io
import re

import pytest
from django.core.files.base import ContentFile
from PIL import Image

from quizzes.attempts.services import attempt_start
from quizzes.content import content_changed, quiz_content
from quizzes.models import Question, Quiz
from tests.factories import correct_choice, make_quiz
from tests.steps import post_answer

pytestmark = pytest.mark.django_db


def png(size=(64, 48), colour=(10, 120, 200)) -> ContentFile:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="PNG")
    return ContentFile(out.getvalue(), name="picture.png")


def images(html: str) -> list[dict[str, str]]:
    return [
        dict(re.findall(r'([\w-]+)="([^"]*)"', tag))
        for tag in re.findall(r"<img\b[^>]*>", html)
        if "content-image" in tag
    ]


@pytest.fixture
def pictured(db) -> Quiz:
    """A one-question quiz whose question, first choice and explanation have images."""
    quiz = make_quiz(questions=1)
    question = quiz.questions.get()
    question.image.save("q.png", png((64, 48)), save=False)
    question.image_alt_en = "A bar chart of memory per GPU."
    question.image_alt_ar = "مخطط أعمدة للذاكرة لكل وحدة معالجة."
    question.explanation_image.save("e.png", png((30, 20)), save=False)
    question.explanation_image_alt_en = "The same chart, halved."
    question.save()
    choice = question.choices.get(position=1)
    choice.image.save("c.png", png((16, 16)), save=False)
    choice.image_alt_en = "A small blue square."
    choice.image_alt_ar = "مربع أزرق صغير."
    choice.save()
    content_changed(quiz=quiz)
    return quiz


def start(client, quiz: Quiz) -> int:
    client.post(f"/en/quizzes/{quiz.slug}/start/")
    return quiz.attempts.latest("started_at").pk


def test_a_step_shows_the_question_and_choice_images_with_their_size_alt_and_lazy_loading(
    learner_client, pictured
):
    attempt = start(learner_client, pictured)
    page = learner_client.get(f"/en/attempts/{attempt}/questions/1/").content.decode()

    question = pictured.questions.get()
    shown = images(page)
    assert shown[0] == {
        "class": "content-image content-image--question",
        "src": question.image.url,
        "width": "64",
        "height": "48",
        "alt": "A bar chart of memory per GPU.",
        "loading": "lazy",
        "decoding": "async",
    }
    assert shown[0]["src"].startswith("/media/quizzes/")
    assert shown[1]["alt"] == "A small blue square."
    assert (shown[1]["width"], shown[1]["height"]) == ("16", "16")
    assert len(shown) == 2  # the explanation's waits for the feedback
    # The question's image follows its prompt; the choice's is inside its label.
    assert page.index("Question 1 prompt?") < page.index(question.image.url)
    label = re.search(r'<label class="choice choice--option">(.*?)</label>', page, re.S)
    assert label is not None
    assert "content-image--choice" in label.group(1)


def test_an_arabic_step_shows_the_arabic_alt_texts_and_falls_back_to_english(
    learner_client, pictured
):
    attempt = start(learner_client, pictured)
    page = learner_client.get(f"/ar/attempts/{attempt}/questions/1/").content.decode()

    shown = images(page)
    assert 'dir="rtl"' in page
    assert shown[0]["alt"] == "مخطط أعمدة للذاكرة لكل وحدة معالجة."
    assert shown[1]["alt"] == "مربع أزرق صغير."
    assert shown[0]["loading"] == "lazy"
    assert shown[0]["width"] == "64"

    question = pictured.questions.get()
    question.image_alt_ar = ""
    question.save()
    content_changed(quiz=pictured)
    page = learner_client.get(f"/ar/attempts/{attempt}/questions/1/").content.decode()
    assert images(page)[0]["alt"] == "A bar chart of memory per GPU."


def test_the_feedback_and_the_result_show_the_explanation_and_choice_images(
    learner, learner_client, pictured
):
    attempt = attempt_start(user=learner, quiz=pictured)
    question = pictured.questions.get()
    post_answer(attempt, question, choice=correct_choice(question))

    feedback = learner_client.get(f"/en/attempts/{attempt.pk}/questions/1/").content.decode()
    alts = [image["alt"] for image in images(feedback)]
    assert "The same chart, halved." in alts
    assert "A bar chart of memory per GPU." in alts

    learner_client.post(f"/en/attempts/{attempt.pk}/finish/")
    result = learner_client.get(f"/en/attempts/{attempt.pk}/result/").content.decode()
    alts = [image["alt"] for image in images(result)]
    assert "The same chart, halved." in alts
    assert "A bar chart of memory per GPU." in alts
    assert "A small blue square." in alts  # the choice picked, with its image


def test_a_new_image_shows_on_a_step_already_kept_in_the_cache(learner_client, pictured):
    attempt = start(learner_client, pictured)
    url = f"/en/attempts/{attempt}/questions/1/"
    before = images(learner_client.get(url).content.decode())[0]["src"]

    question = pictured.questions.get()
    question.image.save("new.png", png((100, 50)), save=True)
    content_changed(quiz=pictured)  # as the admin does after every save

    after = images(learner_client.get(url).content.decode())[0]
    assert after["src"] != before
    assert after["src"] == question.image.url
    assert after["width"] == "100"


def test_a_quiz_content_with_images_is_plain_data_built_once_per_version(pictured):
    question = quiz_content(pictured).questions[0]
    stored = pictured.questions.get()

    assert quiz_content(pictured).questions[0] is question  # kept, not copied or unpickled
    assert question.image.name == stored.image.name
    assert question.image.url == stored.image.url
    assert (question.image.width, question.image.height) == (64, 48)
    assert question.choices[0].image.name == stored.choices.get(position=1).image.name


def test_the_quiz_preview_shows_the_images(admin_client, pictured):
    page = admin_client.get(f"/en/admin/quizzes/quiz/{pictured.pk}/preview/1/").content.decode()

    alts = [image["alt"] for image in images(page)]
    assert alts == ["A bar chart of memory per GPU.", "A small blue square."]


def test_a_question_without_images_shows_none(learner_client, db):
    quiz = make_quiz(questions=1)
    attempt = start(learner_client, quiz)

    page = learner_client.get(f"/en/attempts/{attempt}/questions/1/").content.decode()

    assert images(page) == []
    assert not Question.objects.exclude(image="").exists()
