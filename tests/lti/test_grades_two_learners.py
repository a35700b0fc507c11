"""Two learners of one course take the same quiz: each score goes under its own learner."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_quiz

from .conftest import launch
from .test_grades import take

pytestmark = pytest.mark.django_db


def launched(registered, quiz, *, sub: str, name: str) -> Client:
    client = Client()
    response, _token, _auth = launch(
        client,
        registered,
        target_link_uri=f"http://testserver/en/quizzes/{quiz.slug}/",
        sub=sub,
        email=f"{name}@lms.example",
        name=name.title(),
        given_name=name.title(),
    )
    assert response.status_code == 302
    registered.tool_jwks = client.get("/lti/jwks/").json()  # the platform checks the tool's
    return client


def test_each_learners_score_is_posted_under_their_own_sub(
    registered, django_capture_on_commit_callbacks
):
    quiz = make_quiz(questions=3)
    amina = launched(registered, quiz, sub="sub-amina", name="amina")
    bilal = launched(registered, quiz, sub="sub-bilal", name="bilal")  # launched last

    with django_capture_on_commit_callbacks(execute=True):
        take(amina, quiz, right=3)
    with django_capture_on_commit_callbacks(execute=True):
        take(bilal, quiz, right=1)

    scores = {score["userId"]: score["scoreGiven"] for score in registered.received.scores}
    assert scores == {"sub-amina": 3, "sub-bilal": 1}
    assert len(registered.received.scores) == 2
