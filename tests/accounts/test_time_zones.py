"""Every date and time a learner sees is in their time zone (Profile.time_zone): taken from
the browser at the first sign-in, changed on the profile; instructors' reports use theirs."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

import pytest
import time_machine
from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import login
from django.contrib.sessions.backends.cache import SessionStore
from django.test import Client, RequestFactory

from accounts import zones
from accounts.middleware import SESSION_TIME_ZONE
from accounts.models import Profile
from quizzes.attempts.services import attempt_start
from quizzes.models import Attempt, ReviewCard
from tests.factories import PASSWORD, make_user, wrong_choice
from tests.steps import post_answer

pytestmark = pytest.mark.django_db

# 22:30 UTC on a Monday: already Tuesday in Riyadh (UTC+3), still Monday afternoon in Los
# Angeles (UTC-8 in November).
LATE_MONDAY = datetime(2026, 11, 2, 22, 30, tzinfo=UTC)


def signed_in(user, zone: str = "") -> Client:
    Profile.objects.filter(user=user).update(time_zone=zone)
    client = Client()
    client.force_login(user)  # the session keeps the zone from here
    return client


def card_due_at(learner, quiz, due: datetime) -> None:
    question = quiz.questions.get(position=1)
    post_answer(attempt_start(user=learner, quiz=quiz), question, choice=wrong_choice(question))
    ReviewCard.objects.update(due=due)


@pytest.mark.site_time_zone("UTC")
@pytest.mark.parametrize(
    ("zone", "said"),
    [
        # A day later, at the learner's own hour: tomorrow, for each of them.
        ("Asia/Riyadh", "tomorrow at 1:30 a.m."),
        ("America/Los_Angeles", "tomorrow at 2:30 p.m."),
        ("", "tomorrow at 10:30 p.m."),
    ],
)
@time_machine.travel(LATE_MONDAY, tick=False)
def test_the_next_review_is_said_on_the_learners_own_day_and_hour(learner, quiz, zone, said):
    card_due_at(learner, quiz, LATE_MONDAY + timedelta(days=1))

    page = signed_in(learner, zone).get("/en/review/").content.decode()

    assert f"The next question comes back {said}." in page


@pytest.mark.parametrize(
    ("zone", "day"), [("Asia/Riyadh", "Nov. 3, 2026"), ("America/Los_Angeles", "Nov. 2, 2026")]
)
def test_history_and_result_give_the_learners_date(learner, quiz, zone, day):
    with time_machine.travel(LATE_MONDAY, tick=False):
        attempt = attempt_start(user=learner, quiz=quiz)
        Attempt.objects.filter(pk=attempt.pk).update(finished_at=LATE_MONDAY, score=0, total=3)
    client = signed_in(learner, zone)

    assert day in client.get("/en/attempts/").content.decode()
    assert f"Finished {day}" in client.get(f"/en/attempts/{attempt.pk}/result/").content.decode()


def sign_in_with_cookie(user, tz: str):
    """Django's own `login`, as every sign-in path calls it (the sign-in form, sign-up,
    django-allauth's), from a browser whose script set the `tz` cookie."""
    request = RequestFactory().post("/en/accounts/login/")
    request.COOKIES["tz"] = quote(tz)
    request.session = SessionStore()
    login(request, user, backend=settings.SIGN_IN_BACKEND)
    return request


def test_the_first_sign_in_takes_the_browsers_zone_from_its_cookie():
    user = make_user("newcomer")

    request = sign_in_with_cookie(user, "America/Los_Angeles")

    assert Profile.objects.get(user=user).time_zone == "America/Los_Angeles"
    assert request.session[SESSION_TIME_ZONE] == "America/Los_Angeles"


def test_the_sign_in_form_takes_the_zone_too(client):
    user = make_user("newcomer")
    client.cookies["tz"] = "Asia/Riyadh"

    client.post(
        "/en/accounts/login/",
        {"login": "newcomer", "password": PASSWORD},
        REMOTE_ADDR="127.0.0.1",
    )

    assert Profile.objects.get(user=user).time_zone == "Asia/Riyadh"


def test_a_zone_the_learner_chose_is_kept_and_a_bogus_cookie_ignored(learner):
    Profile.objects.filter(user=learner).update(time_zone="Asia/Riyadh")
    request = sign_in_with_cookie(learner, "America/Los_Angeles")
    assert Profile.objects.get(user=learner).time_zone == "Asia/Riyadh"
    assert request.session[SESSION_TIME_ZONE] == "Asia/Riyadh"

    other = make_user("bilal")
    sign_in_with_cookie(other, "Mars/Olympus_Mons")
    assert Profile.objects.get(user=other).time_zone == ""


