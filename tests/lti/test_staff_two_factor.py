"""Staff signed in by an LTI launch pass the second factor before any admin page, as staff
signed in by password do; enrolling a factor needs a recent sign-in."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.totp.internal.auth import TOTP, format_hotp_value, generate_totp_secret, hotp_value
from django.contrib.auth.models import Group
from django.test import Client
from django.utils import timezone

from lti.models import LtiIdentity, Registration
from tests.factories import make_quiz

from .conftest import launch
from .platform import INSTRUCTOR

pytestmark = pytest.mark.django_db


@pytest.fixture
def instructor_launches(registered, settings):
    settings.MFA_REQUIRED_FOR_STAFF = True  # as with DEBUG off
    Registration.objects.filter(client_id=registered.client_id).update(grants_instructor=True)
    Group.objects.get_or_create(name="Instructors")
    quiz = make_quiz()

    def launched() -> Client:
        client = Client()
        response, _token, _auth = launch(
            client,
            registered,
            target_link_uri=f"http://testserver/en/quizzes/{quiz.slug}/",
            roles=[INSTRUCTOR],
        )
        assert response.status_code == 302
        return client

    return launched


def _code(secret: str) -> str:
    return format_hotp_value(hotp_value(secret, int(time.time()) // 30))


def test_a_launched_instructor_without_a_factor_must_set_one_up_before_the_admin(
    instructor_launches,
):
    client = instructor_launches()
    assert LtiIdentity.objects.get().user.is_staff

    response = client.get("/en/admin/")

    assert response.status_code == 302 and response["Location"] == "/en/accounts/2fa/"


def test_every_launch_of_an_instructor_with_a_factor_asks_for_it_before_the_admin(
    instructor_launches,
):
    instructor_launches()
    user = LtiIdentity.objects.get().user
    secret = generate_totp_secret()
    TOTP.activate(user, secret)
    client = instructor_launches()

    for path in ("/en/admin/", "/en/admin/quizzes/quiz/", "/ar/admin/"):
        response = client.get(path)
        assert response.status_code == 302
        language = path.split("/")[1]
        assert response["Location"].startswith(f"/{language}/accounts/2fa/reauthenticate/?next=")
    assert client.post("/en/accounts/2fa/reauthenticate/", {"code": "00000x"}).status_code == 400
    assert client.get("/en/admin/").status_code == 302

    entered = client.post(
        "/en/accounts/2fa/reauthenticate/?next=/en/admin/", {"code": _code(secret)}
    )

    assert entered.status_code == 302 and entered["Location"] == "/en/admin/"
    assert client.get("/en/admin/").status_code == 200
    # The next launch, in another browser, is asked again.
    assert instructor_launches().get("/en/admin/").status_code == 302


def test_a_launched_account_enrols_a_factor_only_soon_after_its_launch(
    instructor_launches, time_machine
):
    time_machine.move_to(timezone.now(), tick=False)
    client = instructor_launches()
    assert client.get("/en/accounts/2fa/totp/activate/").status_code == 200

    time_machine.move_to(timezone.now() + timedelta(minutes=6), tick=False)
    late = client.get("/en/accounts/2fa/totp/activate/")
    refused = client.post("/en/accounts/2fa/totp/activate/", {"code": "123456"})

    assert late.status_code == 403
    assert "Sign in again first" in late.content.decode()
    assert refused.status_code == 403
    assert not Authenticator.objects.exists()


# Real commits: allauth announces the new factor once its transaction commits, within the
# request, as in production.
@pytest.mark.django_db(transaction=True)
def test_a_factor_set_up_in_this_session_opens_the_admin_without_entering_it_again(
    instructor_launches,
):
    client = instructor_launches()
    client.get("/en/accounts/2fa/totp/activate/")
    secret = client.session["mfa.totp.secret"]

    activated = client.post("/en/accounts/2fa/totp/activate/", {"code": _code(secret)})

    assert activated.status_code == 302
    assert client.get("/en/admin/").status_code == 200
    # Another launch, another session: asked for it.
    assert instructor_launches().get("/en/admin/").status_code == 302
