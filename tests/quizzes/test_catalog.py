"""The catalog: pages of quizzes, search in both languages, filters, all in the URL."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from quizzes.catalog import LISTING_SECONDS
from quizzes.content import CATALOG_GENERATION_KEY, catalog_generation, content_changed
from quizzes.models import Answer, Attempt, Guide, Question, Quiz
from tests.factories import correct_choice, make_guide, make_quiz, make_user, wrong_choice

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def titles(response) -> list[str]:
    """The quiz titles on the page, in order."""
    return re.findall(
        r'class="card__title"><a href="[^"]+">(?:<span[^>]*>)?([^<]+)<', _text(response)
    )


def _text(response) -> str:
    assert response.status_code == 200, response
    return response.content.decode()


@pytest.fixture
def topics(db):
    """Four quizzes whose English and Arabic titles and descriptions differ."""
    guide = make_guide(slug="memory", title_en="Memory", title_ar="الذاكرة")
    return {
        "checkpointing": make_quiz(
            title_en="Activation checkpointing",
            title_ar="حفظُ نقاطِ التنشيط",
            description_en="Trading compute for memory.",
            description_ar="مقايضة الحساب بالذاكرة.",
            difficulty=Quiz.Difficulty.HARD,
            guide=guide,
        ),
        "optimizer": make_quiz(
            title_en="Optimizer states",
            title_ar="حالات المُحسِّن",
            description_en="Adam keeps two moments per parameter.",
            description_ar="يحتفظ Adam بعزمين لكل معامل.",
            difficulty=Quiz.Difficulty.EASY,
            guide=guide,
        ),
        "sharding": make_quiz(
            title_en="Sharding with ZeRO",
            title_ar="التجزئة مع ZeRO",
            description_en="Partitioning states across GPUs.",
            description_ar="توزيع الحالات على وحدات GPU.",
            difficulty=Quiz.Difficulty.MEDIUM,
        ),
        "precision": make_quiz(
            title_en="Mixed precision",
            title_ar="الدقة العددية المختلطة",
            description_en="Loss scaling.",
            description_ar="أداة تحجيم الخسارة.",
            difficulty=Quiz.Difficulty.HARD,
        ),
    }


def test_the_catalog_lists_published_quizzes_by_title(client, topics):
    make_quiz(title_en="Draft quiz", is_published=False)
    make_quiz(title_en="Empty quiz", questions=0)
    assert titles(client.get("/en/")) == [
        "Activation checkpointing",
        "Mixed precision",
        "Optimizer states",
        "Sharding with ZeRO",
    ]


def test_the_arabic_catalog_orders_by_arabic_title_and_falls_back_to_english(client, topics):
    make_quiz(title_en="Aardvark", title_ar="")
    assert titles(client.get("/ar/")) == [
        "Aardvark",  # no Arabic title: sorted by its English one, which Latin puts first
        "التجزئة مع ZeRO",
        "الدقة العددية المختلطة",
        "حالات المُحسِّن",
        "حفظُ نقاطِ التنشيط",
    ]


# -- pages -----------------------------------------------------------------------------------


@pytest.fixture
def many(db):
    guide = make_guide()
    return [make_quiz(questions=1, title_en=f"Quiz {n:02d}", guide=guide) for n in range(45)]


def test_the_catalog_shows_twenty_quizzes_a_page_with_numbered_pages(client, many):
    first = client.get("/en/")
    assert titles(first) == [f"Quiz {n:02d}" for n in range(20)]
    page = _text(first)
    assert "45 quizzes · page 1 of 3" in " ".join(page.split())
    assert 'aria-current="page" href="?page=1"' in page
    assert 'href="?page=3"' in page
    assert '<link rel="next" href="?page=2">' in page
    assert 'rel="prev"' not in page

    last = client.get("/en/", {"page": "3"})
    assert titles(last) == [f"Quiz {n:02d}" for n in range(40, 45)]
    assert '<link rel="prev" href="?page=2">' in _text(last)
    assert '<link rel="next"' not in _text(last)


# Not `page`: pytest-playwright's fixture of that name would make this a browser test.
@pytest.mark.parametrize(("page_number", "first"), [("0", 40), ("99", 40), ("abc", 0), ("-1", 40)])
def test_a_page_number_out_of_range_or_not_a_number_shows_a_page(client, many, page_number, first):
    assert titles(client.get("/en/", {"page": page_number}))[0] == f"Quiz {first:02d}"


def test_the_pager_keeps_the_search_and_filters(client, many):
    page = _text(client.get("/en/", {"q": "quiz", "difficulty": "medium"}))
    assert 'href="?q=quiz&amp;difficulty=medium&amp;page=2"' in page
    assert '<link rel="next" href="?q=quiz&amp;difficulty=medium&amp;page=2">' in page


# -- search ----------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "ar"])
@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("checkpointing", ["checkpointing"]),  # an English title, whatever the page's language
        ("ADAM", ["optimizer"]),  # an English description, any case
        ("التنشيط", ["checkpointing"]),  # an Arabic title, typed without its harakat
        ("حفظ نقاط", ["checkpointing"]),  # every word must match
        ("المحسن", ["optimizer"]),  # no shadda or kasra typed
        ("التجزيه", ["sharding"]),  # ة typed as ه
        ("اداه", ["precision"]),  # أداة typed with a bare alef and ه
        ("التـنـشـيط", ["checkpointing"]),  # tatweel typed
        ("states", ["optimizer", "sharding"]),  # title of one, description of the other
        ("zero gpu", ["sharding"]),  # English title and Arabic description
        ("nothing-like-this", []),
    ],
)
def test_search_finds_quizzes_by_title_and_description_in_either_language(
    client, topics, lang, query, found
):
    response = client.get(f"/{lang}/", {"q": query})
    shown = set(titles(response))
    expected = {getattr(topics[key], f"title_{lang}") for key in found}
    assert shown == expected
    if not found:
        assert 'class="empty"' in _text(response)


def test_search_treats_like_wildcards_as_plain_characters(client, topics):
    assert titles(client.get("/en/", {"q": "%"})) == []
    assert titles(client.get("/en/", {"q": "_"})) == []


def test_the_search_box_shows_what_was_searched(client, topics):
    page = _text(client.get("/ar/", {"q": "حفظ <b>"}))
    assert 'value="حفظ &lt;b&gt;"' in page
    assert 'type="search"' in page


def test_a_search_too_long_is_refused_with_a_message_and_the_rest_applies(client, topics):
    response = client.get("/en/", {"q": "x" * 201, "difficulty": "easy"})
    assert titles(response) == ["Optimizer states"]
    assert "Ensure this value has at most 200 characters" in _text(response)


# -- filters ---------------------------------------------------------------------------------


def test_the_difficulty_filter(client, topics):
    hard = client.get("/en/", {"difficulty": "hard"})
    assert titles(hard) == ["Activation checkpointing", "Mixed precision"]
    assert '<option value="hard" selected>' in _text(hard)


def test_the_guide_filter_lists_guides_with_quizzes_and_keeps_to_one(client, topics):
    make_guide(slug="empty-guide", title_en="Nothing published")
    page = _text(client.get("/en/", {"guide": "memory"}))
    assert titles(client.get("/en/", {"guide": "memory"})) == [
        "Activation checkpointing",
        "Optimizer states",
    ]
    assert '<option value="memory" selected>Memory</option>' in page
    assert "Nothing published" not in page


def test_filters_and_search_combine(client, topics):
    response = client.get("/ar/", {"guide": "memory", "difficulty": "hard", "q": "الذاكره"})
    assert titles(response) == ["حفظُ نقاطِ التنشيط"]


@pytest.mark.parametrize(
    "query",
    [
        {"difficulty": "impossible"},
        {"guide": "no-such-guide"},
        {"status": "finished"},  # signed out: there is no such filter
        {"page": "2" * 400, "q": ""},
    ],
)
def test_a_filter_value_that_is_not_offered_filters_nothing(client, topics, query):
    assert len(titles(client.get("/en/", query))) == 4


def test_a_refused_filter_value_says_so(client, topics):
    page = _text(client.get("/en/", {"difficulty": "impossible"}))
    assert "Select a valid choice. impossible is not one of the available choices." in page


@pytest.fixture
def progress(topics):
    """A learner who finished checkpointing, is taking optimizer, finished and retakes
    sharding, and has not started precision; another learner finished precision."""
    learner, other = make_user(), make_user()
    now = timezone.now()

    def attempt(user, quiz, finished, score=1):
        Attempt.objects.create(
            user=user,
            quiz=quiz,
            finished_at=now if finished else None,
            score=score if finished else 0,
            total=3 if finished else 0,
        )

    attempt(learner, topics["checkpointing"], True, score=2)
    attempt(learner, topics["optimizer"], False)
    attempt(learner, topics["sharding"], True)
    attempt(learner, topics["sharding"], False)
    attempt(other, topics["precision"], True)
    return learner


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("not-started", ["Mixed precision"]),
        ("in-progress", ["Optimizer states", "Sharding with ZeRO"]),
        ("finished", ["Activation checkpointing"]),
        (
            "",
            [
                "Activation checkpointing",
                "Mixed precision",
                "Optimizer states",
                "Sharding with ZeRO",
            ],
        ),
    ],
)
def test_a_signed_in_learner_filters_by_their_own_progress(client, progress, status, expected):
    client.force_login(progress)
    response = client.get("/en/", {"status": status})
    assert titles(response) == expected


def test_cards_show_the_learners_progress(client, progress):
    client.force_login(progress)
    page = " ".join(_text(client.get("/en/")).split())
    assert "Best score: 2 / 3" in page
    assert page.count("In progress</span>") == 2
    assert page.count("Not started</span>") == 1


def test_a_card_shows_the_best_share_of_the_learners_attempts_and_the_latest_of_equals(
    client, topics
):
    learner = make_user()
    quiz = topics["sharding"]
    now = timezone.now()
    for score, total, minutes_ago in [(2, 3, 30), (3, 4, 20), (1, 3, 10), (6, 8, 5)]:
        Attempt.objects.create(
            user=learner,
            quiz=quiz,
            finished_at=now - timedelta(minutes=minutes_ago),
            score=score,
            total=total,
        )
    client.force_login(learner)
    assert "Best score: 6 / 8" in _text(client.get("/en/", {"q": "sharding"}))


def test_a_card_says_time_is_up_for_an_attempt_past_its_deadline(client, topics):
    learner = make_user()
    Attempt.objects.create(
        user=learner,
        quiz=topics["sharding"],
        deadline=timezone.now() - timedelta(minutes=5),
    )
    client.force_login(learner)
    page = _text(client.get("/ar/", {"q": "sharding"}))
    assert "انتهى الوقت" in page and "state--progress" not in page


def test_what_every_learner_sees_alike_is_read_once_per_catalog_generation(
    client, topics, django_assert_num_queries
):
    """The count, the page and the guides of the filter are read by the first request of a
    generation; the next learner's request reads only what is their own."""
    first, second = make_user(), make_user()
    client.force_login(first)
    _text(client.get("/en/", {"difficulty": "hard"}))
    client.force_login(second)
    # The user, the learner's progress, the reviews due.
    with django_assert_num_queries(3):
        assert titles(client.get("/en/", {"difficulty": "hard"})) == [
            "Activation checkpointing",
            "Mixed precision",
        ]
    content_changed(quiz=topics["optimizer"])
    # The user, the progress (the reviews due are kept a minute: quizzes.review), and once
    # per generation: the guides, the count and the page.
    with django_assert_num_queries(5):
        client.get("/en/", {"difficulty": "hard"})


