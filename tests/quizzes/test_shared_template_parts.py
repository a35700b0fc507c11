"""{% shared %} (quizzes/templatetags/daleel.py): parts of a page rendered once per process for
each language and key, with each request's own parts ({% slot %}) rendered anew."""

import re

import pytest
from django.template import Context, Template
from django.test import Client, override_settings
from django.utils import translation

from quizzes.attempts import attempt_start
from quizzes.content import quiz_touch
from quizzes.templatetags import daleel
from tests.factories import make_quiz, make_user

pytestmark = pytest.mark.django_db

TEMPLATE = (
    "{% load daleel %}{% shared key %}[{{ kept }}|{% slot %}{{ own }}{% endslot %}|"
    "{% if kept %}{% slot %}<{{ own }}>{% endslot %}{% endif %}]{% endshared %}"
)


@pytest.fixture(autouse=True)
def nothing_kept():
    daleel._SHARED.clear()
    yield
    daleel._SHARED.clear()


def render(template: Template, **context) -> str:
    return template.render(Context(context))


def test_the_shared_part_is_rendered_once_per_key_and_the_slots_on_every_render():
    template = Template(TEMPLATE)
    assert render(template, key=1, kept="first", own="a") == "[first|a|<a>]"
    # The same key: what is outside the slots stays as first rendered, the slots are new.
    assert render(template, key=1, kept="changed", own="b") == "[first|b|<b>]"
    # Another key renders the shared part again.
    assert render(template, key=2, kept="", own="c") == "[|c|]"


def test_each_language_has_its_own_shared_part():
    template = Template(TEMPLATE)
    with translation.override("en"):
        assert render(template, key=1, kept="English", own="a") == "[English|a|<a>]"
    with translation.override("ar"):
        assert render(template, key=1, kept="عربي", own="b") == "[عربي|b|<b>]"
        assert render(template, key=1, kept="x", own="c") == "[عربي|c|<c>]"


def test_a_shared_part_inside_another_keeps_its_own_slots():
    template = Template(
        "{% load daleel %}{% shared 1 %}({% slot %}{{ a }}{% endslot %}"
        "{% slot %}{% shared 2 %}<{% slot %}{{ b }}{% endslot %}>{% endshared %}{% endslot %}"
        "){% endshared %}"
    )
    assert render(template, a="x", b="y") == "(x<y>)"
    assert render(template, a="p", b="q") == "(p<q>)"


def test_slot_content_is_escaped_like_any_variable():
    template = Template(TEMPLATE)
    assert render(template, key=1, kept="<b>", own="<i>") == "[&lt;b&gt;|&lt;i&gt;|<&lt;i&gt;>]"


@override_settings(DEBUG=True)
def test_with_debug_on_nothing_is_kept_so_an_edited_template_shows_at_once():
    template = Template(TEMPLATE)
    assert render(template, key=1, kept="first", own="a") == "[first|a|<a>]"
    assert render(template, key=1, kept="changed", own="b") == "[changed|b|<b>]"
    assert daleel._SHARED == {}


def test_the_frame_shows_each_learner_their_own_name_token_and_staff_link():
    quiz = make_quiz()
    learner, instructor = make_user(), make_user(is_staff=True)
    pages = {}
    for user in (learner, instructor, learner):
        client = Client(enforce_csrf_checks=True)
        client.force_login(user)
        page = client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
        pages.setdefault(user.username, []).append(page)
        assert f"<bdi>{user.username}</bdi>" in page
        # The language switch carries this session's token: it is accepted.
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
        switched = client.post(
            "/i18n/setlang/", {"language": "ar", "next": "/", "csrfmiddlewaretoken": token}
        )
        assert switched.status_code == 302
    assert all(">Admin</a>" in page for page in pages[instructor.username])
    assert not any(">Admin</a>" in page for page in pages[learner.username])
    anonymous = Client().get(f"/en/quizzes/{quiz.slug}/").content.decode()
    assert "Sign in" in anonymous and learner.username not in anonymous
    assert f"?next=/en/quizzes/{quiz.slug}/" in anonymous


def test_content_cannot_pose_as_a_slot():
    template = Template(TEMPLATE)
    posing = "\x00slot0\x00 \x00slot1\x00"
    assert render(template, key=3, kept=posing, own="a") == f"[{posing}|a|<a>]"
    assert render(template, key=3, kept="", own="b") == f"[{posing}|b|<b>]"


def test_a_steps_title_follows_its_step_its_language_and_its_quizs_edits():
    learner = make_user()
    quiz = make_quiz(questions=2, title_en="Gradients", title_ar="التدرجات")
    attempt = attempt_start(user=learner, quiz=quiz)
    client = Client()
    client.force_login(learner)

    def title(path: str) -> str:
        return re.search(r"<title>(.*?)</title>", client.get(path).content.decode(), re.S)[1]

    step = f"/attempts/{attempt.pk}/questions/1/"
    assert title(f"/en{step}") == "Question 1 of 2 · Gradients · Daleel"
    assert title(f"/en{step}") == "Question 1 of 2 · Gradients · Daleel"
    assert "التدرجات" in title(f"/ar{step}") and "Gradients" not in title(f"/ar{step}")
    quiz.title_en = "Gradient descent"
    quiz.save()
    quiz_touch(quiz)
    assert title(f"/en{step}") == "Question 1 of 2 · Gradient descent · Daleel"
