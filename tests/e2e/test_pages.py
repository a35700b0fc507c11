"""Every page type (tests/e2e/page_types.py), in both languages, visited once and checked for
everything a page must be, at desktop and phone widths, light and dark:

- a whole page in its language and direction;
- no axe-core violation (WCAG 2.0–2.2 A and AA and best practices), in each of the four;
- a screenshot of each, for people to look at (test-artifacts/screenshots/);
- nothing wider than a phone, at phone width;
- a clean console: no error logged, no Content-Security-Policy violation, no failed request,
  from the first load through every width and scheme (the recorder stays on);
- valid HTML (the Nu Html Checker) for every document the visit loaded.

The pages share one live server and one database, seeded once for this module: each test
makes its own learner and whatever else its page needs, and removes exactly that afterwards.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from playwright.sync_api import BrowserContext, Page

from quizzes.models import Guide, Quiz
from tests import factories
from tests.arabic_wording import problems as arabic_problems
from tests.test_html_validity import HTMX_ATTRIBUTE

from . import support
from .conftest import SEED_MODELS
from .page_types import PAGE_TYPES, Scene

User = get_user_model()


@pytest.fixture
def transactional_db(django_db_blocker):
    """pytest-django's live server asks for this fixture, whose own version empties the
    database after each test. Here the database outlives each test, seeded once (`site`):
    database access, nothing emptied; each test removes what it made (`made_here`)."""
    with django_db_blocker.unblock():
        yield


@pytest.fixture(scope="module")
def site(django_db_setup, django_db_blocker) -> dict[str, Quiz]:
    """The two seed quizzes, loaded once for every page of this module, and removed after."""
    with django_db_blocker.unblock():
        before = {model: set(model.objects.values_list("pk", flat=True)) for model in SEED_MODELS}
        call_command("seed_quizzes", verbosity=0)
        yield {quiz.slug: quiz for quiz in Quiz.objects.select_related("guide")}
        for model in reversed(SEED_MODELS):
            model.objects.exclude(pk__in=before[model]).delete()


@pytest.fixture
def made_here(site, django_db_blocker):
    """Whatever accounts, quizzes and guides a test makes, removed after it (an account takes
    its attempts, answers, review cards, reports and addresses along)."""
    with django_db_blocker.unblock():
        before = {
            model: set(model.objects.values_list("pk", flat=True)) for model in (User, Quiz, Guide)
        }
    yield
    with django_db_blocker.unblock():
        for model in (User, Quiz, Guide):
            model.objects.exclude(pk__in=before[model]).delete()


def _signer(context: BrowserContext, base_url: str):
    learner = []

    def signed_in():
        """The page's learner, signed in in this browser (made once per test)."""
        if not learner:
            learner.append(factories.make_user("Amina"))
            support.sign_in(context, base_url, learner[0])
        return learner[0]

    return signed_in


def _invalid(html_checker, documents) -> list[str]:
    """The HTML checker's errors on every document loaded, but htmx's attributes."""
    errors = []
    for document in documents:
        try:
            html = document.text()
        except Exception:  # noqa: BLE001 — a document left before its body came (a redirect)
            continue
        if not html.lstrip().lower().startswith("<!doctype html>"):
            continue
        for message, where in html_checker(html):
            if not HTMX_ATTRIBUTE.match(message):
                errors.append(f"{document.url}: {message} [{where[:160]}]")
    return errors


@pytest.mark.parametrize("page_type", list(PAGE_TYPES))
@pytest.mark.parametrize("lang", ["en", "ar"])
def test_every_page_type_passes_every_page_check(
    page: Page,
    context: BrowserContext,
    live_server,
    site,
    made_here,
    axe_source,
    screenshots_dir,
    html_checker,
    lang,
    page_type,
):
    problems = support.record_problems(page)
    scene = Scene(page, lang, site, _signer(context, live_server.url))
    PAGE_TYPES[page_type](scene)
    support.assert_whole_page(page, lang)
    support.settle(page)
    failures = [f"-- console, loading: {problems}"] if problems else []
    problems.clear()

    index = list(PAGE_TYPES).index(page_type) + 1
    failures += support.check_every_variant(
        page, axe_source, screenshots_dir, f"{index:02d}-{page_type}-{lang}", problems=problems
    )
    failures += [f"-- HTML: {error}" for error in _invalid(html_checker, problems.documents)]
    if lang == "ar":
        # Read as a native reader does: no forbidden form, no English sentence, no control
        # worded as an order (tests/arabic_wording.py).
        failures += [f"-- Arabic: {problem}" for problem in arabic_problems(page.content())]
    assert problems.documents, "no document was loaded"
    assert not failures, f"{page_type} ({lang}) at {page.url}:\n" + "\n".join(failures)


def test_each_page_check_reports_a_problem_when_there_is_one(
    page: Page, live_server, site, made_here, axe_source, html_checker, tmp_path
):
    """The harness itself: an unlabelled field, an inline style, a console error, a failed
    request, a page wider than a phone and invalid HTML must each fail, or a clean run means
    nothing."""
    problems = support.record_problems(page)
    page.goto("/en/")
    support.settle(page)
    assert not problems, problems
    assert not support.check_every_variant(page, axe_source, tmp_path, "clean", problems=problems)
    assert _invalid(html_checker, problems.documents) == []

    page.evaluate(
        """() => {
          const main = document.querySelector('main');
          main.append(document.createElement('input'));
          main.setAttribute('style', 'color: red');
          const wide = document.createElement('div');
          wide.className = 'too-wide';
          wide.style.width = '2000px';  // through the CSSOM, which the policy allows
          wide.textContent = 'a line too wide for a phone';
          main.append(wide);
          console.error('something broke');
          const link = document.createElement('link');
          link.rel = 'stylesheet'; link.href = '/static/css/no-such.css';
          document.head.append(link);
        }"""
    )
    page.wait_for_timeout(300)
    failures = "\n".join(
        support.check_every_variant(page, axe_source, tmp_path, "broken", problems=problems)
    )
    assert "-- axe, desktop:" in failures and "label" in failures
    assert "style-src" in failures and "something broke" in failures
    assert "no-such.css" in failures
    assert "-- wider than a phone, phone:" in failures
    assert html_checker("<!doctype html><html lang=en><title>t</title><h2><p>x</p></h2></html>")