def test_the_progress_filter_is_offered_only_to_a_signed_in_learner(client, progress):
    assert 'name="status"' not in _text(client.get("/en/"))
    client.force_login(progress)
    assert 'name="status"' in _text(client.get("/en/"))


# -- htmx ------------------------------------------------------------------------------------


def test_htmx_gets_only_the_results_and_the_page_varies_on_it(client, topics):
    page = client.get("/en/", {"q": "states"})
    fragment = client.get("/en/", {"q": "states"}, **HX)
    assert "<html" in _text(page) and "<form" in _text(page)
    assert "<html" not in _text(fragment) and "<form" not in _text(fragment)
    assert titles(fragment) == titles(page) == ["Optimizer states", "Sharding with ZeRO"]
    assert "HX-Request" in page["Vary"] and "HX-Request" in fragment["Vary"]


def test_a_history_restore_gets_the_whole_page(client, topics):
    response = client.get("/en/", {"q": "states"}, HTTP_HX_HISTORY_RESTORE_REQUEST="true", **HX)
    assert "<html" in _text(response)


def test_the_search_form_works_without_javascript_and_swaps_results_with_it(client, topics):
    page = _text(client.get("/en/"))
    form = re.search(r"<form class=\"filters\"[^>]*>", page)[0]
    assert 'method="get"' in form and 'action="/en/"' in form
    assert 'hx-target="#results"' in form and 'hx-push-url="true"' in form
    assert "delay:300ms" in form
    assert 'id="results"' in page
    assert "hx-on" not in page and "style=" not in page


