"""Junk straight into the forms that read what a browser sends. Whether a form reads junk as
an error needs no HTTP, so these try many more cases than the end-to-end fuzz tests beside
them (test_fuzz.py, test_fuzz_accounts.py), which keep a few through the whole stack: a form
never raises, and what it accepts is what the rules after it expect."""

import pytest
from django.http import QueryDict
from hypothesis import given, settings
from hypothesis import strategies as st

from accounts.forms import ProfileForm, SignupForm
from quizzes.forms import MAX_ID, AnswerForm, CatalogForm, ReportForm
from quizzes.models import Question, QuestionReport, Quiz
from tests.factories import make_mixed_quiz
from tests.fuzzing import examples

from .test_fuzz import junk

pytestmark = pytest.mark.django_db

MANY = settings(max_examples=examples(400))


def _data(**fields) -> QueryDict:
    data = QueryDict(mutable=True)
    for name, value in fields.items():
        data.setlist(name, value if isinstance(value, list) else [value])
    return data


@pytest.fixture
def questions() -> list[Question]:
    """One question of each kind (one answer, several, a number)."""
    return list(make_mixed_quiz().questions.order_by("position"))


@MANY
@given(
    choice=st.one_of(junk, st.lists(junk, max_size=4)),
    number=junk,
    question=junk,
    shown=st.booleans(),
)
def test_the_answer_form_reads_junk_as_an_error_or_as_ids(
    questions, choice, number, question, shown
):
    data = _data(choice=choice, number=number, question=question)
    form = AnswerForm(data)
    if not form.is_valid():
        assert form.errors
        return
    assert all(isinstance(pk, int) and 1 <= pk <= MAX_ID for pk in form.cleaned_data["choice"])
    assert form.cleaned_data["question"] is None or 1 <= form.cleaned_data["question"] <= MAX_ID
    for item in questions:
        form = AnswerForm(data)  # a form answers one question (an error leaves its field)
        assert form.is_valid()
        choices = list(item.choices.all())
        response = form.response_for(item, shown=choices if shown else None)
        if response is None:
            assert form.errors  # said to the learner, not raised
        elif shown and response.choice_ids:
            assert set(response.choice_ids) <= {c.pk for c in choices}


@MANY
@given(reason=junk, text=junk)
def test_the_report_form_accepts_a_listed_reason_and_short_details_only(reason, text):
    form = ReportForm(_data(reason=reason, text=text))
    if form.is_valid():
        assert form.cleaned_data["reason"] in QuestionReport.Reason.values
        assert len(form.cleaned_data["text"]) <= QuestionReport.MAX_TEXT
        if form.cleaned_data["reason"] == QuestionReport.Reason.OTHER:
            assert form.cleaned_data["text"]


@MANY
@given(q=junk, difficulty=junk, guide=junk, status=junk, mastery=junk, signed_in=st.booleans())
def test_the_catalog_form_reads_any_query_string(q, difficulty, guide, status, mastery, signed_in):
    form = CatalogForm(
        _data(q=q, difficulty=difficulty, guide=guide, status=status, mastery=mastery),
        signed_in=signed_in,
    )
    if form.is_valid():
        assert len(form.cleaned_data["q"]) <= 200
        assert form.cleaned_data["difficulty"] in {"", *Quiz.Difficulty.values}
    else:
        assert form.errors


@settings(max_examples=examples(150))
@given(username=junk, email=junk, password=junk)
def test_the_sign_up_form_reads_junk_as_errors(username, email, password):
    form = SignupForm(_data(username=username, email=email, password1=password, password2=password))
    if form.is_valid():
        assert 0 < len(form.cleaned_data["username"]) <= 150
    else:
        assert form.errors


@MANY
@given(language=junk)
def test_the_profile_form_accepts_a_site_language_only(learner, language):
    form = ProfileForm(_data(language=language), user=learner)
    assert form.is_valid() == (language in {"", "en", "ar"})
