"""Junk sent to the account pages and the report form: never a 500, never a stray change."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st

from accounts.models import Profile
from quizzes.attempts.services import attempt_start
from quizzes.models import QuestionReport
from tests.factories import PASSWORD, make_quiz, wrong_choice
from tests.fuzzing import examples
from tests.steps import post_answer

from .test_fuzz import FUZZ, junk

pytestmark = pytest.mark.django_db
FEWER = settings(
    FUZZ, max_examples=examples(50)
)  # forms of plain fields: fewer cases find the same

User = get_user_model()
next_urls = st.one_of(
    junk,
    st.sampled_from(["//evil.example", "javascript:alert(1)", "/\nSet-Cookie: x", "/\\evil", ""]),
)


@pytest.fixture
def question(learner):
    quiz = make_quiz(questions=1)
    question = quiz.questions.get()
    attempt = attempt_start(user=learner, quiz=quiz)
    post_answer(attempt, question, choice=wrong_choice(question))
    return question


@FEWER
@given(reason=junk, text=junk, next_url=next_urls, hx=st.booleans())
def test_junk_reports_never_error(learner_client, question, reason, text, next_url, hx):
    headers = {"HTTP_HX_REQUEST": "true"} if hx else {}
    data = {"reason": reason, "text": text, "next": next_url}
    response = learner_client.post(f"/en/questions/{question.pk}/report/", data, **headers)
    assert response.status_code < 500
    location = response.headers.get("Location", "")
    assert not location.startswith(("//", "http", "javascript")) and "\n" not in location
    QuestionReport.objects.all().delete()


@FEWER
@given(email=junk, language=junk, password=junk)
def test_junk_profiles_never_error_nor_change_the_email(learner, email, language, password):
    client = Client()
    client.force_login(learner)
    data = {"email": email, "language": language, "password": password}
    assert client.post("/en/accounts/profile/", data).status_code < 500
    learner.refresh_from_db()
    assert learner.email == ""  # a new address needs the right password
    assert Profile.for_user(learner).language in {"", "en", "ar"}


@FEWER
@given(password=junk)
def test_junk_passwords_never_delete_an_account(learner, password):
    client = Client()
    client.force_login(learner)
    assert client.post("/en/accounts/delete/", {"password": password}).status_code < 500
    assert User.objects.filter(pk=learner.pk).exists()


@FEWER
@given(email=junk, username=junk)
def test_junk_sign_ups_and_reset_requests_never_error(client, email, username):
    assert client.post("/en/accounts/password/reset/", {"email": email}).status_code < 500
    data = {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD}
    assert Client().post("/en/accounts/signup/", data).status_code < 500
