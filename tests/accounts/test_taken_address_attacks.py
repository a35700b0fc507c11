"""Attacks on the rules for taken addresses, not only their normal path: a link for an address
someone else has since signed up with, and sign-ups that name someone's address over and over."""

import re

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client

from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

User = get_user_model()
VERIFY_LINK = re.compile(r"https?://[^\s\"<>]+/accounts/confirm-email/[^\s\"<>]+/")


def _sign_up(username: str, email: str, *, client_address: str = "198.51.100.1"):
    return Client(REMOTE_ADDR=client_address).post(
        "/en/accounts/signup/",
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
    )


def test_a_link_for_an_address_another_account_now_holds_is_refused_without_an_error(
    mailoutbox,
):
    """Sami adds an address and gets its link; before he follows it, Omar signs up with that
    address (free then: Sami's is unverified). Sami's link must not take it from Omar."""
    make_user("sami")
    sami = Client()
    sami.post("/en/accounts/login/", {"login": "sami", "password": PASSWORD})
    sami.post("/en/accounts/reauthenticate/", {"password": PASSWORD})
    sami.post("/en/accounts/email/", {"email": "omar@example.org", "action_add": ""})
    link = VERIFY_LINK.search(mailoutbox[-1].body).group(0)
    assert _sign_up("omar", "omar@example.org").status_code == 302

    response = sami.post(link)

    assert response.status_code < 500
    assert not EmailAddress.objects.get(user__username="sami").verified
    assert User.objects.get(username="sami").email == ""
    assert User.objects.get(username="omar").email == "omar@example.org"


def test_sign_ups_naming_someones_address_mail_them_only_up_to_the_per_address_limit(
    frozen_clock, mailoutbox, settings
):
    settings.PASSWORD_RESET_RATE_PER_EMAIL = "3/h"
    make_user("omar", email="omar@example.org")

    for n in range(6):
        response = _sign_up(f"stranger{n}", "omar@example.org", client_address=f"203.0.113.{n}")
        assert response.status_code == 302

    assert [message.to for message in mailoutbox] == [["omar@example.org"]] * 3
    assert User.objects.filter(username__startswith="stranger").count() == 6
