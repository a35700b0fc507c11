"""The benchmark's `/bench/rules/…` views (bench/urls.py): an answer and the catalog's listing
by the same rules and statements as the site's views, without their own work. The bench
reports their rates as the most a view could reach; they must do what the site does."""

from __future__ import annotations

import pytest

from quizzes.attempts import attempt_start
from quizzes.models import Answer, Attempt, ReviewCard
from tests.factories import correct_choice, make_quiz, make_user, wrong_choice

pytestmark = [pytest.mark.django_db, pytest.mark.urls("bench.urls")]


def _answer(client, attempt: Attempt, number: int, choice, question=None) -> tuple[int, str]:
    """Post as the step's form does: the pick and the question seen (step `number`'s)."""
    if question is None:
        question = attempt.quiz.questions.get(position=number).pk
    response = client.post(
        f"/bench/rules/attempts/{attempt.pk}/questions/{number}/",
        {"choice": choice, "question": question},
    )
    return response.status_code, response.content.decode()


@pytest.fixture
def taking(client):
    learner = make_user()
    client.force_login(learner)
    quiz = make_quiz(questions=2)
    attempt = attempt_start(user=learner, quiz=quiz)
    return client, attempt, list(quiz.questions.order_by("position"))


def test_the_rules_alone_record_an_answer_as_the_step_does(taking):
    client, attempt, (first, second) = taking
    assert _answer(client, attempt, 1, wrong_choice(first).pk) == (200, "feedback--wrong")
    assert Answer.objects.get(attempt=attempt, question=first).is_correct is False
    assert ReviewCard.objects.filter(user=attempt.user, question=first).exists()

    assert _answer(client, attempt, 2, correct_choice(second).pk) == (200, "feedback--right")
    attempt.refresh_from_db()
    assert attempt.is_finished and attempt.score == 1


def test_the_rules_alone_take_an_answer_once(taking):
    client, attempt, (first, _second) = taking
    assert _answer(client, attempt, 1, correct_choice(first).pk) == (200, "feedback--right")
    # The first answer stands, and is what a replay or a second tab is told.
    assert _answer(client, attempt, 1, wrong_choice(first).pk) == (200, "feedback--right")
    assert Answer.objects.get(attempt=attempt, question=first).is_correct is True


def test_the_rules_alone_refuse_what_the_step_refuses_and_write_nothing(taking, client):
    _client, attempt, (first, second) = taking
    assert _answer(client, attempt, 1, "first") == (400, "choice and question: numbers")
    assert _answer(client, attempt, 1, correct_choice(first).pk, "first")[0] == 400
    assert _answer(client, attempt, 1, correct_choice(second).pk)[0] == 409
    assert _answer(client, attempt, 2, correct_choice(second).pk) == (409, "not-open")
    assert not Answer.objects.filter(attempt=attempt).exists()

    client.force_login(make_user())
    assert _answer(client, attempt, 1, correct_choice(first).pk)[0] == 404
    client.logout()
    assert _answer(client, attempt, 1, correct_choice(first).pk)[0] == 403
    assert not Answer.objects.filter(attempt=attempt).exists()
    assert client.get(f"/bench/rules/attempts/{attempt.pk}/questions/1/").status_code == 405


def test_the_catalogs_listing_alone_lists_what_the_catalog_lists(client):
    client.force_login(make_user())
    for _ in range(3):
        make_quiz(questions=1)
    make_quiz(questions=1, title_en="Gradient descent", title_ar="الانحدار التدرجي")
    assert client.get("/bench/rules/catalog").content.decode() == "4 cards"
    assert client.get("/bench/rules/catalog", {"q": "gradient"}).content.decode() == "1 cards"
    assert client.get("/bench/rules/catalog", {"q": "التدرجي"}).content.decode() == "1 cards"
    assert client.get("/bench/rules/catalog", {"page": "99"}).status_code == 200


def test_the_site_itself_serves_no_rules_alone(client, settings):
    settings.ROOT_URLCONF = "config.urls"
    client.force_login(make_user())
    assert client.get("/bench/rules/catalog").status_code == 404
