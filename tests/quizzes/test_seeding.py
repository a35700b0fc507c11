"""`seed_quizzes --update`: a database seeded earlier gets the current seed texts, except where an
instructor edited them."""

from __future__ import annotations

import json
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.core.management import call_command

from quizzes.content import quiz_content
from quizzes.models import Choice, Question, Quiz, SeedAddition
from quizzes.seeding import SUPERSEDED, natural_key, seed_additions, superseded_texts
from tests import factories

pytestmark = pytest.mark.django_db

FIXTURES = Path(settings.BASE_DIR) / "fixtures"


def _current_texts() -> dict[tuple, str]:
    """The fixtures' texts, by (model, natural key, field)."""
    texts = {}
    for path in FIXTURES.glob("*.json"):
        for obj in json.loads(path.read_text(encoding="utf-8")):
            for name, value in obj["fields"].items():
                texts[(obj["model"], natural_key(obj), name)] = value
    return texts


def _stored(model: str, key: tuple, name: str) -> str:
    manager = apps.get_model(model)._default_manager
    return getattr(manager.get_by_natural_key(*key), name)


@pytest.fixture
def old_seed(seed_quizzes):
    """A database seeded before the current wording: every superseded text back in place,
    written as loaddata writes (no signals, no new content version)."""
    for (model, key, name), values in superseded_texts().items():
        manager = apps.get_model(model)._default_manager
        manager.filter(pk=manager.get_by_natural_key(*key).pk).update(**{name: values[0]})
    return superseded_texts()


def _update() -> str:
    out = StringIO()
    call_command("seed_quizzes", "--update", stdout=out)
    return out.getvalue()


def test_update_gives_unedited_seed_texts_their_current_wording(old_seed):
    current = _current_texts()
    quiz = Quiz.objects.get(slug="activation-recomputation")
    before = quiz.updated_at
    q4 = quiz_content(quiz).at(4)
    assert q4.explanation_ar == old_seed[("quizzes.question", (quiz.slug, 4), "explanation_ar")][0]

    output = _update()

    for key in old_seed:
        assert _stored(*key) == current[key], key
    for slug in ("activation-recomputation", "zero-sharded-optimizers"):
        count = sum(1 for _model, key, _name in old_seed if key[0] == slug)
        assert f"{slug}.json: {count} seed texts refreshed, 0 kept" in output
    # The quiz's content version moved: learners read the new wording at once.
    quiz.refresh_from_db()
    assert quiz.updated_at > before
    assert (
        quiz_content(quiz).at(4).explanation_ar
        == current[("quizzes.question", (quiz.slug, 4), "explanation_ar")]
    )


def test_update_keeps_a_text_an_instructor_edited_and_lists_it(old_seed):
    question = Question.objects.get(quiz__slug="zero-sharded-optimizers", position=6)
    question.explanation_ar = "شرح كتبته المدرّسة."
    question.save()

    output = _update()

    question.refresh_from_db()
    assert question.explanation_ar == "شرح كتبته المدرّسة."
    assert "kept question zero-sharded-optimizers 6: explanation_ar" in output
    # The other texts of that question and quiz were still refreshed.
    current = _current_texts()
    assert question.prompt_ar == current[("quizzes.question", question.natural_key(), "prompt_ar")]
    key = ("quizzes.question", ("zero-sharded-optimizers", 7), "explanation_ar")
    assert _stored(*key) == current[key]


def test_update_twice_changes_nothing_the_second_time(old_seed):
    _update()
    stamps = dict(Quiz.objects.values_list("slug", "updated_at"))

    output = _update()

    assert dict(Quiz.objects.values_list("slug", "updated_at")) == stamps
    assert output.count(": 0 seed texts refreshed, 0 kept") == 2


def test_update_keeps_a_choice_wording_whose_answer_key_was_changed(old_seed):
    first, second = Choice.objects.filter(
        question__quiz__slug="zero-sharded-optimizers", question__position=8, position__in=[1, 2]
    ).order_by("position")
    Choice.objects.filter(pk=second.pk).update(is_correct=False, fraction=0)
    Choice.objects.filter(pk=first.pk).update(is_correct=True, fraction=1)

    output = _update()

    first.refresh_from_db()
    assert first.text_en == old_seed[("quizzes.choice", first.natural_key(), "text_en")][0]
    assert "kept choice zero-sharded-optimizers 8 1: text_en" in output


def test_update_leaves_a_deleted_seed_question_deleted(old_seed):
    Question.objects.get(quiz__slug="activation-recomputation", position=4).delete()

    output = _update()

    assert not Question.objects.filter(quiz__slug="activation-recomputation", position=4).exists()
    assert "kept question activation-recomputation 4: deleted" in output


