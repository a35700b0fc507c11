"""A new instructor adds a question of each kind in the admin as the README tells them: the
question's text, "Add another" for each choice, tick "Correct", leave positions and weights
alone, Save. It saves the first time."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from quizzes.models import Question
from tests import factories

from .support import sign_in

CASES = {
    "single": [("Sixteen", True), ("Eight", False), ("Four", False), ("Two", False)],
    "multiple": [("Memory", True), ("Time", True), ("Colour", False), ("Smell", False)],
    "truefalse": [("True", True), ("False", False)],
}


def _administrator():
    # An administrator: earlier browser tests flush the Instructors group away.
    return factories.make_user("admin", is_staff=True, is_superuser=True)


def _fill_question(page: Page, quiz, kind: str) -> None:
    page.goto(f"/en/admin/quizzes/question/add/?quiz={quiz.pk}")
    page.select_option("#id_kind", kind)
    page.fill("#id_prompt_en", f"A {kind} question?")
    page.fill("#id_explanation_en", "Because it is so.")


@pytest.mark.parametrize("kind", list(CASES))
def test_a_question_with_choices_saves_the_first_time(
    kind, page: Page, context: BrowserContext, live_server, transactional_db
):
    quiz = factories.make_quiz(questions=1)
    sign_in(
        context, live_server.url, factories.make_user("admin", is_staff=True, is_superuser=True)
    )
    _fill_question(page, quiz, kind)
    for index, (text, correct) in enumerate(CASES[kind]):
        if kind == "truefalse":
            # Made when the kind was chosen, in both languages: only the tick is left.
            expect(page.locator(f"#id_choices-{index}-text_en")).to_have_value(text)
        else:
            page.locator("#choices-group").get_by_role("button", name="Add a choice").click()
            page.fill(f"#id_choices-{index}-text_en", text)
        if correct:
            page.check(f"#id_choices-{index}-is_correct")
        # As a newcomer leaves it: no weight, whatever the box shows.
        expect(page.locator(f"#id_choices-{index}-fraction")).to_have_value("")
    page.get_by_role("button", name="Save", exact=True).click()

    expect(page.locator(".messagelist .success")).to_contain_text("was added successfully")
    question = Question.objects.get(quiz=quiz, prompt_en=f"A {kind} question?")
    assert question.kind == kind
    choices = list(question.choices.order_by("position"))
    assert [c.position for c in choices] == list(range(1, len(CASES[kind]) + 1))
    assert [(c.text_en, c.is_correct) for c in choices] == CASES[kind]
    assert sum(c.fraction for c in choices if c.is_correct) == 1


def test_a_numerical_question_saves_the_first_time(
    page: Page, context: BrowserContext, live_server, transactional_db
):
    quiz = factories.make_quiz(questions=1)
    sign_in(
        context, live_server.url, factories.make_user("admin", is_staff=True, is_superuser=True)
    )
    _fill_question(page, quiz, "numerical")
    page.locator("#numerical_answers-group").get_by_role(
        "button", name="Add an accepted number"
    ).click()
    page.fill("#id_numerical_answers-0-value", "16")
    page.get_by_role("button", name="Save", exact=True).click()

    expect(page.locator(".messagelist .success")).to_contain_text("was added successfully")
    question = Question.objects.get(quiz=quiz, prompt_en="A numerical question?")
    (accepted,) = question.numerical_answers.all()
    assert (accepted.position, accepted.value, accepted.fraction) == (1, 16, 1)


def test_an_error_names_the_question_and_the_choice_it_is_about(
    page: Page, context: BrowserContext, live_server, transactional_db
):
    quiz = factories.make_quiz(questions=1)
    sign_in(
        context, live_server.url, factories.make_user("admin", is_staff=True, is_superuser=True)
    )
    _fill_question(page, quiz, "single")
    for index, text in enumerate(["Sixteen", "Eight"]):
        page.locator("#choices-group").get_by_role("button", name="Add a choice").click()
        page.fill(f"#id_choices-{index}-text_en", text)
        page.check(f"#id_choices-{index}-is_correct")
    page.get_by_role("button", name="Save", exact=True).click()

    expect(page.locator(".errornote")).to_be_visible()
    expect(page.locator("#choices-group .errorlist")).to_contain_text(
        "Only one choice may be marked correct; choices 1, 2 are."
    )
    assert not Question.objects.filter(quiz=quiz, prompt_en="A single question?").exists()