def test_cards_link_to_their_guides_page(client, topics):
    assert 'href="/ar/guides/memory/"' in _text(client.get("/ar/"))


def test_an_edit_made_in_code_shows_in_the_catalog_once_content_changed_is_called(client, topics):
    """What every learner sees alike is kept per catalog generation, which
    `content_changed` moves: an edit written around the admin shows once it is called."""
    quiz = topics["optimizer"]
    assert "Optimizer states" in titles(client.get("/en/"))
    Quiz.objects.filter(pk=quiz.pk).update(title_en="Optimiser states", difficulty="hard")
    Guide.objects.filter(pk=quiz.guide_id).update(title_en="Memory, again")
    assert "Optimiser states" not in titles(client.get("/en/"))  # kept, as it should be

    content_changed(quiz=Quiz.objects.filter(guide_id=quiz.guide_id))

    page = _text(client.get("/en/"))
    assert "Optimiser states" in titles(client.get("/en/"))
    assert "Memory, again</a></p>" in page  # the card's guide
    assert '<option value="memory">Memory, again</option>' in page  # and the filter's
    assert page.count("badge--hard") == 3
    assert titles(client.get("/en/", {"difficulty": "hard"})) == [
        "Activation checkpointing",
        "Mixed precision",
        "Optimiser states",
    ]
    assert titles(client.get("/en/", {"q": "optimiser"})) == ["Optimiser states"]


