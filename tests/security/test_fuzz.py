"""Hundreds of malformed submissions: never a 500, never a change of state."""

from urllib.parse import urlencode

import pytest
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st

from quizzes.attempts.services import attempt_start
from quizzes.forms import AnswerForm
from quizzes.models import Answer, Attempt
from tests.factories import make_quiz, make_user
from tests.fuzzing import examples
from tests.site_urls import every_url as site_urls
from tests.site_urls import url_names, url_values

pytestmark = pytest.mark.django_db

# The examples' number by profile (tests/fuzzing.py); deadline and health checks: the profile's.
FUZZ = settings(max_examples=examples(150))

junk = st.one_of(
    st.text(max_size=300),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True).map(str),
    st.sampled_from(["", " ", "0", "-1", "1e9", "NaN", "٣", "\x00", "' OR 1=1 --", "%00", "Ｑ"]),
    st.text(alphabet="٠١٢٣٤٥٦٧٨٩0123456789", min_size=1, max_size=30),
)


@pytest.fixture
def scene(learner):
    quiz = make_quiz(questions=2)
    mine = attempt_start(user=learner, quiz=quiz)
    other = make_user()
    theirs = attempt_start(user=other, quiz=make_quiz(questions=2))
    return mine, theirs


def _snapshot():
    return (
        list(Answer.objects.order_by("pk").values_list("pk", "choice_id", "is_correct")),
        list(Attempt.objects.order_by("pk").values_list("pk", "finished_at", "score")),
    )


@FUZZ
@given(choice=junk, number=st.integers(min_value=-5, max_value=50), hx=st.booleans())
def test_junk_answers_never_error_and_change_nothing(learner_client, scene, choice, number, hx):
    mine, theirs = scene
    before = _snapshot()
    headers = {"HTTP_HX_REQUEST": "true"} if hx else {}
    for attempt in (mine, theirs):
        url = f"/en/attempts/{attempt.pk}/questions/{max(number, 0)}/"
        response = learner_client.post(url, {"choice": choice}, **headers)
        assert response.status_code < 500
    # Only an id of the current question's choices may record anything ("+3" and "3.0" read
    # as 3, like any integer field); everything else must leave the data as it was.
    current = set(mine.quiz.questions.get(position=1).choices.values_list("pk", flat=True))
    form = AnswerForm({"choice": choice})
    picked = form.cleaned_data["choice"] if form.is_valid() else []
    if not (len(picked) == 1 and picked[0] in current and number == 1):
        assert _snapshot() == before


@settings(FUZZ, max_examples=examples(20))
@given(other_choice_offset=st.integers(min_value=0, max_value=7))
def test_choices_of_other_learners_quizzes_are_refused(learner_client, scene, other_choice_offset):
    mine, theirs = scene
    foreign = list(theirs.quiz.questions.get(position=1).choices.values_list("pk", flat=True))
    before = _snapshot()
    choice = foreign[other_choice_offset % len(foreign)]
    response = learner_client.post(f"/en/attempts/{mine.pk}/questions/1/", {"choice": choice})
    assert response.status_code == 409
    assert _snapshot() == before


@settings(FUZZ, max_examples=examples(60))
@given(username=st.text(max_size=200), password=st.text(max_size=200), page=junk)
def test_junk_sign_ups_sign_ins_and_pages_never_error(client, username, password, page):
    users_before = client.get("/en/").status_code
    assert users_before == 200
    for url, data in [
        (
            "/en/accounts/signup/",
            {"username": username, "password1": password, "password2": password},
        ),
        ("/en/accounts/login/", {"username": username, "password": password}),
    ]:
        assert client.post(url, data).status_code < 500
    client.logout()
    assert client.get("/en/", {"page": page}).status_code < 500


@settings(FUZZ, max_examples=examples(60))
@given(page=junk)
def test_junk_history_pages_never_error(learner_client, scene, page):
    assert learner_client.get("/en/attempts/", {"page": page}).status_code == 200


# Every view, with junk in its query string and its headers, from anyone: never a 5xx.

