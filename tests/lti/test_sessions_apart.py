"""LTI sessions kept apart: the login writes nothing into any session and makes none; only a
session that a completed launch created may be framed or sent cross-site; a login started
cross-site in a signed-in learner's browser changes nothing of theirs."""

from __future__ import annotations

import pytest
from django.contrib.sessions.models import Session
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_started
from django.db import close_old_connections
from django.test import Client, RequestFactory

from lti.models import PendingLogin
from tests.factories import PASSWORD, make_quiz, make_user

from .conftest import launch, login_params, login_redirect
from .test_framing import frame_ancestors

pytestmark = pytest.mark.django_db


def quiz_url(quiz) -> str:
    return f"http://testserver/en/quizzes/{quiz.slug}/"


@pytest.fixture
def signed_in_learner():
    make_user("amina")
    client = Client()
    response = client.post("/en/accounts/login/", {"login": "amina", "password": PASSWORD})
    assert response.status_code == 302
    return client


def _session_data(client: Client) -> dict:
    return Session.objects.get(session_key=client.cookies["sessionid"].value).get_decoded()


def test_a_login_started_in_a_signed_in_learners_browser_changes_nothing_of_theirs(
    registered, signed_in_learner
):
    quiz = make_quiz()
    client = signed_in_learner
    key, before = client.cookies["sessionid"].value, _session_data(client)

    first = client.get("/lti/login/", login_params(registered, target_link_uri=quiz_url(quiz)))
    onwards = client.get(first["Location"])

    for response in (first, onwards):
        assert response["X-Frame-Options"] == "DENY"
        assert frame_ancestors(response) == "frame-ancestors 'none'"
        assert "sessionid" not in response.cookies
    assert onwards["Location"].startswith(registered.auth_url)
    assert client.cookies["sessionid"].value == key
    assert _session_data(client) == before
    page = client.get(f"/en/quizzes/{quiz.slug}/")
    assert page["X-Frame-Options"] == "DENY"
    assert frame_ancestors(page) == "frame-ancestors 'none'"
    assert "sessionid" not in page.cookies


def test_an_anonymous_login_makes_no_session_only_a_row_of_its_own(registered):
    quiz = make_quiz()
    client = Client()

    auth = login_redirect(client, registered, target_link_uri=quiz_url(quiz))

    assert not Session.objects.exists()
    assert "sessionid" not in client.cookies
    (login,) = PendingLogin.objects.all()
    assert login.state == auth["state"] and login.nonce == auth["nonce"]


def test_a_forged_or_cross_site_launch_writes_no_session_and_changes_the_learners_not(
    registered, signed_in_learner
):
    quiz = make_quiz()
    client = signed_in_learner
    key, before = client.cookies["sessionid"].value, _session_data(client)
    auth = login_redirect(client, registered, target_link_uri=quiz_url(quiz))
    forged = registered.id_token(nonce="made-up", target_link_uri=quiz_url(quiz))

    response = client.post("/lti/launch/", {"id_token": forged, "state": auth["state"]})

    assert response.status_code == 403
    assert "sessionid" not in response.cookies
    assert Session.objects.count() == 1
    assert client.cookies["sessionid"].value == key and _session_data(client) == before
    assert client.get(f"/en/quizzes/{quiz.slug}/")["X-Frame-Options"] == "DENY"


def test_a_completed_launch_makes_a_session_of_its_own_and_leaves_the_learners_as_it_was(
    registered, signed_in_learner
):
    quiz = make_quiz()
    client = signed_in_learner
    key, before = client.cookies["sessionid"].value, _session_data(client)

    response, _token, _auth = launch(client, registered, target_link_uri=quiz_url(quiz))

    assert response.status_code == 302
    launched = response.cookies["sessionid"]
    assert launched.value != key
    assert launched["samesite"] == "None"
    assert Session.objects.get(session_key=key).get_decoded() == before
    # The learner's own session, elsewhere, is still theirs and still not framed.
    elsewhere = Client()
    elsewhere.cookies["sessionid"] = key
    page = elsewhere.get(f"/en/quizzes/{quiz.slug}/")
    assert page.wsgi_request.user.username == "amina"
    assert page["X-Frame-Options"] == "DENY"


def test_one_address_may_start_only_so_many_logins(frozen_clock, registered, settings):
    settings.LTI_LOGIN_RATE_PER_CLIENT = "3/h"
    quiz = make_quiz()
    params = login_params(registered, target_link_uri=quiz_url(quiz))
    client = Client(REMOTE_ADDR="203.0.113.9")
    answers = [client.get("/lti/login/", params).status_code for _ in range(4)]

    assert answers == [302, 302, 302, 429]
    refused = client.get("/lti/login/", params)
    assert int(refused["Retry-After"]) > 0
    assert Client(REMOTE_ADDR="198.51.100.7").get("/lti/login/", params).status_code == 302


def test_the_default_login_limit_is_three_hundred_an_hour(settings):
    assert settings.LTI_LOGIN_RATE_PER_CLIENT == "300/h"


def _set_cookie_headers(path: str, **extra) -> list[str]:
    """The Set-Cookie headers as Django's WSGI handler writes them to the server."""
    environ = RequestFactory().get(path, **extra).environ
    found: list[str] = []

    def start_response(status, headers, exc_info=None):
        found.extend(value for name, value in headers if name == "Set-Cookie")

    # As Django's test client does: the request's start must not close the test's connection.
    request_started.disconnect(close_old_connections)
    try:
        WSGIHandler()(environ, start_response)
    finally:
        request_started.connect(close_old_connections)
    return found


def test_the_logins_cookies_are_third_party_and_partitioned_on_the_wire(registered):
    quiz = make_quiz()
    params = login_params(registered, target_link_uri=quiz_url(quiz))
    query = "&".join(f"{k}={v}" for k, v in params.items())

    (check,) = _set_cookie_headers(f"/lti/login/?{query}")
    step = Client().get("/lti/login/", params)
    token_cookie = step.cookies["lti1p3-check"].value
    headers = _set_cookie_headers(step["Location"], HTTP_COOKIE=f"lti1p3-check={token_cookie}")

    state = next(h for h in headers if "lti1p3-state-" in h)
    for header in (check, state):
        assert "SameSite=None" in header and "Secure" in header
        assert header.rstrip().endswith("; Partitioned")


def test_a_launched_sessions_cookies_are_partitioned_and_others_not(registered):
    quiz = make_quiz()
    client = Client()
    response, _token, _auth = launch(client, registered, target_link_uri=quiz_url(quiz))

    assert response.cookies["sessionid"].output().endswith("; Partitioned")
    signed_in = Client()
    make_user("zaid")
    ordinary = signed_in.post("/en/accounts/login/", {"login": "zaid", "password": PASSWORD})
    assert "Partitioned" not in ordinary.cookies["sessionid"].output()


def test_a_refusal_may_be_framed_by_the_logins_platform_only_and_a_forged_ones_by_nobody(
    registered,
):
    quiz = make_quiz()
    client = Client()
    auth = login_redirect(client, registered, target_link_uri=quiz_url(quiz))
    forged = registered.id_token(nonce="made-up", target_link_uri=quiz_url(quiz))

    ours = client.post("/lti/launch/", {"id_token": forged, "state": auth["state"]})
    nobodys = Client().post("/lti/launch/", {"id_token": forged, "state": "state-made-up"})

    assert frame_ancestors(ours) == f"frame-ancestors {registered.base}"
    assert "X-Frame-Options" not in ours
    assert frame_ancestors(nobodys) == "frame-ancestors 'none'"
    assert nobodys["X-Frame-Options"] == "DENY"
