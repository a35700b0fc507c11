"""Instructors' texts have a longest length, checked before anything is rendered: in the
admin's forms, the question preview and the GIFT import. The outside probe's inputs (issue 32)
are refused there with a clear message, quickly and with nothing rendered or written."""

from __future__ import annotations

import time

import pytest
from django.test import Client

from quizzes.instructors import preview
from quizzes.instructors.gift.format import MAX_ANSWERS
from quizzes.instructors.imports import GiftImportError, quiz_import_gift
from quizzes.models import Choice, Question, Quiz
from quizzes.text import TEXT_MAX_LENGTH
from tests.admin_posts import choice_rows, inline, page_errors, save_question
from tests.factories import make_quiz

pytestmark = pytest.mark.django_db

PREVIEW_URL = "/en/admin/quizzes/question/preview/"
# The probe's inputs.
BRACKETS = "[" * 200_000
DOLLARS = "$a" * 100_000
TABLE = "| a | b |\n|---|---|\n" + "| x | y |\n" * 100_000  # 1 MB
TOO_LONG = f"Ensure this value has at most {TEXT_MAX_LENGTH} characters"


@pytest.fixture
def render_calls(monkeypatch) -> list[str]:
    calls: list[str] = []
    render = preview.render_markdown

    def counted(text, *, lang):
        calls.append(text)
        return render(text, lang=lang)

    monkeypatch.setattr(preview, "render_markdown", counted)
    return calls


@pytest.fixture
def editor(instructor) -> Client:
    client = Client()
    client.force_login(instructor)
    return client


def _preview_form(quiz, **texts) -> dict:
    row = {"position": "1", "text_en": "Yes", "is_correct": "on"}
    for name, value in texts.items():
        if name.startswith("choice_"):
            row[name.removeprefix("choice_")] = value
    return (
        {
            "quiz": str(quiz.pk),
            "position": "9",
            "prompt_en": "Which?",
            "explanation_en": "Because.",
        }
        | {name: value for name, value in texts.items() if "choice_" not in name}
        | inline("choices", [row])
    )


@pytest.mark.parametrize(
    ("field", "text"),
    [
        ("prompt_en", BRACKETS),
        ("explanation_ar", DOLLARS),
        ("prompt_ar", TABLE),
        ("choice_feedback_en", BRACKETS),
        ("choice_text_en", "x" * 501),
    ],
    ids=["brackets-in-a-prompt", "dollars-in-an-explanation", "a-table", "feedback", "choice"],
)
def test_a_text_longer_than_its_field_takes_is_not_previewed_but_refused_quickly(
    editor, quiz, render_calls, field, text
):
    start = time.process_time()
    response = editor.post(
        PREVIEW_URL, _preview_form(quiz, **{field: text}), HTTP_HX_REQUEST="true"
    )
    seconds = time.process_time() - start

    html = response.content.decode()
    assert response.status_code == 200
    assert "characters; at most" in html and 'class="errorlist"' in html
    assert render_calls == []
    # Well under a second: the check reads the text's length, and renders nothing.
    assert seconds < 0.5


