"""Guide pages: every guide with its quizzes, and one guide's quizzes in its order."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from quizzes.models import Attempt, Quiz
from tests.admin_posts import QUESTION_SECTIONS, inline, save_guide
from tests.factories import make_guide, make_instructor, make_quiz

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def titles(response) -> list[str]:
    assert response.status_code == 200, response
    return re.findall(r'class="card__title"><a href="[^"]+">([^<]+)<', response.content.decode())


@pytest.fixture
def guide(db):
    guide = make_guide(slug="zero", title_en="ZeRO", title_ar="تقنية ZeRO")
    make_quiz(title_en="Beta", guide=guide, guide_position=1)
    make_quiz(title_en="Alpha", guide=guide, guide_position=2)
    make_quiz(title_en="Gamma", guide=guide, guide_position=1)
    make_quiz(title_en="Draft", guide=guide, is_published=False)
    return guide


def test_the_guides_page_lists_guides_with_their_published_quizzes(client, guide):
    make_guide(title_en="Nothing yet")
    other = make_quiz(title_en="Elsewhere").guide
    page = " ".join(client.get("/en/guides/").content.decode().split())
    assert 'href="/en/guides/zero/">ZeRO</a>' in page and "3 quizzes" in page
    assert f'href="/en/guides/{other.slug}/">' in page and "1 quiz<" in page
    assert "Nothing yet" not in page


def test_the_guides_page_in_arabic(client, guide):
    page = client.get("/ar/guides/").content.decode()
    assert "تقنية ZeRO" in page and "3 اختبارات" in page


def test_a_guides_page_lists_its_quizzes_in_the_guides_order_then_by_title(client, guide):
    response = client.get("/en/guides/zero/")
    assert titles(response) == ["Beta", "Gamma", "Alpha"]
    page = response.content.decode()
    assert 'href="https://example.org/' in page  # the guide itself
    assert "Medium level" in page and "3 questions" in page


def test_a_guides_page_shows_the_learners_progress(learner_client, learner, guide):
    beta = Quiz.objects.get(title_en="Beta")
    Attempt.objects.create(user=learner, quiz=beta, finished_at=timezone.now(), score=2, total=3)
    page = " ".join(learner_client.get("/en/guides/zero/").content.decode().split())
    assert "Best score: 2 / 3" in page and page.count("Not started") == 2


def test_a_guides_page_is_paginated_and_its_results_swap_alone(client, guide):
    for n in range(25):
        make_quiz(questions=1, title_en=f"More {n:02d}", guide=guide, guide_position=10 + n)
    assert len(titles(client.get("/en/guides/zero/"))) == 20
    fragment = client.get("/en/guides/zero/", {"page": "2"}, **HX)
    assert titles(fragment) == [f"More {n:02d}" for n in range(17, 25)]
    assert "<html" not in fragment.content.decode()
    assert "HX-Request" in fragment["Vary"]


def test_an_unknown_guide_is_not_found(client):
    assert client.get("/en/guides/no-such-guide/").status_code == 404


def test_the_quiz_page_links_to_its_guides_page_and_to_the_guide(client, guide):
    quiz = Quiz.objects.get(title_en="Alpha")
    page = client.get(f"/ar/quizzes/{quiz.slug}/").content.decode()
    assert 'href="/ar/guides/zero/"' in page and f'href="{guide.url}"' in page


# -- the admin -------------------------------------------------------------------------------


@pytest.fixture
def instructor_client(client):
    client.force_login(make_instructor())
    return client


def test_instructors_order_a_guides_quizzes_on_the_guides_admin_page(instructor_client, guide):
    page = instructor_client.get(f"/en/admin/quizzes/guide/{guide.pk}/change/")
    assert page.status_code == 200 and 'name="quizzes-0-guide_position"' in page.content.decode()
    quizzes = list(guide.quizzes.order_by("guide_position", "title_en"))
    positions = {quiz.pk: len(quizzes) - index for index, quiz in enumerate(quizzes)}
    response = save_guide(instructor_client, guide, positions=positions)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert titles(instructor_client.get("/en/guides/zero/")) == ["Alpha", "Gamma", "Beta"]


def _quiz_form(quiz, **changes) -> dict:
    data = {
        "title_en": quiz.title_en,
        "slug": quiz.slug,
        "difficulty": quiz.difficulty,
        "guide": str(quiz.guide_id),
        "guide_position": str(quiz.guide_position),
        "is_published": "on",
        "feedback": quiz.feedback,
        "confidence": "off",
    }
    return data | inline("overrides", []) | inline("questions", []) | changes


def test_a_quiz_moved_to_another_guide_goes_last_in_it(instructor_client, guide):
    quiz = make_quiz(title_en="Newcomer", guide_position=7, questions=0, is_published=False)
    data = _quiz_form(quiz, guide=str(guide.pk))
    del data["is_published"]
    response = instructor_client.post(f"/en/admin/quizzes/quiz/{quiz.pk}/change/", data)
    assert response.status_code == 302
    quiz.refresh_from_db()
    assert (quiz.guide, quiz.guide_position) == (guide, 3)


def test_an_instructor_sets_a_quizs_position_in_its_guide(instructor_client, guide):
    quiz = Quiz.objects.get(title_en="Alpha")
    page = instructor_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/change/").content.decode()
    assert 'name="guide_position"' in page
    questions = {"questions-TOTAL_FORMS": "3", "questions-INITIAL_FORMS": "3"}
    for index, question in enumerate(quiz.questions.order_by("position")):
        # Its sections, as the page nests them: none edited here.
        for section in QUESTION_SECTIONS:
            questions |= inline(f"questions-{index}-{section}", [])
        questions[f"questions-{index}-id"] = str(question.pk)
        questions[f"questions-{index}-quiz"] = str(quiz.pk)
        questions[f"questions-{index}-position"] = str(question.position)
        questions[f"questions-{index}-kind"] = question.kind
        questions[f"questions-{index}-prompt_en"] = question.prompt_en
        questions[f"questions-{index}-explanation_en"] = question.explanation_en
    data = _quiz_form(quiz, guide_position="0", **questions)
    response = instructor_client.post(f"/en/admin/quizzes/quiz/{quiz.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert titles(instructor_client.get("/en/guides/zero/"))[0] == "Alpha"


def test_a_guides_bracketed_gloss_is_kept_on_one_line_and_escaped(client):
    guide = make_guide(
        slug="recompute",
        title_en="Recomputation",
        title_ar="إعادة حساب التنشيطات (gradient <checkpointing>)",
    )
    quiz = make_quiz(guide=guide)

    page = client.get(f"/ar/quizzes/{quiz.slug}/").content.decode()

    # A phone would otherwise leave a bracket at the end of each line (issue 53).
    assert (
        'إعادة حساب التنشيطات <span class="gloss">(gradient &lt;checkpointing&gt;)</span>' in page
    )
