"""The line item a deep link creates is scored out of what every attempt is scored out of,
whatever the quiz draws."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from quizzes.models import Attempt, Quiz
from tests.factories import make_quiz, make_user

from .platform import DL
from .test_deep_linking import csrf_of, instructor_launch

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("questions", "drawn"), [(5, 2), (3, 8)])
def test_the_line_items_maximum_is_what_an_attempt_is_scored_out_of(registered, questions, drawn):
    # An exam, so that "Submit all" finishes it with nothing answered.
    quiz = make_quiz(
        questions=questions, questions_per_attempt=drawn, feedback=Quiz.Feedback.DEFERRED
    )
    learner = Client()
    learner.force_login(make_user())
    learner.post(f"/en/quizzes/{quiz.slug}/start/")
    attempt = Attempt.objects.get(quiz=quiz)
    learner.post(f"/en/attempts/{attempt.pk}/finish/")  # Submit all, nothing answered
    attempt.refresh_from_db()
    assert attempt.is_finished
    client = instructor_launch(registered)
    html = client.get("/lti/deep-linking/").content.decode()

    response = client.post(
        "/lti/deep-linking/", {"quizzes": [quiz.slug], "csrfmiddlewaretoken": csrf_of(html)}
    )

    jwt_value = re.search(r'name="JWT" value="([^"]+)"', response.content.decode()).group(1)
    registered.tool_jwks = client.get("/lti/jwks/").json()
    (item,) = registered.verify_tool_jwt(jwt_value)[DL + "content_items"]
    assert item["lineItem"]["scoreMaximum"] == attempt.total == min(questions, drawn)