def test_a_preview_of_too_many_long_texts_together_is_refused(editor, quiz, render_calls):
    longest = "word " * (TEXT_MAX_LENGTH // 5)
    texts = {
        f"{base}_{code}": longest for base in ("prompt", "explanation") for code in ["en", "ar"]
    }
    texts["choice_feedback_en"] = "more"

    response = editor.post(PREVIEW_URL, _preview_form(quiz, **texts), HTTP_HX_REQUEST="true")

    assert "at most 40000 are previewed" in response.content.decode()
    assert render_calls == []


def test_a_text_of_the_longest_length_is_previewed(editor, quiz, render_calls):
    response = editor.post(
        PREVIEW_URL, _preview_form(quiz, prompt_en="a" * TEXT_MAX_LENGTH), HTTP_HX_REQUEST="true"
    )

    assert 'class="errorlist"' not in response.content.decode()
    assert "a" * TEXT_MAX_LENGTH in response.content.decode()


@pytest.mark.parametrize("field", ["prompt_en", "explanation_ar"])
def test_the_question_page_refuses_a_text_past_the_longest_length(admin_client, field):
    question = make_quiz(questions=1, choices=2, correct=1).questions.get()
    before = Question.objects.values_list("prompt_en", "explanation_ar").get()

    response = save_question(
        admin_client, question, choice_rows(question), **{field: "x" * (TEXT_MAX_LENGTH + 1)}
    )

    assert response.status_code == 200
    assert TOO_LONG in response.content.decode()
    assert Question.objects.values_list("prompt_en", "explanation_ar").get() == before


def test_the_question_page_refuses_a_choice_feedback_past_the_longest_length(admin_client):
    question = make_quiz(questions=1, choices=2, correct=1).questions.get()
    rows = choice_rows(question)
    rows[0]["feedback_en"] = BRACKETS

    response = save_question(admin_client, question, rows)

    assert TOO_LONG in response.content.decode()
    assert not Choice.objects.filter(feedback_en=BRACKETS).exists()


def test_the_question_page_saves_a_text_of_the_longest_length(admin_client):
    question = make_quiz(questions=1, choices=2, correct=1).questions.get()

    response = save_question(
        admin_client, question, choice_rows(question), prompt_en="y" * TEXT_MAX_LENGTH
    )

    assert response.status_code == 302, page_errors(response)
    question.refresh_from_db()
    assert question.prompt_en == "y" * TEXT_MAX_LENGTH


def test_the_quiz_page_refuses_a_description_past_the_longest_length(admin_client, quiz):
    response = admin_client.post(
        f"/en/admin/quizzes/quiz/{quiz.pk}/change/",
        {
            "title_en": quiz.title_en,
            "slug": quiz.slug,
            "difficulty": quiz.difficulty,
            "guide": str(quiz.guide_id),
            "feedback": quiz.feedback,
            "confidence": "off",
            "description_en": TABLE,
        }
        | inline("overrides", [])
        | inline("questions", []),
    )

    assert TOO_LONG in response.content.decode()
    assert Quiz.objects.get(pk=quiz.pk).description_en != TABLE


@pytest.mark.parametrize(
    ("gift", "message"),
    [
        (f"::q::[markdown]{BRACKETS}{{=a ~b}}", "The question's text has 200000 characters"),
        (
            "::q::What?{=a ~b ####" + DOLLARS.replace("=", "\\=") + "}",
            "A feedback text has 300000 characters; at most 10000",
        ),
        ("::q::[markdown]" + TABLE.replace("|", "\\|") + "{=a ~b}", "characters; at most 10000"),
        ("Q?{=a" + " ~b" * 629_000 + "}", f"has 629001 answers; at most {MAX_ANSWERS} are"),
        ("Q?{#" + "=1:1" * 629_000 + "}", f"has 629000 answers; at most {MAX_ANSWERS} are"),
        ("Q?{=a ~b}\n\n" * 150_000, "The file has more than 1000 questions"),
    ],
    ids=["brackets", "dollars", "a-table", "answers", "numbers", "tiny-questions"],
)
def test_the_importer_refuses_the_probes_files_quickly_and_writes_nothing(gift, message):
    start = time.process_time()
    with pytest.raises(GiftImportError) as refused:
        quiz_import_gift(text=gift)
    seconds = time.process_time() - start

    assert message in str(refused.value)
    assert (Quiz.objects.count(), Question.objects.count()) == (0, 0)
    # Refused while the file is scanned: the limits are read before the answers are.
    assert seconds < 1


def test_a_choice_field_in_a_language_the_site_has_not_is_ignored(editor, quiz, render_calls):
    response = editor.post(
        PREVIEW_URL, _preview_form(quiz, choice_text_zz=BRACKETS), HTTP_HX_REQUEST="true"
    )

    assert response.status_code == 200
    assert 'class="errorlist"' not in response.content.decode()
    assert BRACKETS not in render_calls