def test_update_loads_a_seed_quiz_that_is_absent(db):
    output = _update()
    assert Quiz.objects.count() == 2
    assert "loaded zero-sharded-optimizers" in output


def test_every_superseded_text_is_an_earlier_wording_of_a_current_seed_text():
    current = _current_texts()
    entries = superseded_texts(SUPERSEDED)
    assert entries
    for key, values in entries.items():
        assert key in current, key
        assert current[key] not in values, key


# --- Questions a later seed added ------------------------------------------------------------

ZERO = "zero-sharded-optimizers"
ADDED = [9, 10, 11, 12, 13, 14]


@pytest.fixture
def seeded_before_the_additions(seed_quizzes):
    """A database seeded before the seed had its short-answer, matching, ordering,
    several-answer, true-or-false and number questions: the ZeRO quiz with its eight
    questions of one answer only."""
    Question.objects.filter(quiz__slug=ZERO, position__in=ADDED).delete()
    SeedAddition.objects.all().delete()
    return Quiz.objects.get(slug=ZERO)


def test_the_additions_list_names_questions_the_fixtures_have():
    current = _current_texts()
    for slug, positions in seed_additions().items():
        for position in positions:
            assert ("quizzes.question", (slug, position), "prompt_en") in current


def test_update_adds_the_seeds_new_questions_with_their_parts(seeded_before_the_additions):
    quiz = seeded_before_the_additions
    before = quiz.updated_at
    assert len(quiz_content(quiz).questions) == 8

    output = _update()

    for position in ADDED:
        assert f"{ZERO}.json: added question {ZERO} {position}." in output
    assert f"{ZERO}.json: 0 seed texts refreshed, 0 kept" in output
    added = Question.objects.filter(quiz=quiz, position__in=ADDED).order_by("position")
    short, matching, ordering, several, true_or_false, number = added
    assert [question.kind for question in added] == [
        "short",
        "matching",
        "ordering",
        "multiple",
        "truefalse",
        "numerical",
    ]
    assert several.choices.filter(fraction=Decimal("0.5")).count() == 2
    assert true_or_false.choices.count() == 2
    assert number.numerical_answers.get().value == Decimal("1.875")
    assert short.accepted_texts.filter(text_ar="حالات المُحسِّن", fraction=1).exists()
    assert matching.pairs.count() == 4 and ordering.order_items.count() == 5
    # Learners read them at once: a new content version, with the parts.
    quiz.refresh_from_db()
    assert quiz.updated_at > before
    content = quiz_content(quiz)
    assert [
        len(q.choices) + len(q.numbers) + len(q.texts) + len(q.pairs) + len(q.items)
        for q in content.questions[8:]
    ] == [4, 4, 5, 4, 2, 1]
    assert set(SeedAddition.objects.values_list("quiz_slug", "position")) == {
        (ZERO, position) for position in ADDED
    }


def test_update_twice_adds_them_once(seeded_before_the_additions):
    _update()

    output = _update()

    assert "added" not in output
    assert Question.objects.filter(quiz__slug=ZERO).count() == 14


def test_update_leaves_an_added_question_an_instructor_deleted_deleted(
    seeded_before_the_additions,
):
    _update()
    Question.objects.get(quiz__slug=ZERO, position=10).delete()

    output = _update()

    assert not Question.objects.filter(quiz__slug=ZERO, position=10).exists()
    assert "added" not in output
    assert f"kept question {ZERO} 10: deleted" in output


def test_a_seed_quiz_loaded_whole_has_its_additions_delivered(seed_quizzes):
    Question.objects.get(quiz__slug=ZERO, position=9).delete()

    output = _update()

    assert not Question.objects.filter(quiz__slug=ZERO, position=9).exists()
    assert "added" not in output


def test_update_adds_nothing_over_a_question_of_the_quizs_own(seeded_before_the_additions):
    quiz = seeded_before_the_additions
    own = factories.add_numerical_question(quiz, 9)

    output = _update()

    assert Question.objects.get(quiz=quiz, position=9) == own
    assert own.kind == "numerical"
    assert f"not added question {ZERO} 9: its position holds a question of the quiz's own" in (
        output
    )
    assert [q.kind for q in quiz.questions.filter(position__in=[10, 11]).order_by("position")] == [
        "matching",
        "ordering",
    ]


def test_update_takes_the_seeds_questions_loaded_without_a_record_as_delivered(db):
    """A database loaded with plain loaddata has the questions but no record of them."""
    for path in sorted(FIXTURES.glob("*.json")):
        call_command("loaddata", str(path), verbosity=0)
    assert not SeedAddition.objects.exists()

    output = _update()

    assert "added" not in output
    assert SeedAddition.objects.count() == len(ADDED)
    assert Question.objects.filter(quiz__slug=ZERO).count() == 14
