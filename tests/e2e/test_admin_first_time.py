"""What a new instructor tripped on in the admin (issue 45), in real Chromium: an image chosen
on a page refused for another reason, true or false and the sections each kind uses, the
quiz page's question images, and positions that "Add another" used to renumber from 0."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from playwright.sync_api import BrowserContext, Page, expect

from quizzes.models import Question
from tests import factories

from .support import sign_in
from .test_csp import _RECORD_VIOLATIONS, _violations


def _png() -> dict:
    out = io.BytesIO()
    Image.new("RGB", (60, 40), (20, 60, 160)).save(out, format="PNG")
    return {"name": "figure.png", "mimeType": "image/png", "buffer": out.getvalue()}


@pytest.fixture
def admin(context: BrowserContext, live_server, transactional_db):
    # An administrator: earlier browser tests flush the Instructors group away.
    user = factories.make_user("admin", is_staff=True, is_superuser=True)
    sign_in(context, live_server.url, user)
    return user


def _save(page: Page) -> None:
    page.get_by_role("button", name="Save", exact=True).click()


def test_an_image_chosen_before_a_refusal_is_asked_for_again_and_then_saved(page: Page, admin):
    quiz = factories.make_quiz(questions=1)
    page.goto(f"/en/admin/quizzes/question/add/?quiz={quiz.pk}")
    page.fill("#id_prompt_en", "What does the figure show?")
    page.fill("#id_explanation_en", "A blue square.")
    page.set_input_files("#id_image", files=[_png()])
    page.fill("#id_image_alt_en", "A blue square.")
    for index, text in enumerate(["A square", "A circle"]):
        page.locator("#choices-group").get_by_role("button", name="Add a choice").click()
        page.fill(f"#id_choices-{index}-text_en", text)
    _save(page)  # "Correct" forgotten

    # Said beside the image field, not lost in silence; the alt text typed is still there.
    expect(page.locator(".errornote")).to_be_visible()
    image_row = page.locator(".form-row.field-image")
    expect(image_row.locator(".errorlist")).to_contain_text("Choose this image again")
    expect(page.locator("#id_image_alt_en")).to_have_value("A blue square.")
    assert not Question.objects.filter(prompt_en="What does the figure show?").exists()

    # Saved without choosing it again: the alt text alone is refused.
    page.check("#id_choices-0-is_correct")
    _save(page)
    expect(page.locator(".form-row.field-image_alt_en .errorlist")).to_contain_text(
        "This text describes an image, and there is none"
    )
    assert not Question.objects.filter(prompt_en="What does the figure show?").exists()

    page.set_input_files("#id_image", files=[_png()])
    _save(page)
    expect(page.locator(".messagelist .success")).to_contain_text("was added successfully")
    question = Question.objects.get(prompt_en="What does the figure show?")
    assert question.image and question.image_alt_en == "A blue square."
    assert (question.image_width, question.image_height) == (60, 40)


def test_true_or_false_makes_its_two_choices_and_each_kind_shows_only_its_sections(
    page: Page, admin, console_errors
):
    quiz = factories.make_quiz(questions=1)
    page.add_init_script(_RECORD_VIOLATIONS)
    page.goto(f"/en/admin/quizzes/question/add/?quiz={quiz.pk}")
    choices, numbers = page.locator("#choices-group"), page.locator("#numerical_answers-group")
    # One answer, the default: choices, and no accepted numbers.
    expect(choices).to_be_visible()
    expect(numbers).to_be_hidden()

    page.select_option("#id_kind", "numerical")
    expect(choices).to_be_hidden()
    expect(numbers).to_be_visible()

    page.select_option("#id_kind", "truefalse")
    expect(choices).to_be_visible()
    expect(numbers).to_be_hidden()
    expect(page.locator("#id_choices-0-text_en")).to_have_value("True")
    expect(page.locator("#id_choices-0-text_ar")).to_have_value("صواب")
    expect(page.locator("#id_choices-1-text_en")).to_have_value("False")
    expect(page.locator("#id_choices-1-text_ar")).to_have_value("خطأ")
    expect(page.locator("#id_choices-2-text_en")).to_have_count(0)

    page.fill("#id_prompt_en", "ZeRO-3 shards the parameters.")
    page.fill("#id_explanation_en", "Stage 3 adds the parameters.")
    page.check("#id_choices-0-is_correct")  # the right one, ticked by the instructor
    _save(page)

    expect(page.locator(".messagelist .success")).to_contain_text("was added successfully")
    question = Question.objects.get(prompt_en="ZeRO-3 shards the parameters.")
    assert question.kind == "truefalse"
    choices = question.choices.order_by("position")
    assert [(c.text_en, c.text_ar, c.is_correct) for c in choices] == [
        ("True", "صواب", True),
        ("False", "خطأ", False),
    ]
    assert _violations(page) == []
    assert [e for e in console_errors if e.startswith("uncaught")] == []


def test_the_quiz_page_shapes_each_question_by_kind_and_takes_its_image(page: Page, admin):
    quiz = factories.make_quiz(questions=1, is_published=False)
    page.set_viewport_size({"width": 1280, "height": 2400})
    page.goto(f"/en/admin/quizzes/quiz/{quiz.pk}/change/")
    # The stored question: one answer, so its accepted numbers are not shown.
    expect(page.locator("#questions-0-choices-group")).to_be_visible()
    expect(page.locator("#questions-0-numerical_answers-group")).to_be_hidden()

    page.locator("#questions-group .add-row a").click()
    new = page.locator("#questions-1")
    new.locator("#id_questions-1-prompt_en").fill("Activations are kept by ZeRO.")
    new.locator("#id_questions-1-explanation_en").fill("ZeRO shards model states.")
    page.select_option("#id_questions-1-kind", "truefalse")
    expect(page.locator("#id_questions-1-choices-0-text_en")).to_have_value("True")
    expect(page.locator("#id_questions-1-choices-1-text_ar")).to_have_value("خطأ")
    expect(page.locator("#questions-1-numerical_answers-group")).to_be_hidden()
    page.check("#id_questions-1-choices-1-is_correct")
    page.set_input_files("#id_questions-1-image", files=[_png()])
    page.fill("#id_questions-1-image_alt_en", "A blue square.")
    _save(page)

    expect(page.locator(".messagelist .success")).to_be_visible()
    question = quiz.questions.get(prompt_en="Activations are kept by ZeRO.")
    assert question.position == 2
    assert question.image and question.image_alt_en == "A blue square."
    assert [(c.text_en, c.is_correct) for c in question.choices.order_by("position")] == [
        ("True", False),
        ("False", True),
    ]


def test_the_quiz_page_refuses_a_true_or_false_question_left_without_choices(page: Page, admin):
    quiz = factories.make_quiz(questions=1, is_published=False)
    page.goto(f"/en/admin/quizzes/quiz/{quiz.pk}/change/")
    page.locator("#questions-group .add-row a").click()
    page.fill("#id_questions-1-prompt_en", "True?")
    page.fill("#id_questions-1-explanation_en", "Yes.")
    page.select_option("#id_questions-1-kind", "truefalse")
    # The instructor removes the two choices made for them.
    for _ in range(2):
        page.locator("#questions-1-choices-group .daleel-remove-part").first.click()
    _save(page)

    expect(page.locator("#questions-1-choices-group .errorlist")).to_contain_text(
        "A true-or-false question has exactly two choices"
    )
    assert quiz.questions.count() == 1


def test_adding_a_question_leaves_the_positions_as_they_are_and_the_new_one_empty(
    page: Page, admin
):
    quiz = factories.make_quiz(questions=2, is_published=False)
    page.goto(f"/en/admin/quizzes/quiz/{quiz.pk}/change/")
    positions = page.locator("#questions-group input[name^='questions-'][name$='-position']")
    for _ in range(2):
        page.locator("#questions-group .add-row a").click()

    values = {
        name: value
        for name, value in positions.evaluate_all("els => els.map(e => [e.name, e.value])")
        if "__prefix__" not in name and "-choices-" not in name and "-numerical_" not in name
    }
    assert values == {
        "questions-0-position": "1",
        "questions-1-position": "2",
        "questions-2-position": "",
        "questions-3-position": "",
    }
    page.fill("#id_questions-2-prompt_en", "Third?")
    page.fill("#id_questions-2-explanation_en", "Yes.")
    for index, text in enumerate(["Yes", "No"]):
        page.locator("#questions-2-choices-group .daleel-add-part").click()
        page.fill(f"#id_questions-2-choices-{index}-text_en", text)
    expect(page.locator("#id_questions-2-choices-0-position")).to_have_value("")
    page.check("#id_questions-2-choices-0-is_correct")
    page.locator("#questions-3 .inline-deletelink").click()  # added by mistake
    _save(page)

    expect(page.locator(".messagelist .success")).to_be_visible()
    assert list(quiz.questions.order_by("position").values_list("position", "prompt_en")) == [
        (1, "Question 1 prompt?"),
        (2, "Question 2 prompt?"),
        (3, "Third?"),
    ]
