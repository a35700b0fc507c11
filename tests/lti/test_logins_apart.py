"""Each launch goes with its own login: a login past its five minutes refuses its launch, one
login's state never takes another's nonce, and an issuer registered several times must say
which registration its login is for."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from lti.models import GradeLink, LtiIdentity, PendingLogin, Registration
from tests.conftest import FROZEN_AT, OTHER_CLIENT_ID
from tests.factories import make_quiz

from .conftest import launch, login_params, login_redirect
from .test_launch import quiz_url, refused

pytestmark = pytest.mark.django_db

User = get_user_model()


def nothing_made() -> bool:
    return not (User.objects.exists() or LtiIdentity.objects.exists() or GradeLink.objects.exists())


def test_a_launch_whose_login_expired_is_refused_as_expired_and_makes_nothing(
    registered, frozen_clock
):
    quiz = make_quiz()
    client = Client()
    auth = login_redirect(client, registered, target_link_uri=quiz_url(quiz))
    # The learner leaves the platform's page open past the login's five minutes; the platform
    # then signs its answer (a token of its own, fresh).
    frozen_clock.move_to(FROZEN_AT + timedelta(minutes=5, seconds=1), tick=False)
    token = registered.id_token(nonce=auth["nonce"], target_link_uri=quiz_url(quiz))

    response = client.post("/lti/launch/", {"id_token": token, "state": auth["state"]})

    assert response.status_code == 403
    assert "The launch expired before it reached Daleel." in refused(response)
    assert nothing_made()
    assert "_auth_user_id" not in client.session


def test_a_launch_within_its_logins_five_minutes_signs_in(registered, frozen_clock):
    """The other side of the expiry: the same launch a second earlier is taken."""
    quiz = make_quiz()
    client = Client()
    auth = login_redirect(client, registered, target_link_uri=quiz_url(quiz))
    frozen_clock.move_to(FROZEN_AT + timedelta(minutes=4, seconds=59), tick=False)
    token = registered.id_token(nonce=auth["nonce"], target_link_uri=quiz_url(quiz))

    response = client.post("/lti/launch/", {"id_token": token, "state": auth["state"]})

    assert response.status_code == 302
    assert LtiIdentity.objects.count() == 1


def test_one_logins_state_with_another_logins_nonce_is_refused(registered):
    """Two logins in one browser (two tabs of the course): both states' cookies are there and
    both nonces are pending, yet the state of one never goes with the other's signed nonce."""
    quiz = make_quiz()
    client = Client()
    first = login_redirect(client, registered, target_link_uri=quiz_url(quiz))
    second = login_redirect(client, registered, target_link_uri=quiz_url(quiz))
    token = registered.id_token(nonce=second["nonce"], target_link_uri=quiz_url(quiz))

    response = client.post("/lti/launch/", {"id_token": token, "state": first["state"]})

    refused(response)
    assert nothing_made()
    assert "_auth_user_id" not in client.session


def test_an_issuer_with_several_registrations_must_name_its_client_in_the_login(registered):
    params = login_params(registered, target_link_uri=quiz_url(make_quiz()))
    del params["client_id"]
    assert Registration.objects.filter(issuer=registered.issuer).count() == 2

    response = Client().get("/lti/login/", params)

    assert response.status_code == 400
    html = refused(response)
    assert "is registered with Daleel more than once" in html
    assert "send the client ID with the login" in html
    assert not PendingLogin.objects.exists()


@pytest.mark.parametrize("client_id", ["daleel-client", OTHER_CLIENT_ID])
def test_a_login_naming_its_client_goes_on_with_that_registration(registered, client_id):
    params = login_params(registered, target_link_uri=quiz_url(make_quiz()))
    params["client_id"] = client_id
    client = Client()

    onwards = client.get(client.get("/lti/login/", params)["Location"])

    assert onwards.status_code == 302
    assert f"client_id={client_id}&" in onwards["Location"]
    assert PendingLogin.objects.get().registration.client_id == client_id


def test_a_launch_is_recorded_with_the_registration_its_token_is_for(registered):
    quiz = make_quiz()

    response, _token, _auth = launch(Client(), registered, target_link_uri=quiz_url(quiz))

    assert response.status_code == 302
    assert GradeLink.objects.get().registration.client_id == registered.client_id