def test_an_edit_that_never_calls_content_changed_shows_once_the_kept_listing_expires(
    client, topics, time_machine
):
    time_machine.move_to(timezone.now(), tick=False)
    assert "Optimizer states" in titles(client.get("/en/"))
    Quiz.objects.filter(pk=topics["optimizer"].pk).update(title_en="Optimiser states")
    assert "Optimizer states" in titles(client.get("/en/"))

    time_machine.shift(timedelta(seconds=LISTING_SECONDS + 1))

    assert "Optimiser states" in titles(client.get("/en/"))


def test_a_catalog_page_writes_nothing(client, topics, progress):
    """A GET never writes: not the catalog, not its search, not a learner's listing."""
    client.force_login(progress)
    with CaptureQueriesContext(connection) as context:
        for query in ({}, {"q": "sharding"}, {"status": "finished"}, {"page": "2"}):
            _text(client.get("/en/", query))
        _text(client.get("/en/guides/memory/"))
    writes = [
        q["sql"]
        for q in context.captured_queries
        if q["sql"].split()[0].upper() in {"INSERT", "UPDATE", "DELETE"}
    ]
    assert writes == []


@pytest.mark.django_db(transaction=True)
def test_the_catalog_generation_moves_again_once_an_edit_commits(topics):
    """A listing read by another request while an edit's transaction is open would be kept
    under the generation the edit moved to: the generation moves again at the commit."""
    before = catalog_generation()
    with transaction.atomic():
        Quiz.objects.filter(pk=topics["sharding"].pk).update(title_en="Sharding, again")
        content_changed(quiz=topics["sharding"])
        during = catalog_generation()
        assert during != before
    assert catalog_generation() not in (before, during)
    assert "Sharding, again" in titles(Client().get("/en/"))


def test_a_lost_catalog_generation_starts_again_past_every_earlier_one(topics):
    """If the cache loses the generation (evicted, emptied), the next one is new: a listing
    kept under an old number is never read again."""
    first = catalog_generation()
    cache.delete(CATALOG_GENERATION_KEY)
    assert catalog_generation() > first