def test_the_profile_changes_the_zone_at_once_and_refuses_an_unknown_one(learner):
    learner.email = "amina@example.com"
    learner.save(update_fields=["email"])
    EmailAddress.objects.create(user=learner, email=learner.email, primary=True, verified=True)
    client = signed_in(learner)
    assert "Time zone and reminders" in client.get("/en/accounts/profile/").content.decode()

    refused = client.post(
        "/en/accounts/profile/preferences/", {"time_zone": "Europe/Atlantis", "reminder_hour": ""}
    )
    assert refused.status_code == 400
    saved = client.post(
        "/en/accounts/profile/preferences/", {"time_zone": "Asia/Riyadh", "reminder_hour": "7"}
    )

    assert saved.status_code == 302
    profile = Profile.objects.get(user=learner)
    assert (profile.time_zone, profile.reminder_hour) == ("Asia/Riyadh", 7)
    page = client.get("/en/accounts/profile/").content.decode()
    assert "Riyadh — Saudi Arabia" in page and "7 a.m." in page and "Asia/Riyadh" not in page


def test_the_preferences_page_is_in_arabic_too(learner):
    page = signed_in(learner).get("/ar/accounts/profile/preferences/").content.decode()
    assert 'lang="ar"' in page and "Asia/Riyadh" in page


@pytest.mark.parametrize(
    ("zone", "offset"), [("Asia/Riyadh", "+03:00"), ("America/Los_Angeles", "-08:00")]
)
def test_the_grades_csv_gives_times_in_the_instructors_zone(
    instructor, quiz, learner, zone, offset
):
    with time_machine.travel(LATE_MONDAY, tick=False):
        attempt = attempt_start(user=learner, quiz=quiz)
    client = signed_in(instructor, zone)

    response = client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/results.csv")
    body = b"".join(response.streaming_content).decode("utf-8").removeprefix("\ufeff")
    rows = list(csv.DictReader(io.StringIO(body)))

    started = datetime.fromisoformat(rows[0]["started_at"])
    assert rows[0]["attempt_id"] == str(attempt.pk)
    assert rows[0]["started_at"].endswith(offset)
    assert started == LATE_MONDAY


@pytest.mark.parametrize(
    ("zone", "day"),
    [
        ("Asia/Riyadh", "Nov. 3, 2026, 1:30 a.m."),
        ("America/Los_Angeles", "Nov. 2, 2026, 2:30 p.m."),
    ],
)
def test_the_grades_page_gives_times_in_the_instructors_zone(instructor, quiz, learner, zone, day):
    with time_machine.travel(LATE_MONDAY, tick=False):
        attempt_start(user=learner, quiz=quiz)

    page = signed_in(instructor, zone).get(f"/en/admin/quizzes/quiz/{quiz.pk}/results/")

    assert day in page.content.decode()


def test_reminders_need_an_email_address(learner):
    response = signed_in(learner).post(
        "/en/accounts/profile/preferences/", {"time_zone": "", "reminder_hour": "7"}
    )

    assert response.status_code == 400
    assert "only to an address you verified" in response.content.decode()
    assert Profile.objects.get(user=learner).reminder_hour is None


@pytest.mark.parametrize("verified", [False, True])
def test_reminders_need_the_address_verified_by_its_link(learner, verified):
    learner.email = "amina@example.com"
    learner.save(update_fields=["email"])
    EmailAddress.objects.create(user=learner, email=learner.email, primary=True, verified=verified)

    response = signed_in(learner).post(
        "/en/accounts/profile/preferences/", {"time_zone": "", "reminder_hour": "7"}
    )

    assert response.status_code == (302 if verified else 400)
    assert Profile.objects.get(user=learner).reminder_hour == (7 if verified else None)


# --- Zones and hours as a reader says them (issue 44) ------------------------------------------


def _options(page: str) -> list[tuple[str, str]]:
    return re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', page)


def test_the_picker_lists_todays_zones_by_region_and_city_in_the_pages_language(learner):
    client = signed_in(learner)
    arabic = client.get("/ar/accounts/profile/preferences/").content.decode()
    english = client.get("/en/accounts/profile/preferences/").content.decode()

    assert ("Asia/Riyadh", "الرياض — المملكة العربية السعودية") in _options(arabic)
    assert ("Asia/Riyadh", "Riyadh — Saudi Arabia") in _options(english)
    assert '<optgroup label="آسيا">' in arabic and '<optgroup label="Europe">' in english
    values = {value for value, _label in _options(english)}
    # Today's names only: Kyiv and Kolkata, not their old links, nor the US/ and Etc/ aliases.
    assert {"Europe/Kyiv", "Asia/Kolkata", "UTC"} <= values
    assert not values & {"Europe/Kiev", "Asia/Calcutta", "US/Pacific", "Etc/GMT+3", "posixrules"}
    assert not [label for _value, label in _options(arabic) if "/" in label]


