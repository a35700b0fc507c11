"""The login's second step (/lti/login/continue/) leads to the platform once per login and is
limited like the first: a replayed link makes no second PendingLogin row."""

from __future__ import annotations

import pytest
from django.test import Client

from lti import login as lti_login
from lti.models import PendingLogin
from tests.factories import make_quiz

from .conftest import login_continue

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("frozen_clock")]


def quiz_url(quiz) -> str:
    return f"http://testserver/en/quizzes/{quiz.slug}/"


def test_a_hundred_replays_of_the_second_step_make_one_login_and_a_hundred_refusals(registered):
    client = Client(REMOTE_ADDR="203.0.113.9")
    onwards = login_continue(client, registered, target_link_uri=quiz_url(make_quiz()))
    assert client.get(onwards).status_code == 302

    # The cookie is gone with the first answer; a replay opens the step "in a new window", as
    # the page for blocked cookies does, which skips it.
    replays = [client.get(onwards + "&window=new") for _ in range(100)]

    assert {response.status_code for response in replays} == {400}
    assert "This launch was used already" in replays[0].content.decode()
    assert PendingLogin.objects.count() == 1


def test_the_page_for_blocked_cookies_does_not_use_the_link_up_its_own_window_does(registered):
    client = Client(REMOTE_ADDR="203.0.113.9")
    onwards = login_continue(client, registered, target_link_uri=quiz_url(make_quiz()))
    del client.cookies[lti_login.CHECK_COOKIE]  # the browser kept the cookie from the frame

    framed = client.get(onwards)
    in_new_window = client.get(onwards + "&window=new")
    again = client.get(onwards + "&window=new")

    assert framed.status_code == 403
    assert in_new_window.status_code == 302
    assert in_new_window["Location"].startswith(registered.auth_url)
    assert again.status_code == 400
    assert PendingLogin.objects.count() == 1


def test_the_second_step_is_limited_per_client_like_the_first(registered, settings):
    quiz = make_quiz()
    client = Client(REMOTE_ADDR="198.51.100.7")
    links = [login_continue(client, registered, target_link_uri=quiz_url(quiz)) for _ in range(4)]
    settings.LTI_LOGIN_RATE_PER_CLIENT = "3/h"

    answers = [client.get(f"{link}&window=new", REMOTE_ADDR="203.0.113.9") for link in links]

    assert [response.status_code for response in answers] == [302, 302, 302, 429]
    assert int(answers[-1]["Retry-After"]) == 80 * 60
    assert PendingLogin.objects.count() == 3
    assert client.get(f"{links[-1]}&window=new", REMOTE_ADDR="192.0.2.1").status_code == 302
