"""Daily review reminders: at the learner's hour in their time zone, only with questions due,
never more than one a day, with a one-click unsubscribe link that needs no sign-in."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from allauth.account.models import EmailAddress
from django.core import mail
from django.core.management import call_command
from django.test import Client

from accounts.models import Profile
from quizzes.models import ReviewCard
from quizzes.reminders import reminders_send, unsubscribe_token
from quizzes.review.scheduler import card_of, card_record_quiz_answer
from tests.factories import make_user

pytestmark = pytest.mark.django_db

# 05:00 UTC: 08:00 in Riyadh, 21:00 the evening before in Los Angeles.
MORNING_IN_RIYADH = datetime(2026, 11, 3, 5, 0, tzinfo=UTC)
ORIGIN = "https://daleel.example"


@pytest.fixture(autouse=True)
def _origin(settings):
    settings.SITE_ORIGIN = ORIGIN


def opted_in(user, *, hour: int = 8, zone: str = "Asia/Riyadh", language: str = "") -> Profile:
    Profile.objects.filter(user=user).update(reminder_hour=hour, time_zone=zone, language=language)
    return Profile.objects.get(user=user)


@pytest.fixture
def learner_with_email(learner):
    """A learner whose address is verified by link (only such an address gets reminders)."""
    learner.email = "amina@example.com"
    learner.save(update_fields=["email"])
    EmailAddress.objects.create(user=learner, email=learner.email, primary=True, verified=True)
    return learner


def cards_due(user, quiz, count: int, *, due: datetime = MORNING_IN_RIYADH - timedelta(hours=1)):
    for question in quiz.questions.order_by("position")[:count]:
        card_record_quiz_answer(
            card_of(user.pk, question.pk),
            user_id=user.pk,
            question_id=question.pk,
            is_correct=False,
            at=due - timedelta(days=2),
        )
    ReviewCard.objects.filter(user=user).update(due=due)


def run_pass(at: datetime) -> str:
    with time_machine.travel(at, tick=False):
        out = []

        class Out:
            def write(self, text):
                out.append(text)

            def flush(self):
                pass

        call_command("send_review_reminders", stdout=Out())
    return "".join(out)


def test_at_the_learners_hour_a_reminder_says_how_many_are_due_with_links(learner_with_email, quiz):
    opted_in(learner_with_email)
    cards_due(learner_with_email, quiz, 2)

    assert "Queued 1 review reminder(s)." in run_pass(MORNING_IN_RIYADH)

    [message] = mail.outbox
    assert message.to == ["amina@example.com"]
    assert message.from_email == "Daleel <noreply@localhost>"
    assert message.subject == "2 questions are due for review in Daleel"
    assert f"{ORIGIN}/en/review/" in message.body
    unsubscribe = re.search(rf"{ORIGIN}/en/review/reminders/stop/[^/\s]+/", message.body).group(0)
    assert message.extra_headers["List-Unsubscribe"] == f"<{unsubscribe}>"
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    # No account data: neither the username ("Amina") nor the address, in any case.
    assert "amina" not in unsubscribe.casefold() and "example.com" not in unsubscribe
    html = message.alternatives[0].content
    assert f'href="{ORIGIN}/en/review/"' in html and unsubscribe in html


def test_before_the_hour_nothing_is_sent_and_never_a_second_mail_the_same_day(
    learner_with_email, quiz
):
    opted_in(learner_with_email)
    cards_due(learner_with_email, quiz, 1)

    run_pass(MORNING_IN_RIYADH - timedelta(minutes=1))  # 07:59 in Riyadh
    assert mail.outbox == []
    run_pass(MORNING_IN_RIYADH)
    run_pass(MORNING_IN_RIYADH + timedelta(hours=1))
    run_pass(MORNING_IN_RIYADH + timedelta(hours=18))  # 23:00 in Riyadh, the same day
    assert len(mail.outbox) == 1
    assert mail.outbox[0].subject == "1 question is due for review in Daleel"

    run_pass(MORNING_IN_RIYADH + timedelta(days=1))  # the next morning
    assert len(mail.outbox) == 2


def test_no_mail_when_nothing_is_due_nor_later_that_day(learner_with_email, quiz):
    opted_in(learner_with_email)
    cards_due(learner_with_email, quiz, 1, due=MORNING_IN_RIYADH + timedelta(hours=3))

    assert "Queued 0 review reminder(s)." in run_pass(MORNING_IN_RIYADH)
    run_pass(MORNING_IN_RIYADH + timedelta(hours=4))  # due now, but the day was checked

    assert mail.outbox == []


def test_a_late_pass_still_sends_the_days_reminder_once(learner_with_email, quiz):
    opted_in(learner_with_email)
    cards_due(learner_with_email, quiz, 1)

    run_pass(MORNING_IN_RIYADH + timedelta(hours=5, minutes=17))  # the worker was down at 08:00
    run_pass(MORNING_IN_RIYADH + timedelta(hours=6))

    assert len(mail.outbox) == 1


def test_the_hour_is_the_learners_own_in_los_angeles(learner_with_email, quiz):
    opted_in(learner_with_email, hour=8, zone="America/Los_Angeles")
    cards_due(learner_with_email, quiz, 1)

    run_pass(MORNING_IN_RIYADH)  # 21:00 the day before in Los Angeles: that day, after 08:00
    assert len(mail.outbox) == 1
    run_pass(datetime(2026, 11, 3, 15, 59, tzinfo=UTC))  # 07:59 on the 3rd in Los Angeles
    assert len(mail.outbox) == 1
    run_pass(datetime(2026, 11, 3, 16, 0, tzinfo=UTC))  # 08:00 on the 3rd
    assert len(mail.outbox) == 2


def test_an_address_not_verified_gets_no_reminder(learner, quiz):
    learner.email = "amina@example.com"
    learner.save(update_fields=["email"])
    EmailAddress.objects.create(user=learner, email=learner.email, primary=True, verified=False)
    opted_in(learner)
    cards_due(learner, quiz, 2)

    with time_machine.travel(MORNING_IN_RIYADH, tick=False):
        assert reminders_send() == 0
    assert mail.outbox == []


def test_learners_without_reminders_or_an_address_get_none(learner, quiz):
    cards_due(learner, quiz, 1)
    opted_in(learner)  # no email address
    other = make_user("bilal", email="bilal@example.com")  # reminders off
    cards_due(other, quiz, 1)

    run_pass(MORNING_IN_RIYADH)

    assert mail.outbox == []


def test_the_reminder_is_in_the_learners_language(learner_with_email, quiz):
    opted_in(learner_with_email, language="ar")
    cards_due(learner_with_email, quiz, 3)

    run_pass(MORNING_IN_RIYADH)

    [message] = mail.outbox
    assert f"{ORIGIN}/ar/review/" in message.body
    assert "questions are due" not in message.subject
    # From the product by its Arabic name, and asked in native words (issue 53).
    assert message.from_email == "دليل <noreply@localhost>"
    assert "أجب عنها الآن، فهذا أنسب وقت لمراجعتها:" in message.body


def test_an_operators_own_sender_is_kept_in_every_language(learner_with_email, quiz, settings):
    settings.DEFAULT_FROM_EMAIL = "Acme Learning <learning@acme.example>"
    opted_in(learner_with_email, language="ar")
    cards_due(learner_with_email, quiz, 2)

    run_pass(MORNING_IN_RIYADH)

    [message] = mail.outbox
    assert message.from_email == "Acme Learning <learning@acme.example>"


# --- Unsubscribing --------------------------------------------------------------------------


def test_the_unsubscribe_link_asks_then_stops_reminders_without_signing_in(learner_with_email):
    profile = opted_in(learner_with_email)
    url = f"/en/review/reminders/stop/{unsubscribe_token(profile)}/"
    client = Client(enforce_csrf_checks=True)

    page = client.get(url)
    assert page.status_code == 200 and "Stop reminders" in page.content.decode()
    assert Profile.objects.get(pk=profile.pk).reminder_hour == 8  # a link preview stops nothing

    done = client.post(url)

    assert done.status_code == 200
    assert "no more review reminders" in done.content.decode()
    assert Profile.objects.get(pk=profile.pk).reminder_hour is None


def test_a_mail_clients_one_click_post_unsubscribes(learner_with_email):
    profile = opted_in(learner_with_email)
    client = Client(enforce_csrf_checks=True)

    response = client.post(
        f"/en/review/reminders/stop/{unsubscribe_token(profile)}/",
        "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )

    assert response.status_code == 200
    assert Profile.objects.get(pk=profile.pk).reminder_hour is None


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_tampered_link_says_so_and_changes_nothing(learner_with_email, lang):
    profile = opted_in(learner_with_email)
    token = unsubscribe_token(profile)
    other = make_user("bilal")
    forged = token.replace(str(profile.pk), str(Profile.objects.get(user=other).pk), 1) + "x"

    for bad in (forged, "nonsense", token[:-2]):
        response = Client().post(f"/{lang}/review/reminders/stop/{bad}/")
        assert response.status_code == 400
        if lang == "en":
            assert "This link is not valid" in response.content.decode()

    assert Profile.objects.get(pk=profile.pk).reminder_hour == 8


def test_a_link_stops_working_once_the_learner_has_another_address(learner_with_email):
    profile = opted_in(learner_with_email)
    sent_to_the_old_address = unsubscribe_token(profile)
    user = profile.user
    user.email = "new-address@example.org"
    user.save(update_fields=["email"])

    stale = Client().post(f"/en/review/reminders/stop/{sent_to_the_old_address}/")
    assert stale.status_code == 400
    assert Profile.objects.get(pk=profile.pk).reminder_hour == 8

    current = Client().post(f"/en/review/reminders/stop/{unsubscribe_token(profile)}/")
    assert current.status_code == 200
    assert Profile.objects.get(pk=profile.pk).reminder_hour is None


def test_reminders_send_counts_what_it_queued(learner_with_email, quiz):
    opted_in(learner_with_email)
    cards_due(learner_with_email, quiz, 1)

    assert reminders_send(now=MORNING_IN_RIYADH) == 1
    assert reminders_send(now=MORNING_IN_RIYADH) == 0


def test_sent_by_hand_in_development_the_command_says_the_origin_its_links_point_to(
    settings, learner_with_email, quiz
):
    # A second terminal beside `PORT=9100 make run`, given the port as the README says.
    settings.DEBUG = True
    settings.SITE_ORIGIN = ""
    settings.DEV_SERVER_ORIGIN = "http://127.0.0.1:9100"
    opted_in(learner_with_email)
    cards_due(learner_with_email, quiz, 1)

    said = run_pass(MORNING_IN_RIYADH)

    assert "Their links point to http://127.0.0.1:9100/." in said
    [message] = mail.outbox
    assert "http://127.0.0.1:9100/en/review/" in message.body
