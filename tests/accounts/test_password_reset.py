import re
from datetime import datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts.models import Profile
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

User = get_user_model()
NEW_PASSWORD = "a-brand-new-passphrase-31"
LINK = re.compile(r"https?://[^\s\"<>]+/accounts/password/reset/[^\s\"<>]+/")


def _ask(client, email):
    return client.post("/en/accounts/password/reset/", {"email": email})


def _link(message) -> str:
    return LINK.search(message.body).group(0)


def test_sign_in_page_links_to_the_reset(client):
    page = client.get("/en/accounts/login/").content.decode()
    assert 'href="/en/accounts/password/reset/"' in page and "Forgot your password?" in page


def test_a_known_and_an_unknown_address_get_the_same_answer_and_only_the_known_gets_mail(
    client, mailoutbox
):
    make_user("huda", email="huda@example.org")
    known = _ask(client, "HUDA@example.org")
    unknown = _ask(client, "nobody@example.org")
    assert known.status_code == unknown.status_code == 302
    assert known["Location"] == unknown["Location"] == "/en/accounts/password/reset/sent/"
    assert len(mailoutbox) == 1
    message = mailoutbox[0]
    assert message.to == ["huda@example.org"]
    assert message.subject == "Reset your Daleel password"
    html, mimetype = message.alternatives[0]
    assert mimetype == "text/html" and _link(message) in html.replace("&amp;", "&")
    assert "huda" in message.body


def test_a_reset_link_sets_a_new_password_once_and_ends_old_sessions(client, mailoutbox):
    user = make_user("huda", email="huda@example.org")
    elsewhere = Client()
    elsewhere.force_login(user)
    _ask(client, "huda@example.org")
    link = _link(mailoutbox[0])

    form = client.get(link, follow=True)
    assert "Choose a new password" in form.content.decode()
    response = client.post(
        form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert response["Location"] == "/en/accounts/password/reset/complete/"
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    # The session signed in with the old password no longer is.
    assert elsewhere.get("/en/attempts/").status_code == 302

    again = Client().get(link, follow=True).content.decode()
    assert "This link no longer works" in again
    assert Client().post(link, {"new_password1": "x", "new_password2": "x"}).status_code == 200
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)


def test_an_expired_link_no_longer_works(client, settings):
    user = make_user("huda", email="huda@example.org")

    class TwoHoursAgo(PasswordResetTokenGenerator):
        def _now(self):
            return datetime.now() - timedelta(hours=2)

    token = TwoHoursAgo().make_token(user)
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    page = client.get(f"/en/accounts/password/reset/{uid}/{token}/", follow=True)
    assert "This link no longer works" in page.content.decode()


@pytest.mark.parametrize(
    "path", ["junk/junk", "MQ/\u0660-bad", "%00/%00", "x" * 300 + "/y", "MTIzNDU2Nzg5/set-password"]
)
def test_junk_reset_links_say_the_link_does_not_work(client, path):
    response = client.get(f"/en/accounts/password/reset/{path}/", follow=True)
    assert response.status_code in {200, 404}
    if response.status_code == 200:
        assert "This link no longer works" in response.content.decode()


def test_a_weak_new_password_is_refused_and_the_link_still_works(client, mailoutbox):
    user = make_user("huda", email="huda@example.org")
    _ask(client, "huda@example.org")
    form = client.get(_link(mailoutbox[0]), follow=True)
    url = form.redirect_chain[-1][0]
    response = client.post(url, {"new_password1": "short", "new_password2": "short"})
    assert response.status_code == 200 and "too short" in response.content.decode()
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_mail_to_one_address_stops_after_the_limit_with_the_same_answer(
    client, mailoutbox, settings
):
    settings.PASSWORD_RESET_RATE_PER_EMAIL = "3/h"
    make_user("huda", email="huda@example.org")
    answers = [Client(REMOTE_ADDR=f"198.51.100.{n}") for n in range(5)]
    responses = [_ask(c, "huda@example.org") for c in answers]
    assert {r["Location"] for r in responses} == {"/en/accounts/password/reset/sent/"}
    assert len(mailoutbox) == 3


def test_one_client_address_is_stopped_after_the_limit_whatever_the_addresses(mailoutbox, settings):
    settings.PASSWORD_RESET_RATE_PER_CLIENT = "10/h"
    make_user("huda", email="huda@example.org")
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    for n in range(10):
        assert _ask(attacker, f"guess{n}@example.org").status_code == 302
    response = _ask(attacker, "huda@example.org")
    assert response.status_code == 429
    assert "Too many requests" in response.content.decode()
    assert mailoutbox == []
    # Someone else, elsewhere, is not stopped.
    assert _ask(Client(REMOTE_ADDR="198.51.100.7"), "huda@example.org").status_code == 302
    assert len(mailoutbox) == 1


def test_the_mail_is_in_the_learners_preferred_language(client, mailoutbox):
    user = make_user("huda", email="huda@example.org")
    Profile.for_user(user)
    Profile.objects.filter(user=user).update(language="ar")
    _ask(client, "huda@example.org")
    message = mailoutbox[0]
    assert message.subject == "أعد تعيين كلمة المرور في «دليل»"
    assert "/ar/accounts/password/reset/" in _link(message)
    assert 'dir="rtl"' in message.alternatives[0][0]


def test_the_reset_form_needs_a_csrf_token(csrf_client, mailoutbox):
    make_user("huda", email="huda@example.org")
    response = csrf_client.post("/en/accounts/password/reset/", {"email": "huda@example.org"})
    assert response.status_code == 403 and mailoutbox == []


@pytest.mark.parametrize("email", ["", "not-an-address", "a@b" * 200, "x\x00@example.org"])
def test_junk_addresses_get_a_clear_error(client, email, mailoutbox):
    response = _ask(client, email)
    assert response.status_code == 200
    assert "There is a problem" in response.content.decode()
    assert mailoutbox == []


def test_reset_pages_exist_in_arabic(client):
    page = client.get("/ar/accounts/password/reset/").content.decode()
    assert "أعد تعيين كلمة المرور" in page and 'dir="rtl"' in page


def test_a_learner_locked_out_by_a_forgotten_password_signs_in_after_the_reset(
    settings, mailoutbox
):
    make_user("huda", email="huda@example.org")
    browser = Client(REMOTE_ADDR="198.51.100.7")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        browser.post("/en/accounts/login/", {"username": "huda", "password": "forgotten"})
    assert (
        browser.post("/en/accounts/login/", {"username": "huda", "password": PASSWORD}).status_code
        == 429
    )

    _ask(browser, "huda@example.org")
    form = browser.get(_link(mailoutbox[0]), follow=True)
    browser.post(
        form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    response = browser.post("/en/accounts/login/", {"username": "huda", "password": NEW_PASSWORD})
    assert response.status_code == 302
