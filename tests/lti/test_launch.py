"""Launches: who gets in, as whom, where; what is refused, with a clear page, making nothing."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import Profile
from lti.models import LtiIdentity, PendingLogin, Registration
from tests.factories import make_quiz, make_user

from .conftest import launch, login_continue, login_redirect
from .platform import CLAIM, INSTRUCTOR, new_key
from .test_framing import frame_ancestors

pytestmark = pytest.mark.django_db

User = get_user_model()


def quiz_url(quiz, language: str = "en") -> str:
    return f"http://testserver/{language}/quizzes/{quiz.slug}/"


def test_a_first_launch_makes_a_learner_without_a_password_and_opens_the_quiz(registered):
    quiz = make_quiz()
    client = Client()

    response, _token, _auth = launch(client, registered, target_link_uri=quiz_url(quiz))

    assert response.status_code == 302
    assert response["Location"] == f"/en/quizzes/{quiz.slug}/"
    identity = LtiIdentity.objects.get(issuer=registered.issuer, sub="learner-sub-1")
    user = identity.user
    assert user.username == "amina"
    assert user.email == "amina@lms.example"
    assert (user.first_name, user.last_name) == ("Amina", "Haddad")
    assert not user.has_usable_password()
    assert not user.is_staff and not user.groups.exists()
    page = client.get(f"/en/quizzes/{quiz.slug}/")
    assert page.wsgi_request.user == user


def test_the_next_launch_signs_in_the_same_learner(registered):
    quiz = make_quiz()
    launch(Client(), registered, target_link_uri=quiz_url(quiz))
    launch(Client(), registered, target_link_uri=quiz_url(quiz))

    assert LtiIdentity.objects.count() == 1
    assert User.objects.count() == 1


def test_a_launch_naming_a_quiz_by_its_custom_parameter_opens_it(registered):
    quiz = make_quiz()

    response, _token, _auth = launch(
        Client(),
        registered,
        target_link_uri="http://testserver/lti/launch/",
        **{CLAIM + "custom": {"quiz": quiz.slug}},
    )

    assert response["Location"] == f"/en/quizzes/{quiz.slug}/"


def test_an_arabic_locale_opens_the_quiz_in_arabic(registered):
    quiz = make_quiz()

    response, _token, _auth = launch(
        Client(), registered, target_link_uri=quiz_url(quiz), locale="ar-SA"
    )

    assert response["Location"] == f"/ar/quizzes/{quiz.slug}/"


def test_a_name_that_looks_like_a_taken_one_gets_another(registered):
    make_user("Amina")  # and "arnina" would look like it: rn / m, in another case
    quiz = make_quiz()

    launch(Client(), registered, target_link_uri=quiz_url(quiz), email="arnina@lms.example")

    user = LtiIdentity.objects.get().user
    assert user.username.casefold() not in {"amina", "arnina"}
    assert user.username.startswith("arnina-")
    assert Profile.objects.looking_like(user.username).count() == 1


def test_a_platform_instructor_joins_instructors_only_where_the_registration_allows(registered):
    quiz = make_quiz()
    launch(Client(), registered, target_link_uri=quiz_url(quiz), roles=[INSTRUCTOR])
    user = LtiIdentity.objects.get().user
    assert not user.is_staff and not user.groups.exists()

    Registration.objects.filter(client_id=registered.client_id).update(grants_instructor=True)
    launch(Client(), registered, target_link_uri=quiz_url(quiz), roles=[INSTRUCTOR])

    user.refresh_from_db()
    assert user.is_staff and not user.is_superuser
    assert list(user.groups.values_list("name", flat=True)) == ["Instructors"]


def test_a_learner_never_gets_staff_rights_from_a_launch(registered):
    Registration.objects.filter(client_id=registered.client_id).update(grants_instructor=True)
    quiz = make_quiz()

    launch(Client(), registered, target_link_uri=quiz_url(quiz))

    user = LtiIdentity.objects.get().user
    assert not user.is_staff and not user.is_superuser and not user.groups.exists()


def test_a_rotated_platform_key_is_fetched_again_once(registered):
    quiz = make_quiz()
    launch(Client(), registered, target_link_uri=quiz_url(quiz))
    assert registered.received.jwks_fetches == 1
    launch(Client(), registered, target_link_uri=quiz_url(quiz))
    assert registered.received.jwks_fetches == 1  # cached

    registered.rotate()
    response, _token, _auth = launch(Client(), registered, target_link_uri=quiz_url(quiz))

    assert response.status_code == 302
    assert registered.received.jwks_fetches == 2


# Refusals


def refused(response) -> str:
    assert response.status_code in {400, 403}
    html = response.content.decode()
    assert "Daleel could not open this launch" in html
    assert "تعذّر" in html  # the Arabic heading too
    return html


def test_a_forged_signature_is_refused_and_makes_no_account(registered):
    quiz = make_quiz()

    response, _token, _auth = launch(
        Client(), registered, target_link_uri=quiz_url(quiz), key=new_key("platform-key-1")
    )

    assert "signature" in refused(response)
    assert not User.objects.exists() and not LtiIdentity.objects.exists()


def test_a_replayed_id_token_is_refused(registered):
    quiz = make_quiz()
    client = Client()
    response, token, auth = launch(client, registered, target_link_uri=quiz_url(quiz))
    assert response.status_code == 302

    # The same browser, its state cookie and session still there: pylti1p3 alone takes it.
    replay = client.post("/lti/launch/", {"id_token": token, "state": auth["state"]})

    assert "used already" in refused(replay)
    assert User.objects.count() == 1


def test_a_replay_from_another_browser_is_refused(registered):
    quiz = make_quiz()
    response, token, auth = launch(Client(), registered, target_link_uri=quiz_url(quiz))
    User.objects.all().delete()

    replay = Client().post("/lti/launch/", {"id_token": token, "state": auth["state"]})

    refused(replay)
    assert not User.objects.exists()


def test_an_expired_id_token_is_refused(registered):
    quiz = make_quiz()
    past = int(time.time()) - 3600

    response, _token, _auth = launch(
        Client(), registered, target_link_uri=quiz_url(quiz), iat=past - 300, exp=past
    )

    assert "expired" in refused(response).lower()
    assert not User.objects.exists()


def test_an_unknown_deployment_is_refused_and_not_created(registered):
    quiz = make_quiz()

    response, _token, _auth = launch(
        Client(),
        registered,
        target_link_uri=quiz_url(quiz),
        **{CLAIM + "deployment_id": "someone-elses"},
    )

    assert "deployment" in refused(response)
    assert not User.objects.exists()
    assert Registration.objects.get(client_id=registered.client_id).deployments.count() == 1


@pytest.mark.parametrize("claims", [{"aud": "another-tool"}, {"azp": "another-tool"}])
def test_a_token_for_another_tool_is_refused(registered, claims):
    quiz = make_quiz()

    response, _token, _auth = launch(Client(), registered, target_link_uri=quiz_url(quiz), **claims)

    html = refused(response)
    assert "The launch was meant for another tool." in html
    assert not User.objects.exists()


def test_a_state_that_does_not_match_is_refused(registered):
    quiz = make_quiz()
    client = Client()
    auth = login_redirect(client, registered, target_link_uri=quiz_url(quiz))
    token = registered.id_token(nonce=auth["nonce"], target_link_uri=quiz_url(quiz))

    response = client.post("/lti/launch/", {"id_token": token, "state": "state-forged"})

    refused(response)
    assert not User.objects.exists()


def test_a_login_from_an_unregistered_platform_is_refused(registered):
    response = Client().get(
        "/lti/login/",
        {"iss": "https://unknown.example", "login_hint": "x", "target_link_uri": "http://t/"},
    )

    refused(response)


def test_a_frame_that_keeps_our_cookies_is_offered_a_new_window_before_the_hint_is_used(
    registered,
):
    quiz = make_quiz()
    client = Client()
    step = login_continue(client, registered, target_link_uri=quiz_url(quiz))
    del client.cookies["lti1p3-check"]  # what a browser blocking third-party cookies sends back

    response = client.get(step)

    assert response.status_code == 403
    html = response.content.decode()
    assert "Open in a new window" in html and 'target="_blank"' in html
    # Shown inside the platform's frame: its origins may frame this page, nobody else.
    assert frame_ancestors(response) == f"frame-ancestors {registered.base}"
    assert "X-Frame-Options" not in response
    # The link continues the login in a window of its own, where our cookies are first-party:
    # a fresh state and nonce, and the platform's hint sent to it for the first time.
    again = response.context["new_window_url"]
    assert urlsplit(again).path == "/lti/login/continue/"
    restarted = Client().get(again)
    assert restarted.status_code == 302
    assert restarted["Location"].startswith(registered.auth_url + "?")
    sent = parse_qs(urlsplit(restarted["Location"]).query)
    assert sent["lti_message_hint"] == ["message-hint-1"]
    assert sent["login_hint"] == ["hint-1"]
    assert PendingLogin.objects.filter(state=sent["state"][0]).exists()
    assert not User.objects.exists()


def test_a_launch_whose_login_cookie_was_kept_from_the_frame_says_what_to_do(registered):
    quiz = make_quiz()
    client = Client()
    auth = login_redirect(client, registered, target_link_uri=quiz_url(quiz))
    token = registered.id_token(nonce=auth["nonce"], target_link_uri=quiz_url(quiz))
    client.cookies.clear()

    response = client.post("/lti/launch/", {"id_token": token, "state": auth["state"]})

    assert response.status_code == 403
    html = response.content.decode()
    assert "Go back to your course and open the activity again" in html
    assert "allow cookies for Daleel" in html
    assert "new_window_url" not in response.context  # the platform's hint is used up
    assert frame_ancestors(response) == f"frame-ancestors {registered.base}"
    assert not User.objects.exists()


def test_the_login_address_cannot_be_changed_or_kept_past_five_minutes(registered, time_machine):
    quiz = make_quiz()
    time_machine.move_to("2026-12-01 10:00:00+00:00", tick=False)
    client = Client()
    step = login_continue(client, registered, target_link_uri=quiz_url(quiz))

    changed = client.get(step[:-3] + "AAA")
    added = client.get(step + "&lti_message_hint=someone-elses")
    time_machine.move_to("2026-12-01 10:05:01+00:00", tick=False)
    late = client.get(step)

    assert changed.status_code == 400 and late.status_code == 400
    assert "expired" in late.content.decode()
    sent = parse_qs(urlsplit(added["Location"]).query)
    assert sent["lti_message_hint"] == ["message-hint-1"]


def test_an_email_another_account_holds_is_left_out_and_that_account_untouched(registered):
    existing = make_user("someone", email="AMINA@lms.example")
    quiz = make_quiz()

    launch(Client(), registered, target_link_uri=quiz_url(quiz))

    user = LtiIdentity.objects.get().user
    assert user != existing and user.email == ""
    existing.refresh_from_db()
    assert existing.email == "AMINA@lms.example"


def test_the_platform_may_post_its_login(registered):
    quiz = make_quiz()

    client = Client()
    response = client.post(
        "/lti/login/",
        {
            "iss": registered.issuer,
            "login_hint": "hint-1",
            "target_link_uri": quiz_url(quiz),
            "client_id": registered.client_id,
        },
    )

    assert response.status_code == 302
    assert response["Location"].startswith("/lti/login/continue/?t=")
    onwards = client.get(response["Location"])
    assert onwards["Location"].startswith(registered.auth_url + "?")
