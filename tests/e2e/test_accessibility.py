"""axe-core on every page type in both languages, keyboard-only answering, focus, skip link.

Each page type is audited and photographed at desktop and phone widths, light and dark; the
screenshots land in test-artifacts/screenshots/ (or $DALEEL_SCREENSHOTS_DIR).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from allauth.account.utils import user_pk_to_url_str
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.utils import timezone, translation
from playwright.sync_api import Page, expect

from accounts.limits import hit
from quizzes.models import Attempt, ReviewCard

from . import support
from .support import DESKTOP, PHONE, assert_whole_page, expect_feedback, expect_question

# (name, viewport, colour scheme): every page type is audited and photographed in each.
VARIANTS = [
    ("desktop", DESKTOP, "light"),
    ("desktop-dark", DESKTOP, "dark"),
    ("phone", PHONE, "light"),
    ("phone-dark", PHONE, "dark"),
]


@dataclass
class Scene:
    page: Page
    lang: str
    seeded: dict
    signed_in: Callable[[], object]

    @property
    def quiz(self):
        return self.seeded["activation-recomputation"]

    @property
    def other_quiz(self):
        return self.seeded["zero-sharded-optimizers"]

    def go(self, path: str, status: int = 200) -> None:
        response = self.page.goto(f"/{self.lang}{path}")
        assert response is not None and response.status == status, (path, response)


def _catalog(scene: Scene) -> None:
    learner = scene.signed_in()
    support.answer_in_db(learner, scene.quiz, 8, wrong={3})
    support.answer_in_db(learner, scene.other_quiz, 2)
    scene.go("/")


def _catalog_searched(scene: Scene) -> None:
    """Searched and filtered, with a pager: more quizzes than a page holds."""
    from tests.factories import make_quiz

    learner = scene.signed_in()
    for n in range(24):
        make_quiz(questions=1, title_en=f"Sharding part {n:02d}", title_ar=f"التجزئة {n:02d}")
    support.answer_in_db(learner, scene.other_quiz, 2)
    scene.go("/?q=sharding&status=not-started&page=2")
    expect(scene.page.locator(".pager")).to_be_visible()


def _catalog_empty_search(scene: Scene) -> None:
    scene.go("/?q=nothing-matches-this&difficulty=easy")
    expect(scene.page.locator("#results .empty")).to_be_visible()


def _guides(scene: Scene) -> None:
    scene.go("/guides/")


def _guide(scene: Scene) -> None:
    support.answer_in_db(scene.signed_in(), scene.quiz, 8, wrong={2})
    scene.go(f"/guides/{scene.quiz.guide.slug}/")


def _quiz(scene: Scene) -> None:
    support.answer_in_db(scene.signed_in(), scene.quiz, 8, wrong={1, 4})
    scene.go(f"/quizzes/{scene.quiz.slug}/")


def _question(scene: Scene) -> None:
    attempt = support.answer_in_db(scene.signed_in(), scene.quiz, 2)
    scene.go(f"/attempts/{attempt.pk}/questions/3/")
    expect(scene.page.locator("form.question")).to_be_visible()


def _feedback(scene: Scene) -> None:
    attempt = support.answer_in_db(scene.signed_in(), scene.quiz, 3, wrong={3})
    scene.go(f"/attempts/{attempt.pk}/questions/3/")
    expect(scene.page.locator(".feedback--wrong")).to_be_visible()


def _result(scene: Scene) -> None:
    attempt = support.answer_in_db(scene.signed_in(), scene.quiz, 8, wrong={2, 7})
    scene.go(f"/attempts/{attempt.pk}/result/")


def _history(scene: Scene) -> None:
    learner = scene.signed_in()
    support.answer_in_db(learner, scene.quiz, 8, wrong={1, 2, 5})
    support.answer_in_db(learner, scene.other_quiz, 11, wrong={4})
    support.answer_in_db(learner, scene.quiz, 8, wrong={6})
    support.answer_in_db(learner, scene.other_quiz, 3)
    scene.go("/attempts/")
    expect(scene.page.locator(".chart__line")).to_have_count(1)


def _history_few(scene: Scene) -> None:
    """Two attempts draw no line: bars with their scores."""
    learner = scene.signed_in()
    support.answer_in_db(learner, scene.quiz, 8, wrong={1, 2, 5})
    support.answer_in_db(learner, scene.other_quiz, 11, wrong={4})
    scene.go("/attempts/")
    expect(scene.page.locator(".score-bars__item")).to_have_count(2)
    expect(scene.page.locator(".chart__line")).to_have_count(0)


def _due_for_review(scene: Scene) -> None:
    support.answer_in_db(scene.signed_in(), scene.quiz, 8, wrong={2, 4, 5})
    ReviewCard.objects.update(due=timezone.now())


def _review(scene: Scene) -> None:
    _due_for_review(scene)
    scene.go("/review/")
    expect(scene.page.locator("form.question")).to_be_visible()


def _review_feedback(scene: Scene) -> None:
    _due_for_review(scene)
    scene.go("/review/")
    scene.page.locator("#quiz-area label.choice").first.click()
    support.submit_button(scene.page).click()
    expect(scene.page.locator("#quiz-area .feedback")).to_be_visible()


def _review_nothing_due(scene: Scene) -> None:
    support.answer_in_db(scene.signed_in(), scene.quiz, 3, wrong={1})
    scene.go("/review/")
    expect(scene.page.locator("#quiz-area .empty")).to_be_visible()


def _review_rating(scene: Scene) -> None:
    """A right review answer: Hard, Good and Easy offered."""
    _due_for_review(scene)
    scene.go("/review/")
    card = ReviewCard.objects.filter(due__lte=timezone.now()).order_by("due", "pk").first()
    right = card.question.choices.get(is_correct=True)
    scene.page.locator(f"#quiz-area input[name=choice][value='{right.pk}']").check()
    support.submit_button(scene.page).click()
    expect(scene.page.locator("#quiz-area form.rating")).to_be_visible()


def _review_practice(scene: Scene) -> None:
    support.answer_in_db(scene.signed_in(), scene.quiz, 3, wrong={1})
    ReviewCard.objects.update(due=timezone.now() + timezone.timedelta(days=2))
    scene.go("/review/?practise")
    scene.page.locator("#quiz-area label.choice").first.click()
    support.submit_button(scene.page).click()
    expect(scene.page.locator("#quiz-area .feedback")).to_be_visible()


def _review_statistics(scene: Scene) -> None:
    _due_for_review(scene)
    scene.go("/review/statistics/")
    expect(scene.page.locator("svg.due-chart")).to_be_visible()


def _preferences(scene: Scene) -> None:
    scene.signed_in()
    scene.go("/accounts/profile/preferences/")


def _reminders_stop(scene: Scene) -> None:
    from accounts.models import Profile
    from quizzes.reminders import unsubscribe_token

    learner = get_user_model().objects.create_user("huda", password="whatever-it-is-42")
    Profile.objects.filter(user=learner).update(reminder_hour=8)
    scene.go(f"/review/reminders/stop/{unsubscribe_token(Profile.objects.get(user=learner))}/")
    expect(scene.page.locator("main form button.button--primary")).to_be_visible()


def _history_empty(scene: Scene) -> None:
    scene.signed_in()
    scene.go("/attempts/")


def _sign_in(scene: Scene) -> None:
    scene.go("/accounts/login/")


def _sign_up(scene: Scene) -> None:
    scene.go("/accounts/signup/")


def _sign_up_errors(scene: Scene) -> None:
    get_user_model().objects.create_user("amina", password="whatever-it-is-42")
    scene.go("/accounts/signup/")
    scene.page.locator("#id_username").fill("amina")
    scene.page.locator("#id_password1").fill("short")
    scene.page.locator("#id_password2").fill("different")
    scene.page.locator("form.form button[type=submit]").click()
    expect(scene.page.locator(".error-summary")).to_be_visible()


def _sign_up_limited(scene: Scene) -> None:
    for _ in range(settings.SIGNUP_LIMIT_PER_HOUR):
        hit(group="signup", key="127.0.0.1", rate=f"{settings.SIGNUP_LIMIT_PER_HOUR}/h")
    scene.go("/accounts/signup/")
    scene.page.locator("#id_username").fill("one-too-many")
    scene.page.locator("#id_password1").fill("a-long-passphrase-for-tests-51")
    scene.page.locator("#id_password2").fill("a-long-passphrase-for-tests-51")
    scene.page.locator("form.form button[type=submit]").click()
    expect(scene.page.locator("h1")).to_have_text(
        {"en": "Too many new accounts from here", "ar": "حسابات جديدة كثيرة جدًا من هنا"}[scene.lang]
    )


def _password_change(scene: Scene) -> None:
    scene.signed_in()
    scene.go("/accounts/password/change/")


def _two_factor(scene: Scene) -> None:
    scene.signed_in()
    scene.go("/accounts/2fa/")


def _profile(scene: Scene) -> None:
    scene.signed_in()
    scene.go("/accounts/profile/")


def _delete_account(scene: Scene) -> None:
    scene.signed_in()
    scene.go("/accounts/delete/")
    scene.page.locator("form.form button[type=submit]").click()
    expect(scene.page.locator(".error-summary")).to_be_visible()


def _account_deleted(scene: Scene) -> None:
    scene.go("/accounts/deleted/")


def _password_reset(scene: Scene) -> None:
    scene.go("/accounts/password/reset/")


def _password_reset_sent(scene: Scene) -> None:
    scene.go("/accounts/password/reset/done/")


def _password_reset_confirm(scene: Scene) -> None:
    user = get_user_model().objects.create_user("huda", password="whatever-it-is-42")
    uid = user_pk_to_url_str(user)
    scene.go(f"/accounts/password/reset/key/{uid}-{default_token_generator.make_token(user)}/")
    expect(scene.page.locator("form.form")).to_be_visible()


def _password_reset_invalid(scene: Scene) -> None:
    scene.go("/accounts/password/reset/key/1-no-such-token/")


def _report(scene: Scene) -> None:
    attempt = support.answer_in_db(scene.signed_in(), scene.quiz, 2)
    question = scene.quiz.questions.get(position=2)
    scene.go(
        f"/questions/{question.pk}/report/?next=/{scene.lang}/attempts/{attempt.pk}/questions/2/"
    )
    scene.page.locator("form.form button[type=submit]").click()
    expect(scene.page.locator(".error-summary")).to_be_visible()


def _not_found(scene: Scene) -> None:
    scene.go("/no-such-page/", status=404)


PAGE_TYPES: dict[str, Callable[[Scene], None]] = {
    "catalog": _catalog,
    "catalog-searched": _catalog_searched,
    "catalog-empty-search": _catalog_empty_search,
    "guides": _guides,
    "guide": _guide,
    "quiz": _quiz,
    "question": _question,
    "feedback": _feedback,
    "result": _result,
    "history": _history,
    "history-few": _history_few,
    "history-empty": _history_empty,
    "review": _review,
    "review-feedback": _review_feedback,
    "review-nothing-due": _review_nothing_due,
    "review-rating": _review_rating,
    "review-practice": _review_practice,
    "review-statistics": _review_statistics,
    "preferences": _preferences,
    "reminders-stop": _reminders_stop,
    "sign-in": _sign_in,
    "sign-up": _sign_up,
    "sign-up-errors": _sign_up_errors,
    "sign-up-limited": _sign_up_limited,
    "password-change": _password_change,
    "profile": _profile,
    "delete-account": _delete_account,
    "account-deleted": _account_deleted,
    "two-factor": _two_factor,
    "password-reset": _password_reset,
    "password-reset-sent": _password_reset_sent,
    "password-reset-confirm": _password_reset_confirm,
    "password-reset-invalid": _password_reset_invalid,
    "report": _report,
    "not-found": _not_found,
}


@pytest.mark.parametrize("page_type", list(PAGE_TYPES))
@pytest.mark.parametrize("lang", ["en", "ar"])
def test_every_page_type_has_no_axe_violations(
    page: Page, request, seeded, axe_source, screenshots_dir, lang, page_type
):
    scene = Scene(page, lang, seeded, lambda: request.getfixturevalue("signed_in"))
    PAGE_TYPES[page_type](scene)
    assert_whole_page(page, lang)

    index = list(PAGE_TYPES).index(page_type) + 1
    _audit_every_variant(page, axe_source, screenshots_dir, f"{index:02d}-{page_type}-{lang}")


def _audit_every_variant(page: Page, axe_source: str, screenshots_dir, name: str) -> None:
    """axe-core on the page at every viewport and colour scheme, photographed in each."""
    failures = []
    for variant, viewport, scheme in VARIANTS:
        page.set_viewport_size(viewport)
        page.emulate_media(color_scheme=scheme)
        violations = support.axe_violations(page, axe_source)
        if violations:
            failures.append(f"-- {variant}:\n{support.describe(violations)}")
        support.screenshot(page, screenshots_dir, f"{name}-{variant}")
    assert not failures, f"axe-core violations on {page.url}:\n" + "\n".join(failures)


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_database_unavailable_page_has_no_axe_violations(
    page: Page, live_server, axe_source, screenshots_dir, lang
):
    """The 503 page exists only while PostgreSQL is down (tests/outages stops it for real); here
    the page the handler renders is served at a live URL, so its stylesheet loads as it would."""
    path = f"/{lang}/attempts/1/questions/3/"
    with translation.override(lang):
        html = render_to_string("errors/503.html", request=RequestFactory().get(path))
    page.route(
        f"**{path}", lambda route: route.fulfill(status=503, body=html, content_type="text/html")
    )
    response = page.goto(path)
    assert response is not None and response.status == 503
    assert page.evaluate("document.documentElement.dir") == ("rtl" if lang == "ar" else "ltr")
    _audit_every_variant(page, axe_source, screenshots_dir, f"99-unavailable-{lang}")


def test_the_axe_check_reports_a_violation_when_there_is_one(page: Page, seeded, axe_source):
    """The harness itself: an unlabelled field must fail, or zero violations means nothing."""
    page.goto("/en/")
    assert support.axe_violations(page, axe_source) == []
    page.evaluate("() => document.querySelector('main').append(document.createElement('input'))")
    assert "label" in {v["id"] for v in support.axe_violations(page, axe_source)}


def _focused(page: Page) -> str:
    return page.evaluate(
        """() => {
          const el = document.activeElement;
          return el.id ? `${el.tagName.toLowerCase()}#${el.id}` : el.outerHTML.slice(0, 80);
        }"""
    )


def _tab_to(page: Page, locator, limit: int = 40) -> None:
    """Press Tab until `locator` has the focus, as a keyboard user would."""
    for _ in range(limit):
        if locator.evaluate("el => el === document.activeElement"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {locator}; focus is on {_focused(page)}")


def _focus_ring(page: Page, selector: str) -> dict:
    return page.locator(selector).evaluate(
        """el => { const s = getComputedStyle(el);
                   return {style: s.outlineStyle, width: parseFloat(s.outlineWidth)}; }"""
    )


def _assert_visible_focus(page: Page, selector: str) -> None:
    ring = _focus_ring(page, selector)
    assert ring["style"] != "none" and ring["width"] >= 2, f"no visible focus on {selector}: {ring}"


def _expect_announced(page: Page) -> None:
    """The live region speaks the new step: its question number, or the verdict."""
    words = page.locator("#quiz-area .step").get_attribute("data-announce")
    assert words and words.strip()
    expect(page.locator("#announcer")).to_have_text(words)


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_learner_answers_with_the_keyboard_only(
    page: Page, signed_in, quiz, axe_source, screenshots_dir, lang
):
    key = support.answer_key(quiz, lang)
    page.goto(f"/{lang}/quizzes/{quiz.slug}/")
    support.mark_document(page)

    start = page.locator(".quiz-actions button[type=submit]")
    _tab_to(page, start)
    _assert_visible_focus(page, ".quiz-actions button[type=submit]")
    page.keyboard.press("Enter")

    # The first question is swapped in; focus moves to it and it is announced.
    expect_question(page, key[0])
    expect(page.locator("#question-heading")).to_be_focused()
    expect(page.locator("#announcer")).to_have_attribute("aria-live", "polite")
    _expect_announced(page)
    support.assert_accessible(page, axe_source, "the first question, swapped in")

    # Into the radio group, then arrow keys to the right answer (no mouse anywhere).
    page.keyboard.press("Tab")
    radios = page.get_by_role("radio")
    expect(radios.first).to_be_focused()
    _assert_visible_focus(page, "#quiz-area label.choice:has(input:focus-visible)")
    page.keyboard.press("Space")
    right = page.get_by_role("radio", name=key[0].right)
    for _ in range(radios.count()):
        if right.is_checked():
            break
        page.keyboard.press("ArrowDown")
    expect(right).to_be_checked()
    expect(right).to_be_focused()
    support.screenshot(page, screenshots_dir, f"focus-choice-{lang}")

    submit = support.submit_button(page)
    _tab_to(page, submit)
    _assert_visible_focus(page, "#quiz-area form.question button[type=submit]")
    page.keyboard.press("Enter")

    # The feedback replaces the form in place; focus moves into it and it is announced.
    expect_feedback(page, key[0], right=True)
    expect(page.locator("#question-heading")).to_be_focused()
    expect(page.locator("#quiz-area .feedback")).to_have_attribute("role", "status")
    _expect_announced(page)
    support.assert_accessible(page, axe_source, "the feedback, swapped in")

    following = support.next_control(page)
    _tab_to(page, following)
    _assert_visible_focus(page, "#quiz-area .step__actions a.button--primary")
    support.screenshot(page, screenshots_dir, f"focus-next-{lang}")
    page.keyboard.press("Enter")

    expect_question(page, key[1])
    expect(page.locator("#question-heading")).to_be_focused()
    _expect_announced(page)

    # Enter on a chosen radio submits too (the form's implicit submission, through htmx).
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    wrong = page.get_by_role("radio", name=key[1].wrong)
    for _ in range(radios.count()):
        if wrong.is_checked():
            break
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect_feedback(page, key[1], right=False)
    expect(page.locator("#question-heading")).to_be_focused()
    _expect_announced(page)

    assert support.same_document(page)
    attempt = Attempt.objects.get(user=signed_in, quiz=quiz)
    assert [a.is_correct for a in attempt.answers.order_by("question__position")] == [True, False]


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_skip_link_is_first_shows_on_focus_and_moves_focus_to_the_content(
    page: Page, seeded, lang
):
    page.goto(f"/{lang}/")
    skip = page.locator("a.skip-link")
    expect(skip).not_to_be_in_viewport()
    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    expect(skip).to_be_in_viewport()
    _assert_visible_focus(page, "a.skip-link")
    page.keyboard.press("Enter")
    expect(page.locator("main#main")).to_be_focused()
    # The next Tab continues inside the content, past the site navigation.
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.querySelector('main').contains(document.activeElement)")
