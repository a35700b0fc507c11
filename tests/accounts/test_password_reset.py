"""Password reset by email (allauth): the same answer for every address, a link only to a
verified one, limits per client and per address."""

import re
import time

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core import mail as django_mail
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django_tasks_db.models import DBTaskResult

from accounts.models import Profile
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

User = get_user_model()
NEW_PASSWORD = "a-brand-new-passphrase-31"
LINK = re.compile(r"https?://[^\s\"<>]+/accounts/password/reset/key/[^\s\"<>]+/")
VERIFY_LINK = re.compile(r"https?://[^\s\"<>]+/accounts/confirm-email/[^\s\"<>]+/")
SENT = "/en/accounts/password/reset/done/"


def _ask(client, email):
    return client.post("/en/accounts/password/reset/", {"email": email})


def _link(message) -> str:
    return LINK.search(message.body).group(0)


def _set_new_password(client, link: str, password: str = NEW_PASSWORD):
    form = client.get(link, follow=True)
    return client.post(
        form.redirect_chain[-1][0] if form.redirect_chain else link,
        {"password1": password, "password2": password},
    )


def test_sign_in_page_links_to_the_reset(client):
    page = client.get("/en/accounts/login/").content.decode()
    assert 'href="/en/accounts/password/reset/"' in page and "Forgot your password?" in page


def test_a_known_and_an_unknown_address_get_the_same_answer_and_each_its_own_mail(
    client, mailoutbox
):
    make_user("huda", email="huda@example.org")
    known = _ask(client, "HUDA@example.org")
    unknown = _ask(client, "nobody@example.org")
    assert known.status_code == unknown.status_code == 302
    assert known["Location"] == unknown["Location"] == SENT
    assert [message.to for message in mailoutbox] == [
        ["huda@example.org"],
        ["nobody@example.org"],
    ]
    reset, no_account = mailoutbox
    assert reset.subject == "Reset your Daleel password"
    assert _link(reset) and "huda" in reset.body
    # The unknown address's owner learns that someone asked, and no link to anything.
    assert not LINK.search(no_account.body)


def test_an_unverified_address_gets_a_verification_link_not_a_reset_link(client, mailoutbox):
    make_user("huda", email="huda@example.org", verified=False)
    assert _ask(client, "huda@example.org")["Location"] == SENT
    (message,) = mailoutbox
    assert not LINK.search(message.body)
    verify = VERIFY_LINK.search(message.body).group(0)
    client.post(verify)
    mailoutbox.clear()
    _ask(client, "huda@example.org")
    assert _link(mailoutbox[0])


def test_a_reset_link_sets_a_new_password_once_and_ends_old_sessions(client, mailoutbox):
    user = make_user("huda", email="huda@example.org")
    elsewhere = Client()
    elsewhere.force_login(user)
    _ask(client, "huda@example.org")
    link = _link(mailoutbox[0])

    form = client.get(link, follow=True)
    assert "Choose a new password" in form.content.decode()
    response = _set_new_password(client, link)
    assert response["Location"] == "/en/accounts/password/reset/key/done/"
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    # The session signed in with the old password no longer is.
    assert elsewhere.get("/en/attempts/").status_code == 302

    again = Client().get(link, follow=True).content.decode()
    assert "This link no longer works" in again


def test_an_expired_link_no_longer_works(client, mailoutbox):
    make_user("huda", email="huda@example.org")
    _ask(client, "huda@example.org")
    link = _link(mailoutbox[0])
    with time_machine.travel(time.time() + 2 * 3600 + 60):
        page = Client().get(link, follow=True)
    assert "This link no longer works" in page.content.decode()


@pytest.mark.parametrize(
    "path", ["junk/junk", "MQ/\u0660-bad", "%00/%00", "x" * 300 + "/y", "key/MTIz-set-password"]
)
def test_junk_reset_links_say_the_link_does_not_work(client, path):
    response = client.get(f"/en/accounts/password/reset/{path}/", follow=True)
    assert response.status_code in {200, 404}
    if response.status_code == 200:
        assert "This link no longer works" in response.content.decode()


def test_a_weak_new_password_is_refused_and_the_link_still_works(client, mailoutbox):
    user = make_user("huda", email="huda@example.org")
    _ask(client, "huda@example.org")
    response = _set_new_password(client, _link(mailoutbox[0]), "short")
    assert response.status_code == 200 and "too short" in response.content.decode()
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_mail_to_one_address_stops_after_the_limit_with_the_same_answer(
    frozen_clock, client, mailoutbox, settings
):
    settings.PASSWORD_RESET_RATE_PER_EMAIL = "3/h"
    make_user("huda", email="huda@example.org")
    answers = [Client(REMOTE_ADDR=f"198.51.100.{n}") for n in range(5)]
    responses = [_ask(c, "huda@example.org") for c in answers]
    assert {r["Location"] for r in responses} == {SENT}
    assert len(mailoutbox) == 3


