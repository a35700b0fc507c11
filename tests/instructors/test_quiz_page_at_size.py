"""A quiz's one admin page at the size instructors work at (issue 50): the seed quizzes and a quiz
of 100 questions of every kind open, and save as a browser without JavaScript sends them (every
field of the page, each empty file input a file part), the edits stored and nothing else
changed; the page carries each question's own section only, and nothing that is only a
template is sent; past the upload limits, a page says what happened and how to go on."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quizzes.models import AcceptedText, Choice, MatchPair, OrderItem, Question
from tests.admin_posts import (
    browser_form,
    content_snapshot,
    page_errors,
    post_as_browser,
    snapshot_changes,
)
from tests.factories import add_question, make_quiz, make_quiz_of_every_kind, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def instructor_client(client):
    client.force_login(make_user("ustadh", is_staff=True, is_superuser=True))
    return client


@pytest.fixture(scope="module")
def big_quiz(django_db_setup, django_db_blocker):
    """A quiz of 100 questions of every kind, made once for the module (its tests roll back
    what they save)."""
    with django_db_blocker.unblock():
        quiz = make_quiz_of_every_kind(100, is_published=False)
    yield quiz
    with django_db_blocker.unblock():
        Question.objects.filter(quiz=quiz).delete()
        quiz.delete()


def _url(quiz, language: str = "en") -> str:
    return f"/{language}/admin/quizzes/quiz/{quiz.pk}/change/"


def _open(client, quiz, language: str = "en"):
    response = client.get(_url(quiz, language))
    assert response.status_code == 200
    return response.content.decode(), browser_form(response.content.decode(), "quiz_form")


def _index(quiz, question: Question) -> int:
    """The question's row on the page (the page lists them by position)."""
    return list(quiz.questions.order_by("position").values_list("pk", flat=True)).index(question.pk)


def test_each_seed_quizs_page_saves_its_edited_title_and_changes_nothing_else(
    instructor_client, seed_quizzes
):
    for quiz in seed_quizzes:
        before = content_snapshot(quiz)
        _page, form = _open(instructor_client, quiz)

        response = post_as_browser(
            instructor_client,
            _url(quiz),
            form,
            {"title_en": f"{quiz.title_en} (edited)", "_continue": "1"},
        )

        assert response.status_code == 302, page_errors(response)
        changes = snapshot_changes(before, content_snapshot(quiz))
        assert set(changes) == {("quiz", quiz.pk, "title_en")}, quiz.slug
        assert changes[("quiz", quiz.pk, "title_en")][1] == f"{quiz.title_en} (edited)"


def test_a_quiz_of_100_questions_saves_edits_to_every_kind_of_part_and_nothing_else(
    instructor_client, big_quiz
):
    quiz = big_quiz
    choice = Choice.objects.filter(question__quiz=quiz, question__kind="single").first()
    accepted = AcceptedText.objects.filter(question__quiz=quiz).first()
    pair = MatchPair.objects.filter(question__quiz=quiz).exclude(prompt_en="").first()
    item = OrderItem.objects.filter(question__quiz=quiz).last()

    def name(part, section: str, field: str) -> str:
        rows = list(getattr(part.question, section).order_by("position").values_list("pk"))
        return f"questions-{_index(quiz, part.question)}-{section}-{rows.index((part.pk,))}-{field}"

    edits = {
        "title_en": "A hundred questions",
        name(choice, "choices", "text_en"): "A choice, edited",
        name(accepted, "accepted_texts", "text_en"): "an accepted answer, edited",
        name(pair, "pairs", "match_en"): "a match, edited",
        name(item, "order_items", "text_ar"): "عنصر معدَّل",
    }
    before = content_snapshot(quiz)
    _page, form = _open(instructor_client, quiz)
    assert {field for field, _value in form.fields} >= set(edits)

    response = post_as_browser(instructor_client, _url(quiz), form, edits | {"_continue": "1"})

    assert response.status_code == 302, page_errors(response)
    changes = snapshot_changes(before, content_snapshot(quiz))
    assert set(changes) == {
        ("quiz", quiz.pk, "title_en"),
        ("choice", choice.pk, "text_en"),
        ("acceptedtext", accepted.pk, "text_en"),
        ("matchpair", pair.pk, "match_en"),
        ("orderitem", item.pk, "text_ar"),
    }
    assert changes[("orderitem", item.pk, "text_ar")][1] == "عنصر معدَّل"
    assert changes[("matchpair", pair.pk, "match_en")][1] == "a match, edited"


