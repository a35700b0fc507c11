"""The admin an Arabic-speaking instructor uses all day (issue 53): translated fields labelled
by their language in words, a question named by its number and prompt, a deleted answer by its
learner and attempt, a pair's arrow the way Arabic reads, an attempt spoken of as the learner's,
the content's section named apart from its quizzes, the list's own words."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission

from quizzes.attempts.services import attempt_start
from quizzes.grading import Response
from tests.arabic_wording import problems, read
from tests.factories import make_typed_quiz, make_user
from tests.steps import post_answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def typed_quiz():
    return make_typed_quiz(is_published=False)


def _page(client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, path
    return response.content.decode()


def _labels(page: str) -> list[str]:
    return [
        " ".join(re.sub(r"<[^>]+>", "", label).split()).rstrip(":")
        for label in re.findall(r"<label[^>]*>(.*?)</label>", page, re.S)
    ]


def test_translated_fields_are_labelled_by_their_language_in_words(admin_client, typed_quiz):
    quiz_page = _page(admin_client, f"/ar/admin/quizzes/quiz/{typed_quiz.pk}/change/")
    short = typed_quiz.questions.get(kind="short")
    question_page = _page(admin_client, f"/ar/admin/quizzes/question/{short.pk}/change/")
    english = _page(admin_client, f"/en/admin/quizzes/quiz/{typed_quiz.pk}/change/")

    # The admin's own fieldsets (the quiz's fields) and the Jinja2 rows (its questions' parts).
    labels = _labels(quiz_page)
    for label in ("العنوان (بالإنجليزية)", "العنوان (بالعربية)", "نص السؤال (بالعربية)"):
        assert label in labels
    assert "البند (بالعربية)" in labels and "ما يقابله (بالإنجليزية)" in labels
    assert "إجابة مقبولة (بالعربية)" in _labels(question_page)
    assert "Title (in English)" in _labels(english)
    for page in (quiz_page, question_page):
        assert not re.search(r"\[(?:ar|en)\]", read(page)[0])


def test_a_question_is_named_by_its_number_and_prompt_not_its_quizs_slug(admin_client, typed_quiz):
    matching = typed_quiz.questions.get(kind="matching")
    quiz_page = _page(admin_client, f"/ar/admin/quizzes/quiz/{typed_quiz.pk}/change/")
    question_page = _page(admin_client, f"/ar/admin/quizzes/question/{matching.pk}/change/")

    assert re.search(r"<b>السؤال 2: طابق كل مرحلة[^<]*</b>", quiz_page)
    breadcrumb = re.search(r'<ol class="breadcrumbs">(.*?)</ol>', question_page, re.S)[1]
    assert "السؤال 2: طابق كل مرحلة" in breadcrumb
    assert typed_quiz.slug not in read(quiz_page)[0]


def test_a_pair_and_an_item_read_in_the_admins_arabic(admin_client, typed_quiz):
    matching = typed_quiz.questions.get(kind="matching")
    ordering = typed_quiz.questions.get(kind="ordering")

    pairs = _page(admin_client, f"/ar/admin/quizzes/question/{matching.pk}/change/")
    items = _page(admin_client, f"/ar/admin/quizzes/question/{ordering.pk}/change/")
    kinds = re.findall(r'<option value="\w+"[^>]*>([^<]+)</option>', pairs)

    # The arrow points from the prompt to its match as the line reads, right to left.
    assert "مرحلة ZeRO-1 ← حالات المحسّن" in read(pairs)[0]
    # An item's place is «الموضع»; «الترتيب» is the kind's name (and the question's place).
    item_labels = re.findall(r'<label for="id_order_items-\d+-position">([^<]+)</label>', items)
    assert item_labels and set(item_labels) == {"الموضع:"}
    for kind in ("إجابة واحدة", "عدة إجابات", "إجابة عددية", "إجابة قصيرة", "مطابقة", "ترتيب"):
        assert kind in kinds
    assert problems(pairs) == [] and problems(items) == []


def test_a_delete_page_names_the_answers_by_their_learner_and_attempt(admin_client):
    quiz = make_typed_quiz()
    short = quiz.questions.get(kind="short")
    for name in ("salma", "omar"):
        post_answer(
            attempt_start(user=make_user(name), quiz=quiz), short, response=Response(text="x")
        )

    page = _page(admin_client, f"/ar/admin/quizzes/question/{short.pk}/delete/")
    listed = re.findall(
        r"<li>(.*?)</li>", re.search(r'<ul id="deleted-objects">(.*?)</ul>', page, re.S)[1]
    )

    assert len(listed) == 2
    assert all(
        re.fullmatch(r"إجابة: (salma|omar) في المحاولة التي بدأت في .+", item) for item in listed
    )
    assert "None" not in page and "→" not in page


def test_a_delete_the_instructor_may_not_complete_names_the_rows_in_the_plural(client, typed_quiz):
    instructor = make_user("teacher", is_staff=True)
    instructor.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_quiz", "delete_quiz", "view_question"])
    )
    client.force_login(instructor)
    attempt_start(user=make_user("salma"), quiz=typed_quiz)

    page = _page(client, f"/ar/admin/quizzes/quiz/{typed_quiz.pk}/delete/")

    assert "يحذف معه عناصر لا تملك صلاحية حذفها:" in read(page)[0]
    assert "<li>المحاولات</li>" in page


def test_an_instructor_reads_an_attempt_as_the_learners(admin_client):
    quiz = make_typed_quiz()
    attempt = attempt_start(user=make_user("salma"), quiz=quiz)
    questions = list(quiz.questions.order_by("position"))
    post_answer(attempt, questions[0], response=Response(text="gradients"))
    pairs = list(questions[1].pairs.order_by("position"))
    post_answer(
        attempt,
        questions[1],
        response=Response(arrangement=tuple((pair.pk, pair.pk) for pair in pairs[:3])),
    )
    items = list(questions[2].order_items.order_by("position"))
    post_answer(attempt, questions[2], response=Response(arrangement=tuple(i.pk for i in items)))

    page = _page(admin_client, f"/ar/admin/quizzes/quiz/{quiz.pk}/results/{attempt.pk}/")

    text = read(page)[0]
    for said in ("إجابة المتعلّم", "اختيار المتعلّم", "ترتيب المتعلّم"):
        assert said in text
    assert "إجابتك" not in text and "اختيارك" not in text and "ترتيبك" not in text


def test_the_quiz_list_reads_as_one_arabic_page(admin_client, typed_quiz):
    page = _page(admin_client, "/ar/admin/quizzes/quiz/")
    text = read(page)[0]

    breadcrumb = re.search(r'<ol class="breadcrumbs">(.*?)</ol>', page, re.S)[1]
    assert re.findall(r"<a [^>]*>([^<]+)</a>", breadcrumb)[:2] == ["الرئيسية", "المحتوى التعليمي"]
    assert '<h2 id="changelist-filter-header">التصفية</h2>' in page
    assert re.search(r'<option value="delete_selected">حذف الاختبارات المحدَّدة</option>', page)
    columns = re.findall(
        r'<th scope="col"[^>]*>\s*(?:<div class="text">)?(?:<a[^>]*>)?([^<]+)<', page
    )
    assert "الدليل" in [c.strip() for c in columns]
    assert "· 0" not in text
    # One name for the grades sent to platforms, another for which attempt counts.
    assert "الدرجات المُرسلة إلى المنصّات" in text and "درجات مُرسلة إلى المنصّات" not in text
    assert problems(page) == []


def test_every_english_label_on_the_quiz_and_question_pages_begins_with_a_capital(
    admin_client, typed_quiz
):
    """Django capitalises a model field's label but not a form field's own: "position in the
    guide:" stood out in lower case among the quiz's fields."""
    question = typed_quiz.questions.first()
    pages = [
        f"/en/admin/quizzes/quiz/{typed_quiz.pk}/change/",
        f"/en/admin/quizzes/question/{question.pk}/change/",
        "/en/admin/quizzes/quiz/add/",
    ]
    lower = [
        (path, label)
        for path in pages
        for label in _labels(_page(admin_client, path))
        if label[:1].isalpha() and label[:1].islower()
    ]
    assert lower == []