def test_an_old_zone_name_a_learner_holds_stays_listed_and_selected(learner):
    client = signed_in(learner, "US/Pacific")
    page = client.get("/en/accounts/profile/preferences/").content.decode()
    assert re.search(r'<option value="US/Pacific" selected>Los Angeles[^<]*</option>', page)


def test_reminder_hours_read_as_every_other_time_in_twelve_hours(learner):
    client = signed_in(learner)
    arabic = dict(_options(client.get("/ar/accounts/profile/preferences/").content.decode()))
    english = dict(_options(client.get("/en/accounts/profile/preferences/").content.decode()))
    assert (arabic["8"], arabic["20"], arabic["0"]) == ("8:00 ص", "8:00 م", "12:00 ص")
    assert (english["8"], english["20"]) == ("8 a.m.", "8 p.m.")


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("ar", "يُفتح في 1 ديسمبر 2026، 5:00 م بتوقيت <bdi>الرياض</bdi>."),
        ("en", "Opens Dec. 1, 2026, 5 p.m., <bdi>Riyadh</bdi> time."),
    ],
)
def test_a_quizs_opening_time_carries_its_zone_by_city_not_offset(learner, lang, said):
    from tests.factories import make_quiz

    quiz = make_quiz(opens_at=datetime(2026, 12, 1, 14, 0, tzinfo=UTC))
    with time_machine.travel(datetime(2026, 11, 30, tzinfo=UTC), tick=False):
        client = signed_in(learner, "Asia/Riyadh")
        page = client.get(f"/{lang}/quizzes/{quiz.slug}/").content.decode()
    assert said in page
    assert "+03" not in page


@pytest.mark.parametrize(
    ("language", "city_states"),
    [
        ("en", ["Singapore", "Bahrain", "Kuwait", "Qatar"]),
        ("ar", ["سنغافورة", "البحرين", "الكويت", "قطر"]),
    ],
)
def test_a_city_states_zone_is_named_once_and_no_label_repeats_its_city(language, city_states):
    names = list(zones.current_zones())
    labels = [zones.label(name, language) for name in names]

    # "Singapore — Singapore" nowhere: a label names its country only when it differs.
    repeated = [label for label in labels if len(set(label.split(" — "))) < label.count(" — ") + 1]
    assert repeated == []
    named_once = {
        name: label for name, label in zip(names, labels, strict=True) if " — " not in label
    }
    for zone, said in zip(
        ["Asia/Singapore", "Asia/Bahrain", "Asia/Kuwait", "Asia/Qatar"], city_states, strict=True
    ):
        assert named_once[zone] == said
    # Measured on 5 December 2026 (tzdata and Babel as pinned, with issue 53's names): 47 zones
    # named once in English, 46 in Arabic.
    assert len(named_once) >= 40
    assert zones.label("Asia/Riyadh", language).count(" — ") == 1


# --- The picker's names (issue 53) -------------------------------------------------------------


def test_jerusalem_is_named_by_its_city_alone_in_every_language():
    from accounts.zones import label

    assert label("Asia/Jerusalem", "ar") == "القدس"
    assert label("Asia/Jerusalem", "en") == "Jerusalem"
    assert label("Asia/Gaza", "ar") == "غزة — الأراضي الفلسطينية"


@pytest.mark.parametrize(
    ("zone", "city"),
    [
        ("Asia/Irkutsk", "إيركوتسك"),
        ("Asia/Sakhalin", "ساخالين"),
        ("Asia/Ulaanbaatar", "أولان باتور"),
        ("Asia/Yangon", "يانغون"),
        ("Asia/Hebron", "الخليل"),
        ("Africa/Mogadishu", "مقديشو"),
        ("Europe/Samara", "سامارا"),
    ],
)
def test_cldrs_misspelt_arabic_cities_are_written_as_arabic_writes_them(zone, city):
    from accounts.zones import place

    assert place(zone, "ar") == city


def test_the_arab_countries_come_first_in_arabic_and_nowhere_else():
    from accounts.zones import choices

    arabic = choices(language="ar")
    english = choices(language="en")

    group, zones = arabic[1]
    assert group == "الدول العربية"
    names = {name for name, _label in zones}
    assert {"Asia/Riyadh", "Africa/Cairo", "Asia/Gaza", "Africa/Casablanca"} <= names
    assert "Asia/Tehran" not in names and "Asia/Jerusalem" not in names
    asia = dict(arabic)["آسيا"]
    assert "Asia/Riyadh" not in {name for name, _label in asia}
    assert "Arab countries" not in dict(english) and "Asia/Riyadh" in dict(dict(english)["Asia"])
    assert not [label for _group, zones in arabic[1:] for _n, label in zones if "إسرائيل" in label]