def test_each_question_carries_its_own_kinds_section_and_nothing_that_is_only_a_template(
    instructor_client, big_quiz
):
    page, form = _open(instructor_client, big_quiz)

    sent = [name for name, _value in form.fields] + form.files
    assert not [name for name in sent if "__prefix__" in name or "__question__" in name]
    shown = re.sub(r"<template[^>]*>.*?</template>", "", page, flags=re.S)
    sections = re.findall(r'id="questions-(\d+)-([a-z_]+)-group" data-section', shown)
    kinds = list(big_quiz.questions.order_by("position").values_list("kind", flat=True))
    expected = {
        "single": "choices",
        "multiple": "choices",
        "truefalse": "choices",
        "numerical": "numerical_answers",
        "short": "accepted_texts",
        "matching": "pairs",
        "ordering": "order_items",
    }
    assert sections == [(str(index), expected[kind]) for index, kind in enumerate(kinds)]
    # One template of each section and of its row for the whole page.
    assert len(re.findall(r'<template id="daleel-(?:section|row)-', page)) == 10


def test_a_quiz_page_posts_well_within_the_limits_and_says_them_to_its_script(
    instructor_client, big_quiz, settings
):
    page, form = _open(instructor_client, big_quiz)

    # A file input left empty is sent as a field (Django 6.1 reads a part without a file name
    # as one); the page's script leaves those out.
    assert len(form.fields) + len(form.files) < settings.DATA_UPLOAD_MAX_NUMBER_FIELDS / 2
    limits = re.search(r'<div id="daleel-upload-limits"[^>]*>', page)[0]
    assert f'data-max-fields="{settings.DATA_UPLOAD_MAX_NUMBER_FIELDS}"' in limits
    assert f'data-max-files="{settings.DATA_UPLOAD_MAX_NUMBER_FILES}"' in limits
    assert f'data-max-bytes="{settings.DATA_UPLOAD_MAX_MEMORY_SIZE}"' in limits


def test_the_limits_take_the_largest_quiz_the_page_supports(instructor_client, settings):
    """100 questions of 10 choices each, the size the README's limits are set for: sent
    whole without JavaScript (empty file inputs included), it fits."""
    quiz = make_quiz(questions=100, choices=10, is_published=False)
    _page, form = _open(instructor_client, quiz)

    assert len(form.fields) + len(form.files) <= settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
    response = post_as_browser(instructor_client, _url(quiz), form, {"_continue": "1"})
    assert response.status_code == 302, page_errors(response)


def test_the_page_and_its_save_read_the_database_as_often_for_100_questions_as_for_10(
    instructor_client, big_quiz
):
    small = make_quiz_of_every_kind(10, is_published=False)
    counts = {}
    for quiz in (small, big_quiz):
        with CaptureQueriesContext(connection) as opening:
            _page, form = _open(instructor_client, quiz)
        with CaptureQueriesContext(connection) as saving:
            response = post_as_browser(instructor_client, _url(quiz), form, {"_continue": "1"})
        assert response.status_code == 302, page_errors(response)
        counts[quiz.pk] = (len(opening), len(saving))

    assert counts[small.pk] == counts[big_quiz.pk]
    opening, saving = counts[big_quiz.pk]
    assert opening <= 12 and saving <= 20, counts


