"""Security headers on every page, and pages that hold under the strict policy."""

import re

import pytest
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.db import OperationalError
from django.http import HttpResponse
from django.test import Client, RequestFactory, override_settings
from django.utils import translation

from quizzes.attempts.services import attempt_start
from quizzes.views.errors import server_error
from tests.factories import PASSWORD, correct_choice
from tests.steps import post_answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def pages(learner, quiz):
    attempt = attempt_start(user=learner, quiz=quiz)
    question = quiz.questions.get(position=1)
    post_answer(attempt, question, choice=correct_choice(question))
    return [
        "/en/",
        "/ar/",
        f"/en/quizzes/{quiz.slug}/",
        f"/ar/quizzes/{quiz.slug}/",
        f"/en/attempts/{attempt.pk}/questions/1/",
        f"/en/attempts/{attempt.pk}/questions/2/",
        f"/ar/attempts/{attempt.pk}/questions/2/",
        "/en/attempts/",
        "/en/accounts/password/change/",
        "/en/accounts/email/",
        "/en/accounts/2fa/",
    ]


ANONYMOUS_PAGES = [
    "/en/accounts/login/",
    "/ar/accounts/login/",
    "/ar/accounts/signup/",
    "/en/accounts/password/reset/",
    "/en/no-such-page/",
]


def _policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {
        name: values
        for name, *values in (part.split() for part in header.split(";") if part.strip())
    }


def _check(response) -> None:
    policy = _policy(response)
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert "unsafe" not in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"

    html = response.content.decode()
    # Nothing inline: every script has a src, no <style>, no style="", no hx-on handlers.
    assert not re.search(r"<script(?![^>]*\ssrc=)[^>]*>", html)
    assert "<style" not in html
    assert not re.search(r"\sstyle=", html)
    assert not re.search(r"\s(hx-on|on[a-z]+)=", html)


def test_learner_pages_send_strict_headers_and_hold_nothing_inline(learner_client, pages):
    for url in pages:
        response = learner_client.get(url)
        assert response.status_code == 200, url
        _check(response)


def test_two_factor_setup_pages_send_strict_headers_and_hold_nothing_inline(learner_client):
    # They ask for the password again first (ACCOUNT_REAUTHENTICATION_REQUIRED).
    learner_client.post("/en/accounts/reauthenticate/", {"password": PASSWORD})
    for url in ("/ar/accounts/2fa/webauthn/add/", "/en/accounts/2fa/totp/activate/"):
        response = learner_client.get(url)
        assert response.status_code == 200, url
        _check(response)


def test_public_pages_send_strict_headers_and_hold_nothing_inline(client):
    for url in ANONYMOUS_PAGES:
        _check(client.get(url))


def test_htmx_is_served_from_our_own_static_files_as_version_4(client):
    html = client.get("/en/").content.decode()
    assert re.search(r'<script src="/static/django_htmx/htmx-4(\.min)?\.js" defer', html)
    assert "includeIndicatorCSS" in html
    assert "//cdn" not in html and "unpkg" not in html


@override_settings(DEBUG=False)
@pytest.mark.parametrize(("prefix", "words"), [("en", "could not find"), ("ar", 'dir="rtl"')])
def test_missing_pages_get_our_own_404_in_each_language(client, prefix, words):
    response = client.get(f"/{prefix}/quizzes/no-such-quiz/")
    assert response.status_code == 404
    html = response.content.decode()
    assert words in html and "daleel.css" in html


def test_the_500_page_renders_without_the_database_or_a_session():
    request = RequestFactory().get("/en/")
    response = server_error(request)
    assert response.status_code == 500
    assert "Something went wrong" in response.content.decode()


def _signed_in_request(client, learner, path: str):
    """A request as the middleware leaves it for a signed-in learner: session and user lazy,
    read from the database on first use."""
    client.force_login(learner)
    request = RequestFactory().get(path)
    request.COOKIES = {name: morsel.value for name, morsel in client.cookies.items()}
    SessionMiddleware(lambda r: HttpResponse()).process_request(request)
    AuthenticationMiddleware(lambda r: HttpResponse()).process_request(request)
    return request


def test_the_500_page_of_a_signed_in_learner_reads_neither_session_nor_user(
    client, learner, django_assert_num_queries
):
    request = _signed_in_request(client, learner, "/en/")
    with django_assert_num_queries(0):
        response = server_error(request)
    assert response.status_code == 500
    assert not request.session.accessed


def test_a_database_error_gets_the_503_page_with_retry_after_without_the_database(
    client, learner, django_assert_num_queries
):
    request = _signed_in_request(client, learner, "/ar/")
    translation.activate("ar")
    with django_assert_num_queries(0):
        try:
            raise OperationalError("connection failed: Connection refused")
        except OperationalError:
            response = server_error(request)
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert "«دليل» غير متاح مؤقتًا" in response.content.decode()


def test_a_post_without_a_csrf_token_gets_our_own_403(csrf_client, learner, quiz):
    csrf_client.force_login(learner)
    response = csrf_client.post(f"/en/quizzes/{quiz.slug}/start/")
    assert response.status_code == 403
    assert "This form has expired" in response.content.decode()


def test_a_post_with_the_csrf_header_htmx_sends_is_accepted(csrf_client, learner, quiz):
    csrf_client.force_login(learner)
    page = csrf_client.get(f"/en/quizzes/{quiz.slug}/")
    token = re.search(r'"x-csrftoken": "([^"]+)"', page.content.decode()).group(1)
    response = csrf_client.post(
        f"/en/quizzes/{quiz.slug}/start/", HTTP_X_CSRFTOKEN=token, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200


def test_healthz_answers_ok_without_a_session_or_the_database(django_assert_num_queries):
    client = Client()
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200 and response.content == b"ok"
    assert (
        "sessionid" not in response.cookies
        and "Vary" not in response
        or ("Cookie" not in response.get("Vary", ""))
    )


@pytest.mark.django_db
def test_readyz_answers_ok_after_one_statement_and_without_a_session(django_assert_num_queries):
    client = Client()
    with django_assert_num_queries(1):
        response = client.get("/readyz")
    assert response.status_code == 200 and response.content == b"ok"
    assert "sessionid" not in response.cookies
    assert "Cookie" not in response.get("Vary", "")


def test_a_learners_pages_are_never_kept_by_shared_caches(learner_client, pages):
    # Every one: even the catalog shows the learner's name and progress.
    for url in pages:
        assert "private" in learner_client.get(url).get("Cache-Control", ""), url


def test_the_catalog_of_a_visitor_who_is_not_signed_in_may_be_cached(client):
    assert "private" not in client.get("/en/").get("Cache-Control", "")


def test_a_request_for_a_host_that_is_not_allowed_gets_the_strict_headers_too(client, settings):
    settings.DEBUG = False
    response = client.get("/en/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    _check(response)


def test_the_development_server_loads_the_same_scripts_as_production(client, settings):
    """django-htmx's debug extension (added under DEBUG) stops htmx swapping 4xx fragments:
    `make run` would then show a learner nothing where production shows the error."""
    settings.DEBUG = False
    production = re.findall(r"<script[^>]*>", client.get("/en/").content.decode())
    settings.DEBUG = True
    development = re.findall(r"<script[^>]*>", client.get("/en/").content.decode())

    assert development == production
    assert not any("django-htmx.js" in tag for tag in development)