latin1_text = st.text(
    # What a server passes on in a header: Latin-1, without line breaks or NUL.
    alphabet=st.characters(max_codepoint=255, exclude_characters="\r\n\x00"),
    max_size=80,
)
url_junk = st.sampled_from(
    [
        "http://[",
        "//[::1",
        "http://[::1",
        "http://testserver[/en/",
        "https://evil.example/",
        "javascript:alert(1)",
        "///evil.example",
        "http://:99999",
        "/en/",
        "http://testserver/en/attempts/",
    ]
)
header_junk = st.one_of(
    url_junk,
    st.sampled_from(["true", "false", "", "*", "en;q=x, ar;q=NaN", "203.0.113.9, 10.0.0.1"]),
    latin1_text,
)
URL_HEADERS = {"HTTP_HX_CURRENT_URL", "HTTP_REFERER", "HTTP_ORIGIN"}
HEADERS = [
    "HTTP_HX_REQUEST",
    "HTTP_HX_CURRENT_URL",
    "HTTP_HX_TARGET",
    "HTTP_HX_TRIGGER",
    "HTTP_HX_BOOSTED",
    "HTTP_HX_HISTORY_RESTORE_REQUEST",
    "HTTP_REFERER",
    "HTTP_ORIGIN",
    "HTTP_ACCEPT",
    "HTTP_ACCEPT_LANGUAGE",
    "HTTP_X_FORWARDED_FOR",
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_IF_MODIFIED_SINCE",
    "HTTP_IF_NONE_MATCH",
    "HTTP_RANGE",
    "HTTP_COOKIE",
]
PARAMETERS = ["next", "page", "quiz", "attempts", "language", "o", "p", "q", "e", "all", "_popup"]


URL_NAMES = url_names()


@pytest.fixture
def every_url(learner, quiz):
    attempt = attempt_start(user=learner, quiz=quiz)
    return site_urls(url_values(quiz=quiz, attempt=attempt, user=learner))


SITE_URL_NAMES = [name for name in URL_NAMES if not name.startswith("admin:")]
request_junk = {
    "who": st.sampled_from(["anonymous", "learner", "instructor"]),
    "method": st.sampled_from(["get", "post"]),
    # Each header present or not; htmx's own marker mostly as htmx sends it.
    "headers": st.fixed_dictionaries(
        {},
        optional={
            header: (st.just("true") | header_junk)
            if header == "HTTP_HX_REQUEST"
            else (url_junk | latin1_text)
            if header in URL_HEADERS
            else header_junk
            for header in HEADERS
        },
    ),
    "query": st.fixed_dictionaries(
        {},
        optional={
            parameter: (url_junk | junk) if parameter == "next" else (header_junk | junk)
            for parameter in PARAMETERS
        },
    )
    | st.dictionaries(st.text(max_size=10), junk, max_size=3),
}


def _send(url, who, method, headers, query, people):
    client = Client()
    if who != "anonymous":
        client.force_login(people[who])
    send = getattr(client, method)
    response = send(f"{url}?{urlencode(query)}" if query else url, **headers)
    assert response.status_code < 500, (method.upper(), url, query, headers)


@pytest.mark.parametrize("name", SITE_URL_NAMES)
@settings(FUZZ, max_examples=examples(25))
@given(language=st.sampled_from(["en", "ar"]), **request_junk)
def test_junk_headers_and_query_strings_never_error_on_any_site_view(
    every_url, learner, instructor, name, language, who, method, headers, query
):
    url = every_url[name, language]
    _send(url, who, method, headers, query, {"learner": learner, "instructor": instructor})


@settings(FUZZ, max_examples=examples(80))
@given(data=st.data(), **request_junk)
def test_junk_headers_and_query_strings_never_error_in_the_admin(
    every_url, learner, instructor, data, who, method, headers, query
):
    admin_urls = sorted(url for (name, _), url in every_url.items() if name.startswith("admin:"))
    url = data.draw(st.sampled_from(admin_urls), label="url")
    _send(url, who, method, headers, query, {"learner": learner, "instructor": instructor})


def test_the_fuzzed_urls_cover_every_named_view(every_url):
    # A new view is fuzzed as soon as it has a named URL.
    assert {name for name, _ in every_url} == set(URL_NAMES)
    assert {"quizzes:question", "set_language", "accounts:signup"} <= set(SITE_URL_NAMES)
    assert "admin:quizzes_quiz_item_analysis" in URL_NAMES


@pytest.mark.parametrize("next_url", ["http://[", "//[::1", "http://[::1", "///[::1"])
@pytest.mark.parametrize("method", ["get", "post"])
def test_the_language_switch_sends_a_next_it_cannot_parse_home(client, next_url, method):
    response = getattr(client, method)(
        f"/i18n/setlang/?next={next_url}", {"language": "ar"}, HTTP_REFERER="http://["
    )
    assert response.status_code == 302
    assert response["Location"] in {"/", "/ar/"}


@pytest.mark.parametrize("current_url", ["http://[", "//[::1", "http://testserver[/en/"])
def test_an_htmx_post_from_an_unparsable_page_is_sent_to_sign_in(client, quiz, current_url):
    response = client.post(
        f"/en/quizzes/{quiz.slug}/start/", HTTP_HX_REQUEST="true", HTTP_HX_CURRENT_URL=current_url
    )
    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/en/accounts/login/?next=/en/quizzes/{quiz.slug}/start/"
