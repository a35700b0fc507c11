"""Framing and cookies: the launching platform may frame Daleel; nobody else, ever."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_quiz

from .conftest import launch

pytestmark = pytest.mark.django_db


def frame_ancestors(response) -> str:
    policy = response["Content-Security-Policy"]
    return next(p for p in policy.split(";") if "frame-ancestors" in p).strip()


def test_inside_an_lti_session_only_the_platform_may_frame_the_pages(registered):
    quiz = make_quiz()
    client = Client()
    launch(client, registered, target_link_uri=f"http://testserver/en/quizzes/{quiz.slug}/")

    response = client.get(f"/en/quizzes/{quiz.slug}/")

    assert frame_ancestors(response) == f"frame-ancestors {registered.base}"
    assert "X-Frame-Options" not in response


def test_outside_lti_framing_stays_denied(learner_client, quiz):
    response = learner_client.get(f"/en/quizzes/{quiz.slug}/")

    assert frame_ancestors(response) == "frame-ancestors 'none'"
    assert response["X-Frame-Options"] == "DENY"


def test_lti_sessions_send_their_cookies_in_the_platforms_frame(registered):
    quiz = make_quiz()
    client = Client()

    response, _token, _auth = launch(
        client, registered, target_link_uri=f"http://testserver/en/quizzes/{quiz.slug}/"
    )

    session = response.cookies["sessionid"]
    assert session["samesite"] == "None"
    assert session["secure"] is True
    page = client.get(f"/en/quizzes/{quiz.slug}/")
    csrf = page.cookies.get("csrftoken")
    if csrf is not None:
        assert csrf["samesite"] == "None" and csrf["secure"] is True


def test_other_sessions_keep_lax_cookies(db):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("zaid", password="a-long-test-passphrase-42")
    client = Client()
    response = client.post(
        "/en/accounts/login/", {"login": "zaid", "password": "a-long-test-passphrase-42"}
    )

    assert response.cookies["sessionid"]["samesite"] == "Lax"


def test_the_platforms_other_origins_registered_for_it_may_frame_it_too(registered):
    from lti.models import Registration

    Registration.objects.filter(client_id=registered.client_id).update(
        frame_origins="https://extra.example.org\nnot-an-origin"
    )
    quiz = make_quiz()
    client = Client()
    launch(
        client,
        registered,
        target_link_uri=f"http://testserver/en/quizzes/{quiz.slug}/",
        **{
            "https://purl.imsglobal.org/spec/lti/claim/launch_presentation": {
                "return_url": "https://extra.example.org/courses/1/external_content"
            }
        },
    )

    response = client.get(f"/en/quizzes/{quiz.slug}/")

    assert frame_ancestors(response) == (
        f"frame-ancestors {registered.base} https://extra.example.org"
    )
