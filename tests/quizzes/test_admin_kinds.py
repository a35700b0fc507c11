"""The question page adapts to the question's kind and checks it before saving."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from quizzes.models import Question
from tests.admin_posts import choice_rows, page_errors, save_question, typed_sections
from tests.factories import add_numerical_question, make_quiz

pytestmark = pytest.mark.django_db


@pytest.fixture
def question(db):
    return make_quiz(questions=1, choices=4, correct=1).questions.get()


def _marked(question, *right: int) -> list[dict]:
    rows = choice_rows(question)
    for row in rows:
        row.pop("is_correct", None)
        position = int(row["position"])
        if position in right:
            row["is_correct"] = "on"
    return rows


def test_marking_the_right_ones_of_several_answers_fills_equal_weights(admin_client, question):
    response = save_question(admin_client, question, _marked(question, 1, 3), kind="multiple")

    assert response.status_code == 302, page_errors(response)
    question.refresh_from_db()
    assert question.kind == Question.Kind.MULTIPLE
    assert [c.fraction for c in question.choices.order_by("position")] == [
        Decimal("0.5"),
        Decimal("-0.5"),
        Decimal("0.5"),
        Decimal("-0.5"),
    ]


def test_weights_the_instructor_types_are_kept(admin_client, question):
    rows = _marked(question, 1, 2)
    for row, weight in zip(rows, ["0.75", "0.25", "0", "-1"], strict=True):
        row["fraction"] = weight

    response = save_question(admin_client, question, rows, kind="multiple")

    assert response.status_code == 302, page_errors(response)
    assert [str(c.fraction.normalize()) for c in question.choices.order_by("position")] == [
        "0.75",
        "0.25",
        "0",
        "-1",
    ]


def test_several_answers_all_right_are_refused(admin_client, question):
    response = save_question(admin_client, question, _marked(question, 1, 2, 3, 4), kind="multiple")

    assert response.status_code == 200
    assert "Mark at least one choice right and at least one wrong." in page_errors(response)
    assert question.choices.filter(is_correct=True).count() == 1


def test_right_weights_that_do_not_make_the_whole_mark_are_refused(admin_client, question):
    rows = _marked(question, 1, 2)
    for row, weight in zip(rows, ["0.5", "0.25", "-1", "-1"], strict=True):
        row["fraction"] = weight

    response = save_question(admin_client, question, rows, kind="multiple")

    assert response.status_code == 200
    assert "add up to 75%" in page_errors(response)


def test_a_mark_of_a_right_choice_with_a_negative_weight_is_refused(admin_client, question):
    rows = _marked(question, 1)
    rows[0]["fraction"] = "-1"

    response = save_question(admin_client, question, rows)

    assert response.status_code == 200
    assert "A right choice has a positive weight" in page_errors(response)


def test_true_or_false_with_four_choices_is_refused(admin_client, question):
    response = save_question(admin_client, question, _marked(question, 1), kind="truefalse")

    assert response.status_code == 200
    assert "exactly two choices" in page_errors(response)
    question.refresh_from_db()
    assert question.kind == Question.Kind.SINGLE


def test_a_numerical_question_needs_an_accepted_number_worth_the_whole_mark(admin_client, question):
    deleted = [row | {"DELETE": "on"} for row in _marked(question, 1)]
    half = [{"position": "1", "value": "16", "tolerance": "0", "fraction": "0.5"}]

    refused = save_question(admin_client, question, deleted, numbers=half, kind="numerical")
    whole = [half[0] | {"fraction": "1", "tolerance": "0.5"}]
    saved = save_question(admin_client, question, deleted, numbers=whole, kind="numerical")

    assert refused.status_code == 200
    assert "Give at least one accepted number worth 100%." in page_errors(refused)
    assert saved.status_code == 302, page_errors(saved)
    question.refresh_from_db()
    assert question.kind == Question.Kind.NUMERICAL and not question.choices.exists()
    assert str(question.numerical_answers.get()) == "16 ± 0.5"


def test_a_numerical_question_with_choices_left_is_refused(admin_client, question):
    whole = [{"position": "1", "value": "16", "tolerance": "0", "fraction": "1"}]

    response = save_question(
        admin_client, question, _marked(question, 1), numbers=whole, kind="numerical"
    )

    assert response.status_code == 200
    assert "A numerical question has no choices; delete them." in page_errors(response)


def _outside_templates(page: str) -> str:
    """The page without its `<template>`s (inert: the page's script copies them)."""
    return re.sub(r"<template[^>]*>.*?</template>", "", page, flags=re.S)


def test_a_question_carries_only_its_kinds_section_and_the_page_one_template_of_each(
    admin_client,
):
    quiz = make_quiz(questions=1)
    numerical = add_numerical_question(quiz, 2)
    pages = {
        "question": f"/en/admin/quizzes/question/{numerical.pk}/change/",
        "quiz": f"/en/admin/quizzes/quiz/{quiz.pk}/change/",
    }
    groups = {
        "question": ['id="numerical_answers-group"'],
        "quiz": ['id="questions-0-choices-group"', 'id="questions-1-numerical_answers-group"'],
    }
    for name, url in pages.items():
        page = admin_client.get(url).content.decode()
        shown = _outside_templates(page)

        assert re.findall(r'id="[\w-]*-group" data-section', shown) == [
            group + " data-section" for group in groups[name]
        ], name
        for section in ("choices", "numerical_answers", "accepted_texts", "pairs", "order_items"):
            assert page.count(f'<template id="daleel-section-{section}"') == 1, (name, section)
            assert page.count(f'<template id="daleel-row-{section}"') == 1, (name, section)


def _new_question_on_the_quiz_page(admin_client, quiz, question: dict):
    from tests.admin_posts import inline

    data = {
        "title_en": quiz.title_en,
        "slug": quiz.slug,
        "difficulty": quiz.difficulty,
        "guide": str(quiz.guide_id),
        "feedback": quiz.feedback,
        "confidence": "off",
    }
    data |= inline("overrides", []) | inline("questions", [question])
    return admin_client.post(f"/en/admin/quizzes/quiz/{quiz.pk}/change/", data)


def _new_question_on_its_own_page(admin_client, quiz, question: dict):
    from tests.admin_posts import inline

    data = {"quiz": str(quiz.pk), "position": ""} | {
        key: value for key, value in question.items() if "-" not in key
    }
    data |= inline("choices", []) | inline("numerical_answers", []) | typed_sections()
    return admin_client.post("/en/admin/quizzes/question/add/", data)


@pytest.mark.parametrize("admin_page", ["quiz", "question"])
@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("truefalse", "A true-or-false question has exactly two choices: True and False."),
        ("single", "A question needs at least two choices."),
        ("numerical", "Give at least one accepted number worth 100%."),
        ("short", "Give at least one accepted answer worth 100%."),
        ("matching", "A matching question needs at least two pairs with a prompt."),
        ("ordering", "An ordering question needs at least two items."),
    ],
)
def test_a_question_without_its_choices_or_numbers_is_refused_on_both_pages_alike(
    admin_client, admin_page, kind, message
):
    quiz = make_quiz(questions=0, is_published=False)
    question = {"kind": kind, "prompt_en": "True?", "explanation_en": "Yes."}
    save = _new_question_on_the_quiz_page if admin_page == "quiz" else _new_question_on_its_own_page

    response = save(admin_client, quiz, question)

    assert response.status_code == 200
    assert message in page_errors(response)
    assert not quiz.questions.exists()