def test_a_write_rolled_back_does_not_show(topics):
    with pytest.raises(RuntimeError), transaction.atomic():
        Quiz.objects.filter(pk=topics["sharding"].pk).update(title_en="Never shown")
        content_changed(quiz=topics["sharding"])
        raise RuntimeError
    assert "Never shown" not in _text(Client().get("/en/"))


def test_quizzes_made_published_or_deleted_in_code_show_once_content_changed_is_called(
    client, topics
):
    """Quizzes written straight to the database (a script's bulk_create, an update, a
    delete) show once the script calls `content_changed`, and a bulk-made quiz is found by
    search too, though no save() gave it its search text."""
    assert len(titles(client.get("/en/"))) == 4
    guide = Guide.objects.get(slug="memory")
    Quiz.objects.bulk_create(
        [Quiz(slug="bulk", title_en="Pipeline bubbles", title_ar="فقاعات الأنابيب", guide=guide)]
    )
    assert Quiz.objects.get(slug="bulk").search_text == ""
    Quiz.objects.filter(slug="bulk").update(is_published=True)
    Question.objects.create(quiz=Quiz.objects.get(slug="bulk"), position=1, prompt_en="?")
    content_changed(quiz=Quiz.objects.filter(slug="bulk"))

    assert "Pipeline bubbles" in titles(client.get("/en/"))
    assert titles(client.get("/en/", {"q": "فقاعات"})) == ["Pipeline bubbles"]
    assert titles(client.get("/ar/", {"q": "الانابيب"})) == ["فقاعات الأنابيب"]

    Quiz.objects.filter(slug="bulk").update(is_published=False)
    content_changed(quiz=Quiz.objects.filter(slug="bulk"))
    assert "Pipeline bubbles" not in titles(client.get("/en/"))
    Quiz.objects.filter(pk=topics["sharding"].pk).delete()
    content_changed(quiz=Quiz.objects.filter(pk=topics["sharding"].pk))
    assert titles(client.get("/en/")) == [
        "Activation checkpointing",
        "Mixed precision",
        "Optimizer states",
    ]


def test_a_question_added_in_code_counts_on_its_card_at_once(client, topics):
    quiz = topics["sharding"]
    assert "3 questions" in _text(client.get("/en/", {"q": "sharding"}))
    Question.objects.create(quiz=quiz, position=9, prompt_en="One more?")
    content_changed(quiz=quiz)
    assert "4 questions" in _text(client.get("/en/", {"q": "sharding"}))


@pytest.fixture
def mastery(topics):
    """A learner who answered every question of checkpointing right (Proficient) and one of
    optimizer's three (Attempted); another learner answered precision right."""
    learner, other = make_user(), make_user()

    def answer(user, quiz, rights):
        attempt = Attempt.objects.create(user=user, quiz=quiz)
        for question, right in zip(quiz.questions.order_by("position"), rights, strict=False):
            Answer.objects.create(
                attempt=attempt,
                question=question,
                choice=correct_choice(question) if right else wrong_choice(question),
                correct_choice=correct_choice(question),
                is_correct=right,
            )

    answer(learner, topics["checkpointing"], [True, True, True])
    answer(learner, topics["optimizer"], [True, False])
    answer(other, topics["precision"], [True, True, True])
    return learner


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        ("proficient", ["Activation checkpointing"]),
        ("attempted", ["Optimizer states"]),
        ("not-started", ["Mixed precision", "Sharding with ZeRO"]),
        ("mastered", []),
    ],
)
def test_a_signed_in_learner_filters_by_their_own_mastery(client, mastery, level, expected):
    client.force_login(mastery)
    response = client.get("/en/", {"mastery": level})
    assert titles(response) == expected
    assert f'<option value="{level}" selected>' in _text(response)


def test_the_mastery_filter_is_offered_only_to_a_signed_in_learner(client, mastery):
    assert 'name="mastery"' not in _text(client.get("/en/"))
    assert len(titles(client.get("/en/", {"mastery": "proficient"}))) == 4
    client.force_login(mastery)
    assert 'name="mastery"' in _text(client.get("/en/"))
