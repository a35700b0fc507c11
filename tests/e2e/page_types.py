"""Every page type a learner (or a visitor) can reach, as a scene that brings a browser to it:
the data it needs, made for the test, then the visit. tests/e2e/test_pages.py runs every page
check on each, in both languages."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from allauth.account.utils import user_pk_to_url_str
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.utils import timezone
from playwright.sync_api import Page, expect

from accounts.limits import hit
from quizzes.models import ReviewCard

from . import support


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


# The ZeRO quiz's new kinds (issue 53: their words, photographed in both languages at every
# width): question 9 a short answer, 10 matching, 11 ordering.
def _new_kind_step(scene: Scene, answered: int, *, wrong: frozenset[int] = frozenset()) -> None:
    attempt = support.answer_in_db(scene.signed_in(), scene.other_quiz, answered, wrong=wrong)
    scene.go(f"/attempts/{attempt.pk}/questions/{min(answered + 1, 11)}/")


def _question_matching(scene: Scene) -> None:
    _new_kind_step(scene, 9)
    expect(scene.page.locator("#id_match")).to_be_visible()


def _question_ordering(scene: Scene) -> None:
    _new_kind_step(scene, 10)
    expect(scene.page.locator("#id_position")).to_be_visible()


def _feedback_short(scene: Scene) -> None:
    attempt = support.answer_in_db(scene.signed_in(), scene.other_quiz, 9, wrong={9})
    scene.go(f"/attempts/{attempt.pk}/questions/9/")
    expect(scene.page.locator(".feedback--wrong")).to_be_visible()


def _feedback_matching(scene: Scene) -> None:
    attempt = support.answer_in_db(scene.signed_in(), scene.other_quiz, 10, wrong={10})
    scene.go(f"/attempts/{attempt.pk}/questions/10/")
    expect(scene.page.locator(".match-review")).to_be_visible()


def _result_new_kinds(scene: Scene) -> None:
    """Every question answered finishes the attempt: the ordering feedback is on the result,
    with the other kinds'."""
    quiz = scene.other_quiz
    attempt = support.answer_in_db(
        scene.signed_in(), quiz, quiz.questions.count(), wrong={2, 9, 10, 11}
    )
    scene.go(f"/attempts/{attempt.pk}/result/")
    expect(scene.page.locator(".order-review")).to_be_visible()


def _history(scene: Scene) -> None:
    learner = scene.signed_in()
    support.answer_in_db(learner, scene.quiz, 8, wrong={1, 2, 5})
    support.answer_in_db(learner, scene.other_quiz, scene.other_quiz.questions.count(), wrong={4})
    support.answer_in_db(learner, scene.quiz, 8, wrong={6})
    support.answer_in_db(learner, scene.other_quiz, 3)
    scene.go("/attempts/")
    expect(scene.page.locator(".chart__line")).to_have_count(1)


def _history_few(scene: Scene) -> None:
    """Two attempts draw no line: bars with their scores."""
    learner = scene.signed_in()
    support.answer_in_db(learner, scene.quiz, 8, wrong={1, 2, 5})
    support.answer_in_db(learner, scene.other_quiz, scene.other_quiz.questions.count(), wrong={4})
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
    get_user_model().objects.create_user("Amina", password="whatever-it-is-42")
    scene.go("/accounts/signup/")
    scene.page.locator("#id_username").fill("amina")  # taken: "Amina"
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
    "question-matching": _question_matching,
    "question-ordering": _question_ordering,
    "feedback-short": _feedback_short,
    "feedback-matching": _feedback_matching,
    "result-new-kinds": _result_new_kinds,
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