def test_one_client_address_is_stopped_after_the_limit_whatever_the_addresses(
    frozen_clock, mailoutbox, settings
):
    settings.PASSWORD_RESET_RATE_PER_CLIENT = "10/h"
    make_user("huda", email="huda@example.org")
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    for n in range(10):
        assert _ask(attacker, f"guess{n}@example.org").status_code == 302
    mailoutbox.clear()
    response = _ask(attacker, "huda@example.org")
    assert response.status_code == 429
    # An hour, and the rest of its part of 20 minutes (accounts.limits).
    assert int(response["Retry-After"]) == 80 * 60
    assert "Too many requests" in response.content.decode()
    assert mailoutbox == []
    # Someone else, elsewhere, is not stopped.
    assert _ask(Client(REMOTE_ADDR="198.51.100.7"), "huda@example.org").status_code == 302
    assert len(mailoutbox) == 1


def test_requests_with_errors_count_toward_the_client_limit(frozen_clock, settings):
    settings.PASSWORD_RESET_RATE_PER_CLIENT = "2/h"
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    assert [_ask(attacker, "not-an-address").status_code for _ in range(3)] == [400, 400, 429]


def test_the_mail_is_in_the_learners_preferred_language(client, mailoutbox):
    user = make_user("huda", email="huda@example.org")
    Profile.for_user(user)
    Profile.objects.filter(user=user).update(language="ar")
    _ask(client, "huda@example.org")
    message = mailoutbox[0]
    assert message.subject == "إعادة تعيين كلمة المرور في «دليل»"


def test_the_reset_form_needs_a_csrf_token(csrf_client, mailoutbox):
    make_user("huda", email="huda@example.org")
    response = csrf_client.post("/en/accounts/password/reset/", {"email": "huda@example.org"})
    assert response.status_code == 403 and mailoutbox == []


@pytest.mark.parametrize("email", ["", "not-an-address", "a@b" * 200, "x\x00@example.org"])
def test_junk_addresses_get_a_clear_error(client, email, mailoutbox):
    response = _ask(client, email)
    assert response.status_code == 400
    assert "There is a problem" in response.content.decode()
    assert mailoutbox == []


def test_reset_pages_exist_in_arabic(client):
    page = client.get("/ar/accounts/password/reset/").content.decode()
    assert "إعادة تعيين كلمة المرور" in page and 'dir="rtl"' in page


def test_a_learner_locked_out_by_a_forgotten_password_signs_in_after_the_reset(
    settings, mailoutbox
):
    make_user("huda", email="huda@example.org")
    browser = Client(REMOTE_ADDR="198.51.100.7")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        browser.post("/en/accounts/login/", {"login": "huda", "password": "forgotten"})
    assert (
        browser.post("/en/accounts/login/", {"login": "huda", "password": PASSWORD}).status_code
        == 429
    )

    _ask(browser, "huda@example.org")
    _set_new_password(browser, _link(mailoutbox[0]))
    response = browser.post("/en/accounts/login/", {"login": "huda", "password": NEW_PASSWORD})
    assert response.status_code == 302


def _work_of_asking(client, email) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The SQL a reset request runs (statements before their parameters) and the tasks it
    queues (name and argument names): all the request does before it answers."""
    statements: list[str] = []

    def record(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    before = set(DBTaskResult.objects.values_list("id", flat=True))
    with connection.execute_wrapper(record):
        assert _ask(client, email)["Location"] == SENT
    queued = DBTaskResult.objects.exclude(id__in=before)
    return statements, [(t.task_path, sorted(t.args_kwargs["kwargs"])) for t in queued]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("verified", [True, False])
def test_a_reset_for_a_known_address_does_the_same_work_as_for_an_unknown_one(settings, verified):
    """The answer's time tells nothing if the work does not differ: the same statements, and
    one task of the same kind queued, whichever address is asked for (the worker then looks
    it up and writes the right mail)."""
    settings.TASKS = {"default": {"BACKEND": settings.TASKS_BACKENDS["database"]}}
    make_user("huda", email="huda@example.org", verified=verified)
    client = Client()
    _ask(client, "warm-up@example.org")

    known = _work_of_asking(client, "huda@example.org")
    unknown = _work_of_asking(client, "nobody@example.org")

    assert known == unknown
    assert known[1] == [("accounts.reset.reset_requested", ["email", "host", "language", "scheme"])]
    call_command("db_worker", "--batch", "--no-startup-delay", "--no-reload", verbosity=0)
    mails = {message.to[0]: message for message in django_mail.outbox}
    assert bool(LINK.search(mails["huda@example.org"].body)) is verified
    assert not LINK.search(mails["nobody@example.org"].body)
