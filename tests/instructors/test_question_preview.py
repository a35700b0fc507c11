"""The question form's preview shows learners' rendering of what the form holds, in both
languages, without saving anything; only staff who may edit questions get it."""

from __future__ import annotations

import pytest
from django.test import Client

from quizzes.models import Question
from tests.admin_posts import inline
from tests.factories import make_user

pytestmark = pytest.mark.django_db

URL = "/en/admin/quizzes/question/preview/"
HX = {"HTTP_HX_REQUEST": "true"}


def _form(quiz) -> dict:
    rows = [
        {"position": "1", "text_en": "`use_reentrant=False`", "text_ar": "الخيار `x`",
         "feedback_en": "Yes, **right**.", "is_correct": "on"},
        {"position": "2", "text_en": "<img src=x onerror=alert(1)>", "text_ar": "خطأ"},
        {"position": "3", "text_en": "Deleted one", "DELETE": "on"},
    ]  # fmt: skip
    return {
        "quiz": str(quiz.pk),
        "position": "9",
        "prompt_en": "Which keeps $\\sqrt{N}$?\n\n```python\ncheckpoint(block, x)\n```",
        "prompt_ar": "أيّها يُبقي $\\sqrt{N}$؟",
        "explanation_en": "Because [the guide](https://example.com) says so.",
        "explanation_ar": "لأنّ الدليل يقول ذلك.",
    } | inline("choices", rows)


@pytest.fixture
def editor(instructor):
    client = Client(enforce_csrf_checks=True)
    client.force_login(instructor)
    client.get("/en/admin/quizzes/question/add/")  # the page sets the CSRF cookie
    return client


def _post(client, data, **headers):
    token = client.cookies["csrftoken"].value
    return client.post(URL, data | {"csrfmiddlewaretoken": token}, **headers)


def test_the_preview_renders_the_forms_texts_in_both_languages_as_learners_see_them(editor, quiz):
    questions_before = Question.objects.count()
    response = _post(editor, _form(quiz), **HX)
    html = response.content.decode()

    assert response.status_code == 200
    assert "<html" not in html and "HX-Request" in response["Vary"]
    assert '<section class="rich-preview__language module" lang="ar" dir="rtl"' in html
    assert '<pre class="code" dir="ltr" tabindex="0"' in html
    assert '<annotation encoding="application/x-tex">\\sqrt{N}</annotation>' in html
    assert '<code dir="ltr">use_reentrant=False</code>' in html
    assert "Yes, <strong>right</strong>." in html
    assert 'rel="noopener noreferrer"' in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "<img" not in html
    assert "Deleted one" not in html
    assert Question.objects.count() == questions_before  # nothing saved


def test_without_javascript_the_preview_is_a_whole_admin_page(editor, quiz):
    response = _post(editor, _form(quiz))
    html = response.content.decode()
    assert response.status_code == 200 and "<html" in html
    assert "css/code.css" in html and "Which keeps" in html


def test_the_question_page_holds_the_preview_panel_posting_to_the_preview(editor):
    html = editor.get("/en/admin/quizzes/question/add/").content.decode()
    assert f'formaction="{URL}"' in html and f'hx-post="{URL}"' in html
    assert "django_htmx/htmx-4.min.js" in html and 'id="rich-preview"' in html


def test_the_preview_refuses_a_post_without_the_csrf_token(editor, quiz):
    assert editor.post(URL, _form(quiz), **HX).status_code == 403


def test_the_preview_refuses_staff_who_may_not_edit_questions(quiz):
    client = Client()
    client.force_login(make_user("viewer", is_staff=True))
    assert client.post(URL, _form(quiz)).status_code == 403


def test_the_preview_answers_only_posts(editor):
    assert editor.get(URL).status_code == 405
