"""Attacks on the launch's and the picker's rules, not only their normal path: a used state
with a fresh nonce, and a quiz the picker does not list posted to it anyway."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from lti.models import LtiIdentity
from tests.factories import make_quiz

from .conftest import launch, login_redirect
from .test_deep_linking import csrf_of, instructor_launch
from .test_launch import quiz_url, refused

pytestmark = pytest.mark.django_db

User = get_user_model()


def test_a_launch_reusing_a_used_state_with_a_fresh_nonce_is_refused(registered):
    """The replay tests resend the whole token, which its nonce alone refuses: here the nonce
    is new (a second login in the same browser) and only the state was used already."""
    quiz = make_quiz()
    client = Client()
    first, _token, used = launch(client, registered, target_link_uri=quiz_url(quiz))
    assert first.status_code == 302
    signed_in_as = client.session["_auth_user_id"]

    fresh = login_redirect(client, registered, target_link_uri=quiz_url(quiz))
    token = registered.id_token(
        nonce=fresh["nonce"],
        target_link_uri=quiz_url(quiz),
        sub="learner-sub-2",
        email="bilal@lms.example",
    )
    reuse = client.post("/lti/launch/", {"id_token": token, "state": used["state"]})

    assert "used already" in refused(reuse)
    assert not LtiIdentity.objects.filter(sub="learner-sub-2").exists()
    assert User.objects.count() == 1
    assert client.session["_auth_user_id"] == signed_in_as


def test_an_unpublished_quiz_posted_to_the_picker_is_not_returned_to_the_platform(registered):
    """The picker lists published quizzes only; a POST naming a draft's slug is answered as a
    pick of nothing, and no signed response names the draft."""
    make_quiz(title_en="Listed")
    draft = make_quiz(title_en="Hidden draft", is_published=False)
    client = instructor_launch(registered)
    html = client.get("/lti/deep-linking/").content.decode()

    response = client.post(
        "/lti/deep-linking/", {"quizzes": [draft.slug], "csrfmiddlewaretoken": csrf_of(html)}
    )

    assert response.status_code == 400
    page = response.content.decode()
    assert "Choose at least one quiz." in page
    assert not re.search(r'name="JWT"', page)
    assert draft.slug not in page and "Hidden draft" not in page
