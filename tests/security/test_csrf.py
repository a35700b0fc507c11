"""Every URL of the site refuses a POST without a CSRF token, and nothing changes.

The URLs come from the URL patterns (tests/site_urls.py), so a new view is covered as soon as it
exists: a `@csrf_exempt` anywhere fails here, but for the one named in ONE_CLICK. The views that
change state are also posted with a token, to show that the same POST does its work once the
token is there.
"""

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client

from quizzes.attempts.services import attempt_start
from quizzes.models import Answer, Attempt
from tests.factories import PASSWORD
from tests.site_urls import every_url, url_names, url_values

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "another-long-passphrase-77"
EXPIRED = "This form has expired"
# Exempt on purpose: a mail client's one-click unsubscribe (RFC 8058) POSTs from elsewhere,
# with no token. Its URL's signed token is its authority, and all it can do is turn off the
# reminders of the profile it names (tests/quizzes/test_reminders.py); without a valid
# token it changes nothing.
ONE_CLICK = {"quizzes:reminders_unsubscribe"}


@pytest.fixture
def scene(learner, instructor, quiz):
    attempt = attempt_start(user=learner, quiz=quiz)
    urls = every_url(url_values(quiz=quiz, attempt=attempt, user=learner))
    right = quiz.questions.get(position=1).choices.get(is_correct=True)
    posts = {
        # What each state-changing view is sent when it is used for real.
        "quizzes:start": {},
        "quizzes:question": {"choice": right.pk},
        "accounts:signup": {
            "username": "salma",
            "password1": NEW_PASSWORD,
            "password2": NEW_PASSWORD,
        },
        "accounts:login": {"login": learner.username, "password": PASSWORD},
        "accounts:logout": {},
        "accounts:password_change": {
            "oldpassword": PASSWORD,
            "password1": NEW_PASSWORD,
            "password2": NEW_PASSWORD,
        },
        "set_language": {"language": "ar", "next": "/en/"},
    }
    return urls, posts


def _state():
    User = get_user_model()
    return (
        sorted(User.objects.values_list("username", "password")),
        sorted(Attempt.objects.values_list("pk", "finished_at")),
        sorted(Answer.objects.values_list("pk", flat=True)),
        sorted(Session.objects.values_list("session_key", flat=True)),
    )


# The LMS posts these cross-site, with no token of ours (LTI 1.3's third-party initiated login
# and its id_token): they are @csrf_exempt, and the signed id_token with its single-use state
# and nonce protects them instead (tests/lti). A POST of nothing is refused and changes nothing.
PLATFORM_POSTS = {"lti:login", "lti:launch"}


@pytest.mark.parametrize("name", sorted(PLATFORM_POSTS))
def test_what_the_platform_posts_without_a_token_is_refused_and_changes_nothing(scene, name):
    urls, _posts = scene
    client = Client(enforce_csrf_checks=True)
    before = _state()

    response = client.post(urls[name, "en"], {})

    assert response.status_code in {400, 403}, name
    assert _state() == before


@pytest.mark.parametrize("name", sorted(set(url_names()) - PLATFORM_POSTS))
def test_a_post_without_a_csrf_token_is_refused_on_every_url(scene, learner, instructor, name):
    urls, posts = scene
    signed_in = Client(enforce_csrf_checks=True)
    signed_in.force_login(instructor if name.startswith("admin:") else learner)
    for client in (Client(enforce_csrf_checks=True), signed_in):
        client.get("/en/")  # the CSRF cookie, as a browser has it: only the token is missing
        before = _state()

        response = client.post(urls[name, "en"], posts.get(name, {}))
        if name in ONE_CLICK:
            assert response.status_code == 400, name  # the URL's token is not a signed one
            assert _state() == before
            continue
        assert response.status_code == 403, name
        assert EXPIRED in response.content.decode()
        assert "django_language" not in response.cookies
        # htmx is told to reload the page, which gets a fresh token.
        response = client.post(urls[name, "en"], posts.get(name, {}), HTTP_HX_REQUEST="true")
        assert response.status_code == 403, name
        assert response["HX-Refresh"] == "true"
        assert _state() == before


@pytest.mark.parametrize(
    "name",
    [
        "quizzes:start",
        "quizzes:question",
        "accounts:signup",
        "accounts:login",
        "accounts:logout",
        "accounts:password_change",
        "set_language",
    ],
)
def test_the_same_posts_with_the_token_do_their_work(scene, learner, name):
    urls, posts = scene
    client = Client(enforce_csrf_checks=True)
    signed_out = name in {"accounts:signup", "accounts:login"}
    if not signed_out:
        client.force_login(learner)
    page = client.get("/en/accounts/login/" if signed_out else "/en/")
    token = re.search(r'"x-csrftoken": "([^"]+)"', page.content.decode()).group(1)
    if name == "quizzes:start":
        Attempt.objects.all().delete()  # so that Start starts one, not resumes it
    before = _state()

    response = client.post(urls[name, "en"], posts[name], HTTP_X_CSRFTOKEN=token)

    assert response.status_code in {200, 302}, name
    assert EXPIRED not in response.content.decode()
    if name == "set_language":
        assert response.cookies["django_language"].value == "ar"
    else:
        assert _state() != before
