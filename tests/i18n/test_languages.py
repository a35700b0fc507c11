"""Arabic and English: prefixed URLs, right-to-left pages, fallback marked with its language."""

import re
from html.parser import HTMLParser

import pytest
from django.test import Client

from quizzes.attempts.services import attempt_start
from tests.factories import make_quiz, make_user, wrong_choice
from tests.steps import post_answer

pytestmark = pytest.mark.django_db


class VisibleText(HTMLParser):
    """Collects the text a reader sees, leaving out subtrees marked lang="en"."""

    VOID = {"meta", "link", "input", "br", "img", "hr", "source", "circle", "line", "polyline"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.texts: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in self.VOID:
            if tag == "input" and attrs.get("type") == "submit":
                self.texts.append(attrs.get("value", ""))
            return
        english = attrs.get("lang") == "en" or (self.stack and self.stack[-1][1])
        self.stack.append((tag, bool(english)))
        for name in ("aria-label", "title", "placeholder"):
            if attrs.get(name) and not english:
                self.texts.append(attrs[name])

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        in_script = any(tag in {"script", "style"} for tag, _ in self.stack)
        english = self.stack and self.stack[-1][1]
        if data.strip() and not in_script and not english:
            self.texts.append(data.strip())


def latin_words(html: str) -> set[str]:
    parser = VisibleText()
    parser.feed(html)
    return {word for text in parser.texts for word in re.findall(r"[A-Za-z]{2,}", text)}


def test_a_first_visit_picks_the_language_from_accept_language():
    response = Client().get("/", HTTP_ACCEPT_LANGUAGE="ar,en;q=0.5")
    assert response.status_code == 302 and response["Location"] == "/ar/"
    response = Client().get("/", HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.8")
    assert response["Location"] == "/en/"


def test_arabic_pages_are_right_to_left_and_english_pages_left_to_right(client, quiz):
    arabic = client.get(f"/ar/quizzes/{quiz.slug}/").content.decode()
    english = client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    assert '<html lang="ar" dir="rtl">' in arabic
    assert '<html lang="en" dir="ltr">' in english
    assert quiz.title_ar in arabic and quiz.title_en in english


def test_the_language_switch_keeps_the_learner_on_the_same_page(client, quiz):
    page = client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    assert 'action="/i18n/setlang/"' in page and 'name="language" value="ar"' in page
    response = client.post(
        "/i18n/setlang/", {"language": "ar", "next": f"/en/quizzes/{quiz.slug}/"}
    )
    assert response.status_code == 302
    assert response["Location"] == f"/ar/quizzes/{quiz.slug}/"
    assert client.cookies["django_language"].value == "ar"
    # The choice is remembered on the next visit to the bare address.
    assert client.get("/")["Location"] == "/ar/"


def test_the_language_switch_names_the_other_language_in_the_language_of_the_page(client, quiz):
    arabic = client.get(f"/ar/quizzes/{quiz.slug}/").content.decode()
    english = client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    # What the button does reads in the page's language; its label stays the language's own
    # name, marked with that language, so voice control users can say what they see.
    assert 'title="عرض هذه الصفحة باللغة الإنجليزية"><span lang="en">English</span>' in arabic
    assert 'title="Read this page in Arabic"><span lang="ar">العربيّة</span>' in english


# Not "browser" or "page": those names are pytest-playwright's fixtures, and using them would
# pull these tests among the browser tests (whose database flushes would then run earlier).
@pytest.mark.parametrize(
    ("accept_language", "shown_in", "switch_to"), [("ar", "en", "ar"), ("en", "ar", "en")]
)
def test_the_language_switch_works_whatever_the_browsers_own_language(
    quiz, accept_language, shown_in, switch_to
):
    client = Client(HTTP_ACCEPT_LANGUAGE=accept_language)
    response = client.post(
        "/i18n/setlang/", {"language": switch_to, "next": f"/{shown_in}/quizzes/{quiz.slug}/"}
    )
    assert response["Location"] == f"/{switch_to}/quizzes/{quiz.slug}/"


def test_a_missing_arabic_title_shows_as_plain_text_in_the_tab(learner_client, learner):
    quiz = make_quiz(questions=2, title_ar="")
    attempt = attempt_start(user=learner, quiz=quiz)
    pages = [
        learner_client.get(f"/ar/quizzes/{quiz.slug}/"),
        learner_client.get(f"/ar/attempts/{attempt.pk}/questions/1/"),
        learner_client.get(f"/ar/attempts/{attempt.pk}/questions/1/", HTTP_HX_REQUEST="true"),
    ]
    for response in pages:
        title = re.search(r"<title>(.*?)</title>", response.content.decode(), re.S)[1]
        assert quiz.title_en in title and "<" not in title, title
    # In the page itself the English title stays marked as English.
    assert f'<span lang="en" dir="ltr">{quiz.title_en}</span>' in pages[0].content.decode()


def test_a_missing_arabic_prompt_shows_in_english_marked_as_english(learner_client, learner):
    quiz = make_quiz(questions=2)
    question = quiz.questions.get(position=1)
    question.prompt_ar = ""
    question.save()
    marked = f'<span lang="en" dir="ltr">{question.prompt_en}</span>'

    preview = learner_client.get(f"/ar/quizzes/{quiz.slug}/").content.decode()
    assert marked in preview
    attempt = attempt_start(user=learner, quiz=quiz)
    step = learner_client.get(f"/ar/attempts/{attempt.pk}/questions/1/").content.decode()
    assert marked in step
    # Only the missing field falls back: the choices stay Arabic.
    assert question.choices.first().text_ar in step
    # On the English page nothing is marked as a fallback.
    english = learner_client.get(f"/en/attempts/{attempt.pk}/questions/1/").content.decode()
    assert question.prompt_en in english and marked not in english


def test_an_english_field_left_empty_falls_back_to_arabic_marked_rtl(client):
    quiz = make_quiz(description_en="", description_ar="وصف بالعربية فقط.")
    page = client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    assert '<div lang="ar" dir="rtl"><p>وصف بالعربية فقط.</p></div>' in page


def test_a_missing_arabic_explanation_falls_back_as_a_marked_block(learner_client, learner):
    quiz = make_quiz(questions=1)
    question = quiz.questions.get()
    question.explanation_ar = ""
    question.save()
    attempt = attempt_start(user=learner, quiz=quiz)
    post_answer(attempt, question, choice=wrong_choice(question))
    page = learner_client.get(f"/ar/attempts/{attempt.pk}/questions/1/").content.decode()
    assert '<div lang="en" dir="ltr"><p>' in page


def _arabic_only_scene():
    """A learner with an Arabic name and a quiz whose every field is Arabic."""
    learner = make_user("أمينة")
    quiz = make_quiz(questions=2)
    finished = attempt_start(user=learner, quiz=quiz)
    for question in quiz.questions.all():
        post_answer(finished, question, choice=wrong_choice(question))
    second = attempt_start(user=learner, quiz=quiz)
    first = quiz.questions.get(position=1)
    post_answer(second, first, choice=wrong_choice(first))
    return learner, quiz, finished, second


def test_arabic_pages_hold_no_english_interface_words():
    learner, quiz, finished, second = _arabic_only_scene()
    client = Client()
    client.force_login(learner)
    urls = [
        "/ar/",
        f"/ar/quizzes/{quiz.slug}/",
        f"/ar/attempts/{second.pk}/questions/1/",
        f"/ar/attempts/{second.pk}/questions/2/",
        f"/ar/attempts/{finished.pk}/result/",
        "/ar/attempts/",
        "/ar/accounts/password/",
    ]
    anonymous = ["/ar/accounts/login/", "/ar/accounts/signup/", "/ar/no-such-page/"]
    found = {}
    for url in urls:
        found[url] = latin_words(client.get(url).content.decode())
    for url in anonymous:
        found[url] = latin_words(Client().get(url).content.decode())
    assert {url: words for url, words in found.items() if words} == {}
