"""Bad platform input: a `sub` of any length, addresses outside the platform's registered
origins, made-up key ids, an expired launch."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from lti.models import GradeLink, LtiIdentity, ScorePost
from tests.factories import make_quiz

from .conftest import launch
from .platform import CLAIM, DL, INSTRUCTOR, new_key
from .test_grades import launched_learner, take

pytestmark = pytest.mark.django_db

User = get_user_model()


def quiz_url(quiz) -> str:
    return f"http://testserver/en/quizzes/{quiz.slug}/"


def test_a_sub_of_any_length_signs_in_one_learner_and_is_kept_whole(registered):
    quiz = make_quiz()
    sub = "learner-" + "x" * 1200

    first, _token, _auth = launch(Client(), registered, target_link_uri=quiz_url(quiz), sub=sub)
    again, _token, _auth = launch(Client(), registered, target_link_uri=quiz_url(quiz), sub=sub)

    assert first.status_code == 302 and again.status_code == 302
    (identity,) = LtiIdentity.objects.all()
    assert identity.sub == sub
    assert GradeLink.objects.get().sub == sub
    assert User.objects.count() == 1


def test_two_long_subs_that_share_their_first_255_characters_are_two_learners(registered):
    quiz = make_quiz()
    common = "s" * 300
    launch(Client(), registered, target_link_uri=quiz_url(quiz), sub=common + "-a")
    launch(Client(), registered, target_link_uri=quiz_url(quiz), sub=common + "-b")

    assert LtiIdentity.objects.count() == 2 and User.objects.count() == 2


def _refused_with_nothing_made(response) -> str:
    assert response.status_code == 403
    html = response.content.decode()
    assert "not your platform&#x27;s" in html or "not your platform's" in html
    assert not User.objects.exists() and not GradeLink.objects.exists()
    return html


@pytest.mark.parametrize(
    "where",
    ["http://127.0.0.1:1/lineitems/1", "http://lms.example.org/lineitems/1", "not a url"],
)
def test_a_line_item_outside_the_platforms_origins_is_refused_at_launch(registered, where):
    quiz = make_quiz()

    response, _token, _auth = launch(
        Client(), registered, target_link_uri=quiz_url(quiz), lineitem=where
    )

    _refused_with_nothing_made(response)


def test_a_return_address_outside_the_platforms_origins_is_refused_at_launch(registered):
    quiz = make_quiz()

    response, _token, _auth = launch(
        Client(),
        registered,
        target_link_uri=quiz_url(quiz),
        **{CLAIM + "launch_presentation": {"return_url": "https://elsewhere.example/back"}},
    )

    _refused_with_nothing_made(response)


def test_a_deep_linking_return_outside_the_platforms_origins_is_refused(registered):
    response, _token, _auth = launch(
        Client(),
        registered,
        target_link_uri="http://testserver/lti/deep-linking/",
        message_type="LtiDeepLinkingRequest",
        roles=[INSTRUCTOR],
        **{
            DL + "deep_linking_settings": {
                "deep_link_return_url": "https://elsewhere.example/deep-link-return",
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe"],
            }
        },
    )

    _refused_with_nothing_made(response)


def test_a_line_item_that_left_the_platforms_origins_is_never_posted_to(
    registered, django_capture_on_commit_callbacks
):
    quiz = make_quiz(questions=1)
    client = launched_learner(registered, quiz)
    # The registration's addresses changed since the launch (or the row is from before).
    GradeLink.objects.update(lineitem_url="http://127.0.0.1:1/lineitems/1")

    with django_capture_on_commit_callbacks(execute=True):
        attempt = take(client, quiz, right=1)

    post = ScorePost.objects.get(attempt=attempt)
    assert post.status == ScorePost.Status.GAVE_UP
    assert "registered origins" in post.last_error
    assert registered.received.scores == [] and registered.received.token_requests == []


def test_made_up_key_ids_fetch_the_platforms_keys_again_at_most_once_a_minute(
    registered, time_machine
):
    quiz = make_quiz()
    time_machine.move_to(timezone.now(), tick=False)
    launch(Client(), registered, target_link_uri=quiz_url(quiz))
    assert registered.received.jwks_fetches == 1

    for n in range(5):
        forged, _token, _auth = launch(
            Client(), registered, target_link_uri=quiz_url(quiz), key=new_key(f"made-up-{n}")
        )
        assert forged.status_code == 403
    assert registered.received.jwks_fetches == 2

    time_machine.move_to(timezone.now() + timedelta(seconds=61), tick=False)
    launch(Client(), registered, target_link_uri=quiz_url(quiz), key=new_key("made-up-late"))
    assert registered.received.jwks_fetches == 3


def test_an_expired_launch_says_it_expired_not_that_its_signature_is_wrong(registered):
    quiz = make_quiz()
    past = int(time.time()) - 3600

    response, _token, _auth = launch(
        Client(), registered, target_link_uri=quiz_url(quiz), iat=past - 300, exp=past
    )

    html = response.content.decode()
    assert "The launch expired before it reached Daleel." in html
    assert "signature does not match" not in html
