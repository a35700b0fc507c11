"""Pages read in Arabic in Chromium without the forms a native reader trips on
(tests/arabic_wording.py; every page type is read so in the one visit of tests/e2e/
test_pages.py); the two-factor pages, the review statistics, the preferences and the admin's
index photographed in Arabic (test-artifacts/screenshots/arabic-*.png); no list bullets beside
controls."""

from __future__ import annotations

import re
import time

from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP, format_hotp_value, generate_totp_secret, hotp_value
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.utils import timezone, translation
from playwright.sync_api import Page, expect

from quizzes.models import Quiz, ReviewCard
from tests.arabic_wording import problems
from tests.factories import PASSWORD, make_user

from . import support

# A control's list item drawn with a bullet (allauth's lists, the LTI picker's checkboxes).
_BULLETED_CONTROLS = """() => [...document.querySelectorAll("main li")]
  .filter(li => li.querySelector("button, input, a.button"))
  .filter(li => getComputedStyle(li).listStyleType !== "none")
  .map(li => li.textContent.trim().slice(0, 40))"""


def _reads_well(page: Page) -> None:
    assert problems(page.content()) == [], page.url


def _no_bullets_beside_controls(page: Page) -> None:
    assert page.evaluate(_BULLETED_CONTROLS) == [], page.url