def test_a_question_ticked_for_deletion_on_the_quiz_page_needs_no_choices(admin_client):
    from tests.admin_posts import question_rows, save_quiz

    quiz = make_quiz(questions=2, is_published=False)
    doomed = quiz.questions.get(position=2)
    rows = question_rows(quiz, delete=[doomed.pk])
    rows[1] |= {"choices-TOTAL_FORMS": "0", "choices-INITIAL_FORMS": "0"}
    doomed.choices.all().delete()

    response = save_quiz(admin_client, quiz, rows)

    assert response.status_code == 302, page_errors(response)
    assert list(quiz.questions.values_list("prompt_en", flat=True)) == ["Question 1 prompt?"]


def test_the_choices_template_carries_true_and_false_in_both_languages_for_the_page_script(
    admin_client,
):
    quiz = make_quiz(questions=1)
    pages = [
        f"/en/admin/quizzes/question/add/?quiz={quiz.pk}",
        f"/en/admin/quizzes/quiz/{quiz.pk}/change/",
    ]
    for url in pages:
        page = admin_client.get(url).content.decode()
        assert re.search(r"<select[^>]*data-question-kind[^>]*>", page), url
        template = re.search(r'<template id="daleel-section-choices"[^>]*>', page)
        assert template, url
        assert 'data-true-en="True"' in template[0] and 'data-false-en="False"' in template[0]
        assert 'data-true-ar="صواب"' in template[0] and 'data-false-ar="خطأ"' in template[0]
        assert "admin/daleel-parts.js" in page


