"""A draft saves whatever it lacks: an imported quiz whose questions have no explanation saves
its settings; only publishing it is refused, with the questions named at the top of the page."""

from __future__ import annotations

import pytest

from quizzes.instructors.imports import quiz_import_gift
from quizzes.models import Quiz
from tests.admin_posts import browser_form, post_as_browser, save_question
from tests.factories import make_guide

pytestmark = pytest.mark.django_db

# Nine questions as teachers write them first: no general feedback (####) on any.
NINE = "$CATEGORY: Week 3\n\n" + "\n\n".join(
    f"::Q{n}:: Question {n}?{{=right {n} ~wrong {n}}}" for n in range(1, 10)
)


@pytest.fixture
def draft() -> Quiz:
    return quiz_import_gift(text=NINE, guide=make_guide(slug="week-3")).quiz


def _page(client, quiz: Quiz):
    url = f"/en/admin/quizzes/quiz/{quiz.pk}/change/"
    return url, browser_form(client.get(url).content.decode(), "quiz_form")


def test_an_imported_quiz_without_explanations_saves_its_settings_as_a_draft(
    instructor_client, draft
):
    url, form = _page(instructor_client, draft)

    response = post_as_browser(instructor_client, url, form, {"shuffle_choices": "on"})

    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.shuffle_choices and not draft.is_published


def test_publishing_it_is_refused_with_its_questions_listed_at_the_top(instructor_client, draft):
    url, form = _page(instructor_client, draft)

    response = post_as_browser(instructor_client, url, form, {"is_published": "on"})

    assert response.status_code == 200
    page = response.content.decode()
    top = page[: page.index('id="questions-group"')]
    assert "The quiz cannot be published yet" in top
    for n in range(1, 10):
        assert f"Question {n}: it has no explanation" in top
    draft.refresh_from_db()
    assert not draft.is_published


def test_with_its_explanations_written_it_publishes(instructor_client, draft):
    url, form = _page(instructor_client, draft)
    explained = {f"questions-{n}-explanation_en": f"Because of {n}." for n in range(9)}

    response = post_as_browser(instructor_client, url, form, {"is_published": "on", **explained})

    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.is_published


def test_a_published_quizs_question_cannot_lose_its_explanation_on_its_own_page(
    instructor_client,
):
    from tests.admin_posts import choice_rows
    from tests.factories import make_quiz

    question = make_quiz(questions=1).questions.get()

    response = save_question(instructor_client, question, choice_rows(question), explanation_en="")

    assert response.status_code == 200
    assert "The quiz is published: it has no explanation" in response.content.decode()
    question.refresh_from_db()
    assert question.explanation_en
