"""Reminders with several learners whose ids do not happen to match, and passes that overlap."""

from __future__ import annotations

import re

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.test import Client

from accounts.models import Profile
from quizzes.reminders import reminders_send
from tests.factories import make_user

from .test_reminders import MORNING_IN_RIYADH, ORIGIN, cards_due, opted_in

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _origin(settings):
    settings.SITE_ORIGIN = ORIGIN


def _with_verified_address(username: str):
    user = make_user(username, email=f"{username}@example.com")
    assert EmailAddress.objects.get(user=user).verified
    return user


def test_one_learners_unsubscribe_link_stops_their_reminders_and_nobody_elses(quiz):
    xavier, bilal = _with_verified_address("xavier"), _with_verified_address("bilal")
    # Profiles made apart from their users (as on any site that has lived a while): Bilal's
    # user id is Xavier's profile id. Each step moves a profile to an id nobody holds.
    spare = max(Profile.objects.values_list("pk", flat=True)) + max(xavier.pk, bilal.pk) + 1
    Profile.objects.filter(user=bilal).update(id=spare)
    Profile.objects.filter(user=xavier).update(id=bilal.pk)
    assert Profile.objects.get(user=xavier).pk == bilal.pk != Profile.objects.get(user=bilal).pk
    for learner in (xavier, bilal):
        opted_in(learner)
    cards_due(bilal, quiz, 1)

    assert reminders_send(now=MORNING_IN_RIYADH) == 1
    (message,) = mail.outbox
    assert message.to == ["bilal@example.com"]
    link = re.search(rf"{ORIGIN}(/en/review/reminders/stop/[^/\s]+/)", message.body).group(1)
    assert Client().post(link).status_code == 200

    assert Profile.objects.get(user=bilal).reminder_hour is None
    assert Profile.objects.get(user=xavier).reminder_hour == 8


def test_two_passes_that_overlap_send_one_mail(quiz, monkeypatch):
    """The second pass runs in full after the first has read the learner (not yet reminded
    today) and before it claims the day: only one of them may send."""
    amina = _with_verified_address("amina")
    opted_in(amina)
    cards_due(amina, quiz, 2)
    zone = Profile.zone
    second_pass: list[int] = []
    started: list[bool] = []

    def zone_with_a_pass_in_between(profile):
        if not started:
            started.append(True)
            second_pass.append(reminders_send(now=MORNING_IN_RIYADH))
        return zone.fget(profile)

    monkeypatch.setattr(Profile, "zone", property(zone_with_a_pass_in_between))

    first_pass = reminders_send(now=MORNING_IN_RIYADH)

    assert second_pass == [1] and first_pass == 0
    assert [message.to for message in mail.outbox] == [["amina@example.com"]]