@pytest.mark.parametrize("admin_page", ["quiz", "question"])
def test_typed_matched_and_ordered_questions_are_written_with_their_parts_on_both_pages(
    admin_client, admin_page
):
    from tests.admin_posts import inline, typed_sections

    quiz = make_quiz(questions=1, is_published=False)
    base = {"prompt_en": "What does ZeRO-1 shard?", "explanation_en": "Optimizer states."}
    rows = {
        "short": {
            "accepted_texts": [
                {
                    "position": "",
                    "text_en": "optimizer states",
                    "text_ar": "حالات المحسّن",
                    "fraction": "1",
                },
                {"position": "", "text_en": "states", "fraction": "0.5", "exact": "on"},
            ]
        },
        "matching": {
            "pairs": [
                {"position": "", "prompt_en": "ZeRO-1", "match_en": "optimizer states"},
                {"position": "", "prompt_en": "ZeRO-2", "match_en": "gradients"},
                {"position": "", "match_en": "activations"},
            ]
        },
        "ordering": {
            "order_items": [
                {"position": "", "text_en": "forward"},
                {"position": "", "text_en": "backward"},
            ]
        },
    }
    for kind, sections in rows.items():
        if admin_page == "quiz":
            question = {
                "kind": kind,
                **base,
                **inline("choices", []),
                **inline("numerical_answers", []),
            }
            for section in ("accepted_texts", "pairs", "order_items"):
                question |= inline(section, sections.get(section, []))
            response = _new_question_on_the_quiz_page(admin_client, quiz, question)
        else:
            data = {"quiz": str(quiz.pk), "position": "", "kind": kind, **base}
            data |= inline("choices", []) | inline("numerical_answers", [])
            data |= typed_sections(**sections)
            response = admin_client.post("/en/admin/quizzes/question/add/", data)
        assert response.status_code == 302, page_errors(response)
    short, matching, ordering = (
        quiz.questions.filter(kind=kind).get() for kind in ("short", "matching", "ordering")
    )
    assert [
        (t.text_en, t.fraction, t.exact) for t in short.accepted_texts.order_by("position")
    ] == [
        ("optimizer states", 1, False),
        ("states", Decimal("0.5"), True),
    ]
    pairs = list(matching.pairs.all())
    assert len(pairs) == 3 and sum(1 for pair in pairs if not pair.prompt_en) == 1  # a distractor
    assert list(ordering.order_items.order_by("position").values_list("text_en", flat=True)) == [
        "forward",
        "backward",
    ]


def test_an_accepted_answer_another_always_outweighs_is_refused_and_made_exact_it_is_kept(
    admin_client,
):
    from tests.admin_posts import inline, typed_sections

    quiz = make_quiz(questions=1, is_published=False)
    answers = [
        {"position": "1", "text_en": "TCP", "text_ar": "", "fraction": "1"},
        # Folded as learners' answers are, "tcp." is "TCP": it would never count.
        {"position": "2", "text_en": "tcp.", "text_ar": "", "fraction": "0.5"},
    ]

    def add(rows):
        data = {"quiz": str(quiz.pk), "position": "", "kind": "short"}
        data |= {"prompt_en": "Which protocol?", "explanation_en": "TCP."}
        data |= inline("choices", []) | inline("numerical_answers", [])
        data |= typed_sections(accepted_texts=rows)
        return admin_client.post("/en/admin/quizzes/question/add/", data)

    refused = add(answers)
    saved = add([answers[0] | {"exact": "on"}, answers[1]])

    assert refused.status_code == 200
    assert (
        "Accepted answers 1 and 2 are one answer as Daleel matches answers "
        "(“tcp.”), so answer 2 never counts: remove it, or make answer 1 exact."
    ) in page_errors(refused)
    assert saved.status_code == 302, page_errors(saved)
    assert quiz.questions.filter(kind="short").count() == 1
