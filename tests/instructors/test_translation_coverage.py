"""The admin's translation coverage: per quiz, the texts that still lack their Arabic."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from quizzes.instructors.coverage import translation_coverage
from quizzes.models import Quiz
from tests import factories

pytestmark = pytest.mark.django_db

URL = "/en/admin/quizzes/quiz/translations/"


@pytest.fixture
def partly_translated(db):
    """A quiz whose factory content is all translated, but for five texts."""
    quiz = factories.make_quiz(questions=2, choices=3, guide=factories.make_guide(title_ar=""))
    quiz.description_ar = None  # What the admin saves for an emptied field.
    quiz.save()
    first, second = quiz.questions.order_by("position")
    second.explanation_ar = "   "
    second.save()
    choices = {choice.position: choice for choice in first.choices.all()}
    choices[1].feedback_en = "Well done."
    choices[1].save()
    # Positions 1, 3, 5: choice 3 is the second form of the question's inline.
    choices[2].position = 5
    choices[2].save()
    choices[3].text_ar = ""
    choices[3].save()
    # Empty in both languages: nothing to translate.
    second.choices.filter(position=2).update(feedback_en="", feedback_ar="")
    return quiz


@pytest.fixture
def translated(db):
    quiz = factories.make_quiz(questions=1, description_en="", description_ar="")
    quiz.questions.get().choices.filter(position=1).update(feedback_en="Yes.", feedback_ar="نعم.")
    return quiz


def _expected(quiz: Quiz) -> list[tuple[str, str, str]]:
    first, second = quiz.questions.order_by("position")
    return [
        ("Guide: title", quiz.guide.title_en, f"/en/admin/quizzes/guide/{quiz.guide.pk}/change/"),
        (
            "Quiz: description",
            "What this quiz covers.",
            f"/en/admin/quizzes/quiz/{quiz.pk}/change/",
        ),
        (
            "Question 1, choice 1: feedback",
            "Well done.",
            f"/en/admin/quizzes/question/{first.pk}/change/#choices-0",
        ),
        (
            "Question 1, choice 3: text",
            "Choice 1.3",
            f"/en/admin/quizzes/question/{first.pk}/change/#choices-1",
        ),
        (
            "Question 2: explanation",
            "Because of reason 2.",
            f"/en/admin/quizzes/question/{second.pk}/change/",
        ),
    ]


def _listed(coverage) -> dict[str, list[tuple[str, str, str]]]:
    return {
        entry.quiz.slug: [(item.label, item.english, item.url) for item in entry.missing]
        for entry in coverage
    }


def test_coverage_lists_exactly_the_fields_without_arabic(partly_translated, translated):
    listed = _listed(translation_coverage(Quiz.objects.all()))

    assert listed == {
        partly_translated.slug: _expected(partly_translated),
        translated.slug: [],
    }


def test_instructor_sees_the_coverage_page_with_links_to_each_field(
    instructor_client, partly_translated, translated
):
    response = instructor_client.get(URL)

    page = response.content.decode()
    assert response.status_code == 200
    assert _listed(response.context["coverage"]) == {
        partly_translated.slug: _expected(partly_translated),
        translated.slug: [],
    }
    assert "5 texts have English but no Arabic yet." in page
    for _label, _english, url in _expected(partly_translated):
        assert f'href="{url}"' in page
    assert "Every text has its Arabic." in page


def test_coverage_of_one_quiz_from_its_page(instructor_client, partly_translated, translated):
    change_page = instructor_client.get(f"/en/admin/quizzes/quiz/{translated.pk}/change/")
    response = instructor_client.get(URL, {"quiz": translated.pk})

    assert f"{URL}?quiz={translated.pk}".encode() in change_page.content
    assert [entry.quiz for entry in response.context["coverage"]] == [translated]


@pytest.mark.parametrize("junk", ["x", "²", "0", "-1", "99999999999999999999999"])
def test_coverage_of_an_unknown_quiz_is_not_found(instructor_client, translated, junk):
    assert instructor_client.get(URL, {"quiz": junk}).status_code == 404


def test_quiz_list_links_to_the_coverage_page(instructor_client, translated):
    assert URL.encode() in instructor_client.get("/en/admin/quizzes/quiz/").content


def test_coverage_page_is_refused_to_anyone_but_staff_with_quiz_permissions(
    learner_client, bare_staff_client, partly_translated
):
    anonymous = Client().get(URL)
    learner = learner_client.get(URL)

    assert anonymous.status_code == learner.status_code == 302
    assert "/admin/login/" in anonymous["Location"]
    assert "/admin/login/" in learner["Location"]
    assert bare_staff_client.get(URL).status_code == 403


def test_coverage_and_gift_export_need_the_questions_and_choices_not_only_the_quiz(
    bare_staff, bare_staff_client, partly_translated
):
    export = f"/en/admin/quizzes/quiz/{partly_translated.pk}/export.gift.txt"
    bare_staff.user_permissions.add(Permission.objects.get(codename="view_quiz"))
    # Both show the questions, and the export every answer key.
    assert bare_staff_client.get(URL).status_code == 403
    assert bare_staff_client.get(export).status_code == 403
    for codename in ("view_question", "view_choice"):
        bare_staff.user_permissions.add(Permission.objects.get(codename=codename))
    assert bare_staff_client.get(URL).status_code == 200
    # The export carries accepted numbers too (issue 32).
    assert bare_staff_client.get(export).status_code == 403
    bare_staff.user_permissions.add(Permission.objects.get(codename="view_numericalanswer"))
    assert bare_staff_client.get(export).status_code == 403
    # And short answers' accepted answers and matching questions' pairs (issue 46).
    for codename in ("view_acceptedtext", "view_matchpair"):
        bare_staff.user_permissions.add(Permission.objects.get(codename=codename))
    assert bare_staff_client.get(export).status_code == 200


def test_coverage_lists_accepted_answers_pairs_and_items_without_arabic(db):
    quiz = factories.make_typed_quiz(description_en="", description_ar="")
    short, matching, ordering = quiz.questions.order_by("position")
    # The second accepted answer is in English only: the Arabic page shows it in English.
    assert short.accepted_texts.filter(position=2, text_ar="").exists()
    short.accepted_texts.filter(position=1).update(feedback_en="The sharded state.")
    matching.pairs.filter(position=2).update(match_ar="")
    matching.pairs.filter(position=4).update(match_ar=" ")  # the distractor
    ordering.order_items.filter(position=3).update(text_ar="")

    (coverage,) = translation_coverage(Quiz.objects.filter(pk=quiz.pk))

    question_url = "/en/admin/quizzes/question/{}/change/"
    assert [(item.label, item.english, item.url) for item in coverage.missing] == [
        (
            "Question 1, answer 1: feedback",
            "The sharded state.",
            question_url.format(short.pk) + "#accepted_texts-0",
        ),
        (
            "Question 1, answer 2: accepted answer",
            "states",
            question_url.format(short.pk) + "#accepted_texts-1",
        ),
        (
            "Question 2, pair 2: match",
            "gradients",
            question_url.format(matching.pk) + "#pairs-1",
        ),
        (
            "Question 2, pair 4: match",
            "activations",
            question_url.format(matching.pk) + "#pairs-3",
        ),
        (
            "Question 3, item 3: text",
            "all-reduce",
            question_url.format(ordering.pk) + "#order_items-2",
        ),
    ]


def test_a_number_feedback_without_arabic_leaves_its_quiz_not_fully_translated(db):
    quiz = factories.make_mixed_quiz(description_en="", description_ar="")
    number = quiz.questions.get(kind="numerical")
    number.numerical_answers.filter(position=2).update(feedback_en="Half: bytes, not bits.")

    (coverage,) = translation_coverage(Quiz.objects.filter(pk=quiz.pk))

    assert [(item.label, item.english, item.url) for item in coverage.missing] == [
        (
            "Question 4, accepted number 2: feedback",
            "Half: bytes, not bits.",
            f"/en/admin/quizzes/question/{number.pk}/change/#numerical_answers-1",
        )
    ]
