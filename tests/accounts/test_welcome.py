"""A new learner is welcomed once, in their language, and pointed to where to go first."""

import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-passphrase-for-tests-51"


def _sign_up(client: Client, lang: str, username: str = "salma", next_url: str = ""):
    return client.post(
        f"/{lang}/accounts/signup/",
        {"username": username, "password1": PASSWORD, "password2": PASSWORD, "next": next_url},
        follow=True,
    )


def _welcome(html: str) -> str:
    found = re.search(r'<p class="message message--success">(.*?)</p>', html, re.S)
    assert found, "no welcome message"
    return found[1]


@pytest.mark.parametrize(
    ("lang", "words"), [("en", "Welcome to Daleel"), ("ar", "مرحبًا بك في «دليل»")]
)
def test_signing_up_welcomes_the_learner_with_links_to_catalog_review_and_profile(
    client, lang, words
):
    response = _sign_up(client, lang)
    assert response.redirect_chain == [(f"/{lang}/", 302)]
    welcome = _welcome(response.content.decode())
    assert words in welcome
    assert "<bdi>salma</bdi>" in welcome
    links = re.findall(r'<a href="([^"]+)">', welcome)
    assert links == [f"/{lang}/", f"/{lang}/review/", f"/{lang}/accounts/profile/"]


def test_the_welcome_shows_once(client):
    _sign_up(client, "en")
    assert "Welcome to Daleel" not in client.get("/en/").content.decode()


def test_the_welcome_escapes_the_username(client):
    # The form refuses markup in a username; whatever it lets through is escaped all the same.
    response = _sign_up(client, "en", username="sa.l_ma+1")
    assert "<bdi>sa.l_ma+1</bdi>" in _welcome(response.content.decode())


def test_the_welcome_follows_the_learner_to_the_page_they_came_from(client, quiz):
    response = _sign_up(client, "en", next_url=f"/en/quizzes/{quiz.slug}/")
    assert response.redirect_chain == [(f"/en/quizzes/{quiz.slug}/", 302)]
    assert "Welcome to Daleel" in _welcome(response.content.decode())


def test_signing_in_again_says_no_welcome(client, learner):
    from tests.factories import PASSWORD as LEARNER_PASSWORD

    response = client.post(
        "/en/accounts/login/",
        {"login": learner.username, "password": LEARNER_PASSWORD},
        follow=True,
        REMOTE_ADDR="127.0.0.1",
    )
    assert response.status_code == 200
    assert "Welcome to Daleel" not in response.content.decode()
