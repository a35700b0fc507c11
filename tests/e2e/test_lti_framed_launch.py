"""A learner opens a quiz inside their course's page on a platform (the test LMS, over real
HTTP, on another site than Daleel's), in Chromium, which blocks third-party cookies: the
launch works in the frame with Daleel's partitioned cookies, the learner finishes the quiz
there, and the platform receives the score once."""

from __future__ import annotations

import re

import pytest
import requests
from django.core.management import call_command
from playwright.sync_api import Page, expect

from lti.models import ScorePost
from quizzes.models import Attempt
from tests.lti.platform import TestPlatform

from . import support


@pytest.fixture
def platform(live_server, transactional_db):
    test_platform = TestPlatform().start()
    call_command(
        "lti_register",
        issuer=test_platform.issuer,
        client_id=test_platform.client_id,
        deployment_id=test_platform.deployment_id,
        auth_url=test_platform.auth_url,
        token_url=test_platform.token_url,
        jwks_url=test_platform.jwks_url,
        name="Test LMS",
        base_url=live_server.url,
        stdout=open("/dev/null", "w"),  # noqa: SIM115
    )
    test_platform.tool_jwks = requests.get(live_server.url + "/lti/jwks/", timeout=10).json()
    yield test_platform
    test_platform.stop()


def test_a_quiz_launched_in_the_platforms_frame_with_third_party_cookies_blocked(
    page: Page, live_server, platform, quiz
):
    # Two sites: the platform on 127.0.0.1, Daleel on localhost.
    assert "localhost" in live_server.url and "127.0.0.1" in platform.base
    course = platform.course_page_for(
        live_server.url, target_link_uri=f"{live_server.url}/en/quizzes/{quiz.slug}/"
    )

    page.goto(course)
    frame = page.frame_locator("#tool")
    expect(frame.get_by_role("button", name="Start quiz")).to_be_visible()
    tool_frame = next(f for f in page.frames if f.url.startswith(live_server.url))
    # Third-party cookies are blocked in this frame (Chromium's default here).
    assert tool_frame.evaluate("document.hasStorageAccess()") is False
    assert len(platform.received.auth_requests) == 1  # the hint used once

    key = support.answer_key(quiz, "en")
    frame.get_by_role("button", name="Start quiz").click()
    for number, question in enumerate(key, start=1):
        choice = question.wrong if number == 2 else question.right
        frame.locator("#quiz-area label.choice", has_text=choice).click()
        support.submit_button(frame).click()
        support.next_control(frame).click()

    expect(frame.locator(".score-summary__big")).to_have_text(f"{len(key) - 1} / {len(key)}")
    assert page.url == course  # all of it inside the course's page
    attempt = Attempt.objects.get(quiz=quiz)
    assert attempt.is_finished and attempt.score == len(key) - 1
    (score,) = platform.received.scores
    assert score["scoreGiven"] == len(key) - 1 and score["scoreMaximum"] == len(key)
    assert score["userId"] == "learner-sub-1"
    assert ScorePost.objects.get(attempt=attempt).status == ScorePost.Status.SENT
    assert re.match(r"\d{4}-\d\d-\d\dT", score["timestamp"])
