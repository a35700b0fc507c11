"""No page tells a visitor whether an address has an account: sign-up and email change answer
the same for a taken address as for a free one, and the address's owner is told by mail."""

import re

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client

from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

User = get_user_model()
VERIFY_LINK = re.compile(r"https?://[^\s\"<>]+/accounts/confirm-email/[^\s\"<>]+/")
TOKENS = re.compile(r"[A-Za-z0-9]{64}")  # CSRF tokens


def _sign_up(username: str, email: str):
    client = Client()
    response = client.post(
        "/en/accounts/signup/",
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
        follow=True,
    )
    return client, response


def _page(response) -> str:
    """The page as a visitor sees it, without what differs on every request."""
    return TOKENS.sub("", response.content.decode())


def test_sign_up_answers_the_same_for_a_taken_address_and_mails_its_owner(mailoutbox):
    make_user("omar", email="omar@example.org")
    _, free = _sign_up("salma", "salma@example.org")
    _, taken = _sign_up("samir", "OMAR@example.org")

    assert free.redirect_chain == taken.redirect_chain
    free_page = _page(free).replace("salma@example.org", "ADDRESS").replace("salma", "NAME")
    taken_page = _page(taken).replace("omar@example.org", "ADDRESS").replace("samir", "NAME")
    assert free_page == taken_page
    verification, already = mailoutbox
    assert verification.to == ["salma@example.org"] and VERIFY_LINK.search(verification.body)
    assert already.to == ["omar@example.org"] and not VERIFY_LINK.search(already.body)
    # Both learners start at once; the taken address is held unverified, never the user's.
    samir = User.objects.get(username="samir")
    assert samir.email == ""
    assert EmailAddress.objects.get(user=samir).verified is False
    assert User.objects.get(username="omar").email == "omar@example.org"


def test_the_second_account_can_never_verify_a_taken_address(mailoutbox):
    make_user("omar", email="omar@example.org")
    client, _ = _sign_up("samir", "omar@example.org")
    address = EmailAddress.objects.get(user__username="samir")
    mailoutbox.clear()
    client.post("/en/accounts/email/", {"email": address.email, "action_send": ""})
    assert [message.to for message in mailoutbox] == [["omar@example.org"]]
    assert not VERIFY_LINK.search(mailoutbox[0].body)
    address.refresh_from_db()
    assert address.verified is False


def _signed_in(username: str, email: str = "") -> Client:
    make_user(username, email=email)
    client = Client()
    client.post("/en/accounts/login/", {"login": username, "password": PASSWORD})
    # Changing the address asks for the password (again) first.
    client.post("/en/accounts/reauthenticate/", {"password": PASSWORD})
    return client


def _add(client: Client, email: str):
    return client.post("/en/accounts/email/", {"email": email, "action_add": ""}, follow=True)


def test_an_email_change_answers_the_same_for_a_taken_address_and_mails_its_owner(mailoutbox):
    make_user("omar", email="omar@example.org")
    huda = _signed_in("huda", "huda@example.org")
    sami = _signed_in("sami", "sami@example.org")

    free = _add(huda, "huda.new@example.org")
    taken = _add(sami, "Omar@Example.org")

    assert free.status_code == taken.status_code == 200
    assert free.redirect_chain == taken.redirect_chain
    assert [message.to for message in mailoutbox] == [
        ["huda.new@example.org"],
        ["omar@example.org"],
    ]
    assert VERIFY_LINK.search(mailoutbox[0].body) and not VERIFY_LINK.search(mailoutbox[1].body)


def test_a_new_address_replaces_the_old_once_verified_and_the_old_is_told(mailoutbox):
    huda = _signed_in("huda", "huda@example.org")
    _add(huda, "huda.new@example.org")
    user = User.objects.get(username="huda")
    assert user.email == "huda@example.org"  # until the new one is verified

    link = VERIFY_LINK.search(mailoutbox[0].body).group(0)
    mailoutbox.clear()
    huda.post(link)

    user.refresh_from_db()
    assert user.email == "huda.new@example.org"
    [notice] = mailoutbox
    assert notice.to == ["huda@example.org"]
    assert notice.subject == "The email address of your Daleel account changed"
    assert "Hello huda," in notice.body


def test_changing_the_email_asks_for_the_password_first():
    user = make_user("huda", email="huda@example.org")
    client = Client()
    client.force_login(user)
    response = client.post("/en/accounts/email/", {"email": "thief@example.org", "action_add": ""})
    assert response.status_code == 302 and "/reauthenticate/" in response["Location"]
    assert not EmailAddress.objects.filter(email="thief@example.org").exists()


def test_email_changes_are_limited_per_learner_with_a_bilingual_429(frozen_clock, settings):
    settings.EMAIL_CHANGE_RATE = "2/h"
    huda = _signed_in("huda", "huda@example.org")
    for n in range(2):
        assert _add(huda, f"huda{n}@example.org").status_code == 200
    response = huda.post("/en/accounts/email/", {"email": "x@example.org", "action_add": ""})
    assert response.status_code == 429
    # An hour, and the rest of its part of 20 minutes (accounts.limits).
    assert int(response["Retry-After"]) == 80 * 60
    assert "Too many requests" in response.content.decode()
    arabic = huda.post("/ar/accounts/email/", {"email": "y@example.org", "action_add": ""})
    assert arabic.status_code == 429 and 'dir="rtl"' in arabic.content.decode()