@pytest.mark.parametrize(
    ("limit", "value", "said"),
    [
        ("DATA_UPLOAD_MAX_NUMBER_FIELDS", 200, "more fields than one save takes (at most 200)"),
        ("DATA_UPLOAD_MAX_NUMBER_FILES", 2, "more images than one save takes (at most 2)"),
        ("DATA_UPLOAD_MAX_MEMORY_SIZE", 2_000, "more text than one save takes"),
    ],
)
def test_a_save_past_a_limit_says_what_happened_and_how_to_go_on_and_changes_nothing(
    instructor_client, seed_quizzes, settings, limit, value, said
):
    quiz = seed_quizzes[-1]
    before = content_snapshot(quiz)
    _page, form = _open(instructor_client, quiz)
    chosen = dict.fromkeys(form.files[:3], ("figure.png", b"not read"))
    setattr(settings, limit, value)

    response = post_as_browser(
        instructor_client, _url(quiz), form, {"title_en": "Lost?"}, files=chosen
    )

    assert response.status_code == 413
    page = response.content.decode()
    assert said in page
    assert "split the quiz into smaller quizzes" in page
    assert 'id="site-name"' in page  # the admin's own page, not a bare 400
    assert snapshot_changes(before, content_snapshot(quiz)) == {}


def test_the_refusal_speaks_the_admins_language(instructor_client, seed_quizzes, settings):
    quiz = seed_quizzes[0]
    _page, form = _open(instructor_client, quiz, "ar")
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 100

    response = post_as_browser(instructor_client, _url(quiz, "ar"), form)

    assert response.status_code == 413
    page = response.content.decode()
    assert 'lang="ar"' in page
    assert "أرسلت هذه الصفحة حقولًا أكثر مما يتّسع له الحفظ الواحد" in page
    assert "قسّم الاختبار إلى اختبارات أصغر" in page


def test_a_learners_form_past_a_limit_gets_a_page_not_a_bare_400(learner_client, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 3
    data = {f"field{n}": "x" for n in range(10)}

    page = learner_client.post("/en/accounts/profile/", data)
    fragment = learner_client.post("/en/accounts/profile/", data, HTTP_HX_REQUEST="true")

    assert page.status_code == 413
    assert "That form sent more than we take at once" in page.content.decode()
    assert fragment.status_code == 413 and fragment["HX-Refresh"] == "true"
    assert "HX-Request" in page["Vary"]


def test_a_kind_changed_without_the_pages_script_is_refused_with_what_it_needs(
    instructor_client,
):
    quiz = make_quiz(questions=2, is_published=False)
    question = quiz.questions.get(position=2)
    before = content_snapshot(quiz)
    _page, form = _open(instructor_client, quiz)

    response = post_as_browser(instructor_client, _url(quiz), form, {"questions-1-kind": "short"})

    assert response.status_code == 200
    errors = page_errors(response)
    assert "Only questions of choices have choices" in errors or "delete them" in errors, errors
    # The page now shows the short answer's section for it, to fill in.
    assert 'id="questions-1-accepted_texts-group"' in response.content.decode()
    assert snapshot_changes(before, content_snapshot(quiz)) == {}
    assert Question.objects.get(pk=question.pk).kind == "single"


def test_the_question_page_of_each_kind_opens_and_saves_as_sent_without_javascript(
    instructor_client, big_quiz
):
    for kind in ("single", "multiple", "truefalse", "numerical", "short", "matching", "ordering"):
        question = big_quiz.questions.filter(kind=kind).first()
        url = f"/en/admin/quizzes/question/{question.pk}/change/"
        before = content_snapshot(big_quiz)
        form = browser_form(instructor_client.get(url).content.decode(), "question_form")

        response = post_as_browser(
            instructor_client, url, form, {"prompt_en": f"Edited {kind}?", "_continue": "1"}
        )

        assert response.status_code == 302, (kind, page_errors(response))
        changes = snapshot_changes(before, content_snapshot(big_quiz))
        assert set(changes) <= {("questions", question.pk, "prompt_en")}, kind
        assert ("questions", question.pk, "prompt_en") in changes


def test_a_new_question_added_to_a_large_quiz_keeps_every_other_row(instructor_client):
    quiz = make_quiz_of_every_kind(30, is_published=False)
    add_question(quiz, 31)
    before = content_snapshot(quiz)
    _page, form = _open(instructor_client, quiz)

    response = post_as_browser(instructor_client, _url(quiz), form, {"_continue": "1"})

    assert response.status_code == 302, page_errors(response)
    assert snapshot_changes(before, content_snapshot(quiz)) == {}
