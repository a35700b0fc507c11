"""Hundreds of malformed submissions: never a 500, never a change of state."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizzes.attempts import attempt_start
from quizzes.forms import AnswerForm
from quizzes.models import Answer, Attempt
from tests.factories import make_quiz, make_user

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

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


@settings(FUZZ, max_examples=20)
@given(other_choice_offset=st.integers(min_value=0, max_value=7))
def test_choices_of_other_learners_quizzes_are_refused(learner_client, scene, other_choice_offset):
    mine, theirs = scene
    foreign = list(theirs.quiz.questions.get(position=1).choices.values_list("pk", flat=True))
    before = _snapshot()
    choice = foreign[other_choice_offset % len(foreign)]
    response = learner_client.post(f"/en/attempts/{mine.pk}/questions/1/", {"choice": choice})
    assert response.status_code == 409
    assert _snapshot() == before


@settings(FUZZ, max_examples=60)
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


@settings(FUZZ, max_examples=60)
@given(page=junk)
def test_junk_history_pages_never_error(learner_client, scene, page):
    assert learner_client.get("/en/attempts/", {"page": page}).status_code == 200
