"""What people type finds the seed quizzes: Arabic with its article and attached prefixes or
without, English in British or American spelling and in any form of a word. The same table
runs on SQLite and on PostgreSQL (`DATABASE_URL`), with the same results."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command

from quizzes.models import Quiz, search_text_refresh
from quizzes.search import (
    search_stem,
    search_words,
    search_words_corrected,
    trigram_similarity,
)
from tests.factories import make_guide, make_quiz

pytestmark = pytest.mark.django_db

ACTIVATION, ZERO = "activation-recomputation", "zero-sharded-optimizers"


@pytest.fixture
def seeded(db):
    call_command("seed_quizzes", verbosity=0)
    return {quiz.slug: quiz for quiz in Quiz.objects.all()}


def _shown(client, lang: str, query: str) -> list[str]:
    response = client.get(f"/{lang}/", {"q": query})
    assert response.status_code == 200
    return re.findall(
        r'class="card__title"><a href="/\w\w/quizzes/([^/]+)/"', response.content.decode()
    )


@pytest.mark.parametrize("lang", ["en", "ar"])
@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("نقاط الحفظ", [ACTIVATION]),  # the article typed, as the glossary writes it
        ("نقاط حفظ", [ACTIVATION]),  # and without it
        ("تجزئة", [ZERO]),  # «التجزئة» without its article, ة as typed
        ("بالتجزئة", [ZERO]),  # the article with ب attached
        ("والتنشيطات", [ACTIVATION]),  # و and the article attached, a plural suffix
        ("التنشيط", [ACTIVATION]),  # singular for the plural «التنشيطات»
        ("المحسن", [ZERO]),  # «المُحسِّنات», no harakat typed
        ("إعادة الحساب", [ACTIVATION]),  # «إعادة حساب» in the title
        ("optimiser", [ZERO]),  # British spelling of "optimizers"
        ("optimizer", [ZERO]),
        ("recompute", [ACTIVATION]),  # the verb for "recomputation"
        ("recomputation", [ACTIVATION]),
        ("checkpoint", [ACTIVATION]),  # "checkpointing"
        ("shard", [ZERO]),  # "sharded", "sharding"
        ("recomp", [ACTIVATION]),  # a word typed half-way
        ("zero التجزئة", [ZERO]),  # every word must match, in either language
        # Broken plurals by their singular and back (issue 44): «مراحل التجزئة», «وتكاليف».
        ("مرحلة", [ZERO]),
        ("المراحل", [ZERO]),
        ("التكلفة", [ACTIVATION, ZERO]),
        ("تكلفة الاتصال", [ZERO]),
        # Stacked prefixes: و+ب+ال, ف+ال, ك+ال; ب, ل without the article.
        ("وبالتجزئة", [ZERO]),
        ("فالتجزئة", [ZERO]),
        ("كالمعاملات", [ZERO]),
        ("بإعادة", [ACTIVATION]),
        ("لحفظ التنشيطات", [ACTIVATION]),
        ("optimiser recompute", []),
        ("تجزئة التنشيط", []),
        ("%", []),
        ("_", []),
    ],
)
def test_a_learner_finds_the_seed_quiz_they_mean(client, seeded, lang, query, found):
    assert _shown(client, lang, query) == found


@pytest.mark.parametrize("lang", ["en", "ar"])
@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("optimzer", [ZERO]),  # a letter left out
        ("recomputaton", [ACTIVATION]),
        ("checkpoitning", [ACTIVATION]),  # two letters swapped
        ("التجزيئة", [ZERO]),  # a letter too many
        ("التنشيطت", [ACTIVATION]),  # a letter left out
        ("شاردينغ", []),  # nothing close enough
        ("xylophone", []),
    ],
)
def test_a_typo_finds_the_quiz_of_its_closest_spelling_and_says_so(
    client, seeded, lang, query, found
):
    assert _shown(client, lang, query) == found
    page = client.get(f"/{lang}/", {"q": query}).content.decode()
    assert ("data-search-corrected" in page) == bool(found)


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_correction_that_finds_nothing_either_says_only_that_nothing_matches(
    client, seeded, lang
):
    """«الدقة المختلطة» is in no title or description: its closest spelling finds nothing too,
    so the page says that no quiz matches, without the note that it corrected the search."""
    page = client.get(f"/{lang}/", {"q": "الدقة المختلطة"}).content.decode()
    assert _shown(client, lang, "الدقة المختلطة") == []
    assert "data-search-corrected" not in page
    assert 'class="empty"' in page


def test_a_search_that_finds_something_as_typed_is_not_corrected(client, seeded):
    page = client.get("/en/", {"q": "optimizer"}).content.decode()
    assert "data-search-corrected" not in page


def test_trigram_similarity_is_pg_trgms():
    assert trigram_similarity("word", "word") == 1.0
    # pg_trgm: similarity('optimz', 'optim') = 5 shared of 8 trigrams.
    assert trigram_similarity("optimz", "optim") == 5 / 8
    assert trigram_similarity("abc", "xyz") == 0.0


def test_short_words_and_words_that_start_a_token_are_kept_as_typed():
    vocabulary = ["optim", "optimizer", "shard"]
    assert search_words_corrected(["opt", "shar", *search_words("optimzer")], vocabulary) == [
        "opt",
        "shar",
        "optim",
    ]
    assert search_words_corrected(search_words("%"), vocabulary) == ["_"]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("optimiser", "optimizer"),
        ("optimisers", "optimizers"),
        ("recompute", "recomputation"),
        ("checkpointing", "checkpoints"),
        ("تجزيه", "التجزيه"),
        ("نقاط", "والنقاط"),
        ("تنشيط", "للتنشيطات"),
        ("حفظ", "بالحفظ"),
    ],
)
def test_forms_of_one_word_have_one_stem(a, b):
    assert search_stem(a) == search_stem(b)


@pytest.mark.parametrize("word", ["باب", "فقد", "ولد", "كتب", "zero", "fp32", "7b"])
def test_short_words_and_tokens_keep_their_letters(word):
    assert search_stem(word) == word


def test_a_quiz_with_the_word_in_its_title_comes_before_one_with_it_in_its_description(client):
    guide = make_guide(slug="memory")
    make_quiz(
        guide=guide,
        slug="a-description",
        title_en="A pipeline guide",
        title_ar="دليل الأنابيب",
        description_en="About sharding.",
        description_ar="عن التجزئة.",
        is_published=True,
    )
    make_quiz(
        guide=guide, slug="b-title", title_en="B sharding", title_ar="ب التجزئة", is_published=True
    )
    for lang, query in (("en", "sharding"), ("ar", "تجزئة"), ("en", "pipeline")):
        shown = _shown(client, lang, query)
        assert shown == (["a-description"] if query == "pipeline" else ["b-title", "a-description"])


def test_search_text_written_in_the_old_form_is_brought_up_to_date(seeded):
    Quiz.objects.update(search_text="activation recomputation إعادة حساب التنشيطات")
    assert search_text_refresh() == 2
    assert all(" | " in text for text in Quiz.objects.values_list("search_text", flat=True))
    assert search_text_refresh() == 0


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_quizzes_of_an_earlier_release_the_stemmed_search_text():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    executor.migrate([("quizzes", "0015_catalog_generation_in_the_cache")])
    old = executor.loader.project_state([("quizzes", "0015_catalog_generation_in_the_cache")])
    OldQuiz = old.apps.get_model("quizzes", "Quiz")
    OldGuide = old.apps.get_model("quizzes", "Guide")
    guide = OldGuide.objects.create(slug="g", title_en="G", url="https://example.org/")
    OldQuiz.objects.create(
        slug="old",
        title_en="Sharded optimizers",
        title_ar="المحسنات المجزأة",
        guide=guide,
        search_text="sharded optimizers المحسنات المجزاه",
    )
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    text = Quiz.objects.get(slug="old").search_text
    assert text.startswith(" sharded shard optimizers optim ") and " | " in text
