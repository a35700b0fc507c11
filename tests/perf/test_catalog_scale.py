"""The catalog costs the same statements with 10 published quizzes as with 10,000: every
statement is about one page of quizzes, or counts them in the database."""

from __future__ import annotations

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from quizzes.content import content_changed
from quizzes.models import Attempt, Guide, Question, Quiz
from quizzes.search import search_text_for
from tests.factories import make_user
from tests.perf.test_query_budgets import counting, within

pytestmark = pytest.mark.django_db

TOPICS = [("gradient checkpointing", "حفظ نقاط التنشيط"), ("sharding", "التجزئة")]


def grow(count: int, learner) -> None:
    """`count` published quizzes of one question over five guides (bulk, as a site that
    imported them), and the learner's attempts on every one: the most a page can cost, its
    progress and mastery read for every card."""
    guides = Guide.objects.bulk_create(
        Guide(slug=f"scale-{n}", title_en=f"Scale {n}", url="https://example.org/")
        for n in range(5)
    )
    quizzes = [
        Quiz(
            slug=f"scale-{n}",
            title_en=f"{TOPICS[n % 2][0]} {n}",
            title_ar=f"{TOPICS[n % 2][1]} {n}",
            guide=guides[n % 5],
            difficulty=Quiz.Difficulty.values[n % 3],
            is_published=True,
        )
        for n in range(count)
    ]
    for quiz in quizzes:
        quiz.search_text = search_text_for(quiz)  # what save() would have done
    Quiz.objects.bulk_create(quizzes, batch_size=2000)
    ids = list(Quiz.objects.values_list("pk", flat=True))
    Question.objects.bulk_create(
        (Question(quiz_id=pk, position=1, prompt_en="?", explanation_en=".") for pk in ids),
        batch_size=2000,
    )
    content_changed(quiz=Quiz.objects.all())  # as an import does: the catalog's generation moves
    now = timezone.now()
    Attempt.objects.bulk_create(
        Attempt(user=learner, quiz_id=pk, finished_at=now if n % 2 else None, score=1, total=1)
        for n, pk in enumerate(ids)
    )


REQUESTS = {
    "first page": ("/en/", {}),
    "search": ("/en/", {"q": "gradient التنشيط"}),
    "search, results only": ("/ar/", {"q": "التجزيه", "page": "2", "difficulty": "easy"}),
    "search with a typo": ("/en/", {"q": "shardnig"}),  # found as "sharding"
    "finished": ("/en/", {"status": "finished"}),
    "guide": ("/en/guides/scale-1/", {}),
}


BUDGETS = {"finished": "catalog, progress filter", "guide": "guide page"}


def statements(size: int) -> dict[str, int]:
    learner = make_user()
    grow(size, learner)
    client = Client()
    client.force_login(learner)
    counts = {}
    for name, (path, query) in REQUESTS.items():
        client.get(path, query)
        with counting() as count:
            response = client.get(path, query, HTTP_HX_REQUEST="true" if "only" in name else "")
        assert response.status_code == 200
        assert b'class="card"' in response.content, name
        within(count, BUDGETS.get(name, "catalog"))
        counts[name] = len(count)
    return counts


# The clock stands still: the reviews-due badge is read again once its cache entry expires, and
# a slow machine would otherwise count that read in one run and not in the other.
@time_machine.travel("2026-12-01 09:00:00+00:00", tick=False)
def test_the_catalog_sends_as_many_statements_for_10000_quizzes_as_for_10():
    small = statements(10)
    Attempt.objects.all().delete()
    Question.objects.all().delete()
    Quiz.objects.all().delete()
    Guide.objects.all().delete()
    assert statements(10_000) == small