def _code(secret: str) -> str:
    return format_hotp_value(hotp_value(secret, int(time.time()) // 30))


def _confirm_password(page: Page) -> None:
    if "/reauthenticate/" in page.url:
        page.get_by_label("كلمة المرور").fill(PASSWORD)
        page.get_by_role("button", name="تأكيد").click()


def test_the_two_factor_pages_in_arabic(page: Page, seeded, signed_in, screenshots_dir):
    page.goto("/ar/accounts/2fa/")
    _reads_well(page)
    _no_bullets_beside_controls(page)
    support.screenshot(page, screenshots_dir, "arabic-2fa-index")

    page.goto("/ar/accounts/2fa/totp/activate/")
    expect(page).to_have_url(re.compile("/reauthenticate/"))
    _reads_well(page)
    support.screenshot(page, screenshots_dir, "arabic-2fa-confirm-password")
    _confirm_password(page)
    expect(page).to_have_url(re.compile("/2fa/totp/activate/"))
    secret_field = page.locator("#authenticator_secret")
    secret = secret_field.input_value()
    # The whole secret, from its start: it can be selected and copied (read-only, not disabled).
    expect(secret_field).to_be_editable(editable=False)
    expect(secret_field).to_be_enabled()
    assert secret_field.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), "secret is cut"
    _reads_well(page)
    support.screenshot(page, screenshots_dir, "arabic-2fa-activate")
    page.get_by_label("رمز تطبيق المصادقة").fill(_code(secret))
    page.get_by_role("button", name="تفعيل").click()
    expect(page).not_to_have_url(re.compile("/totp/activate/"))

    page.goto("/ar/accounts/2fa/")
    _reads_well(page)
    _no_bullets_beside_controls(page)
    support.screenshot(page, screenshots_dir, "arabic-2fa-index-active")
    page.goto("/ar/accounts/2fa/recovery-codes/")
    _confirm_password(page)
    _reads_well(page)
    _no_bullets_beside_controls(page)
    support.screenshot(page, screenshots_dir, "arabic-2fa-recovery-codes")


def test_the_second_factor_step_in_arabic(page: Page, seeded, screenshots_dir):
    learner = make_user("huda")
    secret = generate_totp_secret()
    TOTP.activate(learner, secret)
    RecoveryCodes.activate(learner)
    page.goto("/ar/accounts/login/")
    page.get_by_label("اسم المستخدم").fill("huda")
    page.get_by_label("كلمة المرور").fill(PASSWORD)
    page.get_by_role("main").get_by_role("button", name="تسجيل الدخول", exact=True).click()
    expect(page).to_have_url(re.compile("/ar/accounts/2fa/authenticate/"))
    _reads_well(page)
    _no_bullets_beside_controls(page)
    support.screenshot(page, screenshots_dir, "arabic-2fa-authenticate")

    page.get_by_label("الرمز", exact=True).fill("000000")
    page.get_by_role("main").get_by_role("button", name="تسجيل الدخول", exact=True).click()
    expect(page.get_by_text("الرمز غير صحيح.").first).to_be_visible()
    _reads_well(page)
    support.screenshot(page, screenshots_dir, "arabic-2fa-authenticate-wrong-code")


def test_statistics_and_preferences_in_arabic(page: Page, seeded, signed_in, screenshots_dir):
    quiz = seeded["zero-sharded-optimizers"]
    support.answer_in_db(signed_in, quiz, 8, wrong={1, 3, 5, 7})
    now = timezone.now()
    for days, card in enumerate(ReviewCard.objects.filter(user=signed_in).order_by("pk")):
        ReviewCard.objects.filter(pk=card.pk).update(due=now + timezone.timedelta(days=days * 3))

    page.goto("/ar/review/statistics/")
    _reads_well(page)
    labels = page.locator("svg.due-chart .due-chart__label").evaluate_all(
        "labels => labels.map(label => label.textContent)"
    )
    assert labels[0] == "اليوم" and all(re.fullmatch(r"\d+ \D+", label) for label in labels[1:])
    support.screenshot(page, screenshots_dir, "arabic-review-statistics")

    page.goto("/ar/accounts/profile/preferences/")
    _reads_well(page)
    options = page.locator("#id_reminder_hour option").all_inner_texts()
    assert "8:00 ص" in options and "8:00 م" in options
    # The Arab countries' zones come first, in a group of their own; Jerusalem by its city.
    groups = page.locator("#id_time_zone optgroup").evaluate_all("gs => gs.map(g => g.label)")
    assert groups[0] == "الدول العربية"
    assert page.locator(
        "#id_time_zone optgroup[label='الدول العربية'] option[value='Asia/Riyadh']"
    ).inner_text() == ("الرياض — المملكة العربية السعودية")
    assert page.locator("#id_time_zone option[value='Asia/Jerusalem']").inner_text() == "القدس"
    assert page.locator("#id_time_zone option[value='Asia/Irkutsk']").inner_text() == (
        "إيركوتسك — روسيا"
    )
    support.screenshot(page, screenshots_dir, "arabic-preferences")


def test_the_admin_index_in_arabic(
    page: Page, seeded, context, live_server, settings, screenshots_dir
):
    settings.MFA_REQUIRED_FOR_STAFF = False  # the second factor has its own tests
    staff = make_user("Ustadha", is_staff=True, is_superuser=True)
    support.sign_in(context, live_server.url, staff)
    page.goto("/ar/admin/")
    expect(page.locator("#site-name")).to_have_text("إدارة دليل")
    _reads_well(page)
    support.screenshot(page, screenshots_dir, "arabic-admin-index")

    page.goto("/ar/admin/quizzes/quiz/")
    _reads_well(page)
    # Captions keep a Latin name's own case («ZeRO», not «ZERO»).
    assert "ZeRO" in page.locator("#result_list").inner_text()
    support.screenshot(page, screenshots_dir, "arabic-admin-quizzes")


def test_the_admins_quiz_page_in_arabic(
    page: Page, seeded, context, live_server, settings, screenshots_dir
):
    """The page an instructor works on all day: fields labelled by their language in words
    (on the admin's own fieldsets and on the questions' rows alike), each question by its
    number and prompt, a pair's arrow the way the line reads, the section named apart from
    its quizzes; in Chromium, at desktop and phone widths."""
    settings.MFA_REQUIRED_FOR_STAFF = False
    support.sign_in(
        context, live_server.url, make_user("muallima", is_staff=True, is_superuser=True)
    )
    quiz = seeded["zero-sharded-optimizers"]
    page.set_viewport_size(support.DESKTOP)
    page.goto(f"/ar/admin/quizzes/quiz/{quiz.pk}/change/")

    expect(page.locator("label[for='id_title_ar']")).to_have_text("العنوان (بالعربية):")
    expect(page.locator("label[for='id_title_en']")).to_have_text("العنوان (بالإنجليزية):")
    expect(page.locator("label[for='id_questions-0-prompt_ar']")).to_have_text(
        re.compile(r"نص السؤال \(بالعربية\)")
    )
    headings = page.locator("#questions-group .daleel-row-heading b").all_inner_texts()
    assert headings[0].startswith("السؤال 1: ") and headings[9].startswith("السؤال 10: ")
    assert not [h for h in headings if quiz.slug in h]
    breadcrumbs = page.locator(".breadcrumbs a").all_inner_texts()
    assert breadcrumbs[:2] == ["الرئيسية", "المحتوى التعليمي"]
    pair = page.locator("#questions-9-pairs-group .daleel-part-label").first.inner_text()
    assert pair == "المرحلة الأولى ← حالات المُحسِّن"
    # The arrow drawn between the two, pointing from the prompt (right) to its match (left).
    boxes = page.evaluate(
        """() => {
          const h = document.querySelector('#questions-9-pairs-group .daleel-part-label');
          const walker = document.createTreeWalker(h, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const at = n.data.indexOf('←');
            if (at < 0) continue;
            const box = (from, to) => { const r = document.createRange();
              r.setStart(n, from); r.setEnd(n, to); return r.getBoundingClientRect(); };
            return {prompt: box(0, at - 1).left, arrow: box(at, at + 1).left,
                    match: box(at + 2, n.data.length).left};
          }
        }"""
    )
    assert boxes["match"] < boxes["arrow"] < boxes["prompt"]
    _reads_well(page)
    # The page's top, and its tenth question's pairs (the whole page is some metres long).
    page.screenshot(path=str(screenshots_dir / "arabic-admin-quiz.png"))
    page.locator("#questions-9").screenshot(path=str(screenshots_dir / "arabic-admin-quiz-q10.png"))
    page.set_viewport_size(support.PHONE)
    page.screenshot(path=str(screenshots_dir / "arabic-admin-quiz-phone.png"))


def test_the_lti_picker_lists_quizzes_without_bullets(page: Page, seeded, screenshots_dir):
    path = "/ar/lti/deep-linking/"
    with translation.override("ar"):
        html = render_to_string(
            "lti/picker.html",
            {"quizzes": list(Quiz.objects.published().order_by("title")), "query": ""},
            request=RequestFactory().get(path),
        )
    page.route(f"**{path}", lambda route: route.fulfill(body=html, content_type="text/html"))
    page.goto(path)
    expect(page.locator("ul.picker input[type=checkbox]")).to_have_count(2)
    _reads_well(page)
    _no_bullets_beside_controls(page)
    support.screenshot(page, screenshots_dir, "arabic-lti-picker")


def test_a_numerical_answer_sits_with_its_label_on_an_arabic_result(
    page: Page, seeded, signed_in, screenshots_dir
):
    """The typed number is left to right (its sign first) but starts its line at the right,
    beside «إجابتك», not at the far left of its row."""
    from decimal import Decimal

    from quizzes.attempts.services import attempt_start
    from quizzes.grading import Response
    from tests.factories import add_numerical_question, make_quiz
    from tests.steps import post_answer

    quiz = make_quiz(questions=0)
    question = add_numerical_question(quiz, 1, answers=((16, 0, 1),))
    attempt = attempt_start(user=signed_in, quiz=quiz)
    post_answer(attempt, question, response=Response(number=Decimal(-2)))
    page.goto(f"/ar/attempts/{attempt.pk}/result/")
    answers = page.locator(".review__answers dd[dir=ltr]")
    expect(answers.first).to_have_text("-2")
    label = page.locator(".review__answers dt").first.bounding_box()
    for dd in answers.all():
        text_right = dd.evaluate(
            "el => { const r = document.createRange(); r.selectNodeContents(el);"
            " return r.getBoundingClientRect().right; }"
        )
        cell = dd.bounding_box()
        assert cell["x"] + cell["width"] - text_right < 2, "the number drifts to the left"
        assert text_right < label["x"]
    support.screenshot(page, screenshots_dir, "arabic-result-number")
