"""No username or address length makes a 500 (issue 32): a 256-character username at
sign-in used to pass the form's check to django-axes, whose column holds 255."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model

from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db

LENGTHS = [150, 151, 255, 256, 1_000, 100_000]


@pytest.mark.parametrize("length", LENGTHS)
def test_sign_in_with_a_username_of_any_length_is_refused_without_a_500(client, length):
    response = client.post(
        "/en/accounts/login/", {"login": "u" * length, "password": "wrong password"}
    )

    assert response.status_code in {200, 400, 429}
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize("length", LENGTHS)
def test_sign_up_with_a_username_of_any_length_is_refused_without_a_500(client, length):
    response = client.post(
        "/en/accounts/signup/",
        {"username": "u" * length, "password1": PASSWORD, "password2": PASSWORD},
    )

    if length <= 150:
        assert response.status_code == 302
    else:
        assert response.status_code == 400
        assert get_user_model().objects.count() == 0


@pytest.mark.parametrize("length", LENGTHS)
def test_a_reset_for_an_address_of_any_length_answers_without_a_500(client, length):
    email = "e" * length + "@example.org"
    response = client.post("/en/accounts/password/reset/", {"email": email})

    assert response.status_code in {200, 302, 400}


def test_a_username_longer_than_any_accounts_is_refused_before_authentication(client):
    response = client.post("/en/accounts/login/", {"login": "u" * 256, "password": "wrong"})

    assert "Ensure this value has at most 150 characters" in response.content.decode()
    # Nothing to count: no password was tried against any account.
    assert not AccessAttempt.objects.exists()
