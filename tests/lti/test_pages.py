"""The LTI pages are valid HTML in both languages, and the admin never shows a private key."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from lti.models import ToolKey
from tests.factories import make_quiz, make_user
from tests.test_html_validity import HTMX_ATTRIBUTE, validate

from .conftest import launch, login_continue, login_redirect
from .platform import INSTRUCTOR

pytestmark = pytest.mark.django_db


def lti_pages(registered) -> dict[str, str]:
    quiz = make_quiz(title_en="Sharding basics", title_ar="أساسيات التجزئة")
    pages = {}
    for language in ("en", "ar"):
        client = Client()
        client.cookies["django_language"] = language
        response, _token, _auth = launch(
            client,
            registered,
            target_link_uri="http://testserver/lti/deep-linking/",
            message_type="LtiDeepLinkingRequest",
            roles=[INSTRUCTOR],
        )
        picker = client.get("/lti/deep-linking/")
        pages[f"picker {language}"] = picker.content.decode()
        token = re.search(
            r'name="csrfmiddlewaretoken" value="([^"]+)"', pages[f"picker {language}"]
        )
        empty = client.post("/lti/deep-linking/", {"csrfmiddlewaretoken": token.group(1)})
        pages[f"picker error {language}"] = empty.content.decode()
        picked = client.post(
            "/lti/deep-linking/", {"quizzes": [quiz.slug], "csrfmiddlewaretoken": token.group(1)}
        )
        pages[f"return {language}"] = picked.content.decode()
        blocked = Client()
        blocked.cookies["django_language"] = language
        step = login_continue(blocked, registered, target_link_uri="http://testserver/en/")
        del blocked.cookies["lti1p3-check"]  # kept from the frame by the browser
        pages[f"new window {language}"] = blocked.get(step).content.decode()
        auth = login_redirect(blocked, registered, target_link_uri="http://testserver/en/")
        for name in [name for name in blocked.cookies if name != "django_language"]:
            del blocked.cookies[name]  # kept from the frame by the browser
        pages[f"cookies blocked {language}"] = blocked.post(
            "/lti/launch/", {"id_token": "x.y.z", "state": auth["state"]}
        ).content.decode()
        refused = Client()
        refused.cookies["django_language"] = language
        pages[f"refused {language}"] = refused.post("/lti/launch/").content.decode()
    return pages


def test_the_lti_pages_are_valid_html(registered, tmp_path):
    pages = lti_pages(registered)
    assert "Open in a new window" in pages["new window en"]
    assert "الفتح في نافذة جديدة" in pages["new window ar"]
    assert "allow cookies for Daleel" in pages["cookies blocked en"]
    assert 'lang="ar" dir="rtl"' in pages["picker ar"]

    errors = validate(pages, tmp_path)

    ours = {
        name: [message for message, _where in found if not HTMX_ATTRIBUTE.match(message)]
        for name, found in errors.items()
    }
    assert not any(ours.values()), ours


def test_the_admin_shows_no_private_key(registered):
    admin = make_user("root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin)
    key = ToolKey.objects.get()

    pages = [
        client.get("/en/admin/lti/toolkey/").content.decode(),
        client.get(f"/en/admin/lti/toolkey/{key.pk}/change/").content.decode(),
    ]

    assert all(key.kid in page for page in pages)
    assert not any("PRIVATE KEY" in page for page in pages)


def test_an_instructor_chooses_which_attempt_counts_by_the_quizs_title(instructor):
    """Listed as "Attempts that count for platforms" (it was "Grades sent to platforms → Add",
    which reads as sending a grade by hand), the quiz chosen by its title."""
    from django.test import Client

    from lti.models import QuizGrading
    from tests.factories import make_quiz

    quiz = make_quiz(questions=1, title_en="Sharded optimizers")
    client = Client()
    client.force_login(instructor)

    index = client.get("/en/admin/").content.decode()
    assert "Attempts that count for platforms" in index
    assert "Grades sent to platforms" not in index
    form = client.get("/en/admin/lti/quizgrading/add/").content.decode()
    assert f'<option value="{quiz.pk}">Sharded optimizers</option>' in form
    saved = client.post("/en/admin/lti/quizgrading/add/", {"quiz": quiz.pk, "counts": "last"})
    assert saved.status_code == 302
    assert QuizGrading.objects.get(quiz=quiz).counts == "last"
