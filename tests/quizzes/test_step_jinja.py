"""The learner's step is served from Jinja2 templates (quizzes/jinja2/, quizzes/views/steps.py:
a quarter less CPU per page, issue 58), copies of the Django ones that the review and preview
pages still include (templates/quizzes/take.html, templates/base.html). The copy gives the same
HTML as the original for every kind of step and its feedback, as a page and as htmx's
fragment, in English and in Arabic: each step the view renders is rendered again here from the
Django templates with the same request and context, and a change to one that the other lacks
fails here."""

from datetime import timedelta
from html.parser import HTMLParser

import pytest
import time_machine
from django.shortcuts import render
from django.template import engines
from django.utils import timezone

from quizzes.attempts.state import attempt_state
from quizzes.models import Attempt, Question
from quizzes.views import steps
from quizzes.views.common import page_or_fragment
from tests.factories import make_mixed_quiz, make_typed_quiz, wrong_choice
from tests.steps import right_answer_data

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
# A token masked anew at each render: the same secret, another text.
MASKED = {"csrfmiddlewaretoken", "hx-headers:inherited"}


class _Tree(HTMLParser):
    """An HTML text as its elements, attributes and words: what a browser builds from it,
    whatever the entities and the white space between tags."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.items: list[tuple] = []

    def handle_starttag(self, tag, attrs):
        named = dict(attrs)
        kept = {
            k: (
                "TOKEN"
                if k in MASKED or named.get("name") in MASKED and k == "value"
                else " ".join((v or "").split())
            )
            for k, v in attrs
        }
        self.items.append(("<", tag, tuple(sorted(kept.items()))))

    def handle_endtag(self, tag):
        self.items.append((">", tag))

    def handle_data(self, data):
        words = " ".join(data.split())
        if words:
            self.items.append(("text", words))


def tree(html: str) -> list[tuple]:
    parser = _Tree()
    parser.feed(html)
    parser.close()
    return parser.items


def both(client, monkeypatch, url: str, **headers) -> tuple[str, str]:
    """The step at `url` as the view renders it (Jinja2) and as the Django templates render
    the same request and context."""
    pages: dict[str, str] = {}

    def render_both(request, template, context, *, status=200, using=None):
        assert using == "jinja2"
        reference = page_or_fragment(request, steps.TAKE_TEMPLATE, "step")
        pages["django"] = render(request, reference, dict(context)).content.decode()
        response = render(request, template, context, status=status, using=using)
        pages["jinja2"] = response.content.decode()
        return response

    monkeypatch.setattr(steps, "render", render_both)
    response = client.get(url, **headers)
    assert response.status_code == 200
    return pages["django"], pages["jinja2"]


def assert_same_step(client, monkeypatch, url: str, language: str) -> str:
    url = url.replace("/en/", f"/{language}/")
    for headers in ({}, HX):
        django_html, jinja_html = both(client, monkeypatch, url, **headers)
        assert tree(jinja_html) == tree(django_html), url
        if language == "ar":  # the page in Arabic, not English with an Arabic address
            assert "<html" not in django_html or 'lang="ar" dir="rtl"' in django_html
            assert "السؤال" in django_html
    return django_html


def steps_of(client, quiz, **start_headers) -> Attempt:
    client.post(f"/en/quizzes/{quiz.slug}/start/", **start_headers)
    return Attempt.objects.filter(quiz=quiz).latest("started_at")


@pytest.mark.parametrize("language", ["en", "ar"])
@pytest.mark.parametrize("make", [make_mixed_quiz, make_typed_quiz])
def test_every_kind_of_step_and_its_feedback_read_the_same_from_both_engines(
    learner_client, monkeypatch, language, make
):
    quiz = make()
    attempt = steps_of(learner_client, quiz)
    for number in range(1, quiz.questions.count() + 1):
        url = f"/en/attempts/{attempt.pk}/questions/{number}/"
        assert "<fieldset" in assert_same_step(learner_client, monkeypatch, url, language)
        question = Question.objects.get(pk=attempt_state(attempt).at(number).pk)
        # Wrong where there are choices (the choice's own feedback shows), right elsewhere.
        wrong = wrong_choice(question) if question.has_choices else None
        data = {"choice": str(wrong.pk)} if wrong else right_answer_data(attempt, question)
        learner_client.post(url, {"question": question.pk, **data})
        html = assert_same_step(learner_client, monkeypatch, url, language)
        assert "feedback--" in html


@pytest.mark.parametrize("language", ["en", "ar"])
def test_a_timed_exam_with_confidence_reads_the_same_from_both_engines(
    learner_client, monkeypatch, language
):
    quiz = make_mixed_quiz(feedback="deferred", confidence="ask", time_limit=timedelta(minutes=20))
    with time_machine.travel(timezone.now(), tick=False):
        attempt = steps_of(learner_client, quiz)
        for number in (1, 4):
            html = assert_same_step(
                learner_client,
                monkeypatch,
                f"/en/attempts/{attempt.pk}/questions/{number}/",
                language,
            )
            assert 'class="timer"' in html and "navigator" in html and "confidence" in html


def test_a_translation_in_the_jinja2_step_is_text_even_where_it_holds_markup():
    """Jinja2 takes a translated literal as markup; the step's environment escapes it as
    Django's {% translate %} does, and still escapes the values put into it once."""
    engine = engines["jinja2"]
    source = (
        '{{ _("a <b>bold</b> & more") }}|{{ _("%(name)s & co", name="<i>") }}|'
        '{{ ngettext("%(counter)s <one>", "%(counter)s <many>", 2, counter=2) }}|'
        '{{ pgettext("state", "<x>") }}'
    )
    html = engine.from_string(source).render({})

    assert html == (
        "a &lt;b&gt;bold&lt;/b&gt; &amp; more|&lt;i&gt; &amp; co|2 &lt;many&gt;|&lt;x&gt;"
    )
