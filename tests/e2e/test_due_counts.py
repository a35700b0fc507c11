"""One count of what is due, in real Chromium: the navigation's badge, the review page and the
statistics say the same "due now", and the pages that say more say "later today" for what a
miss brings back the same day. The review's key hints show only where the keys work."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from playwright.sync_api import Browser, Page, expect

from quizzes.models import ReviewCard

from . import support

# Mid-morning (UTC, the site's zone): "later today" is the same day whenever the tests run.
MORNING = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)

SAID = {
    "en": {
        "review": "2 questions due now (1 more later today)",
        "statistics": "2 questions are due now. 1 more comes back later today.",
    },
    "ar": {
        "review": "سؤالان مستحقان الآن (وسؤال آخر لاحقًا اليوم)",
        "statistics": "سؤالان مستحقان الآن. ويعود سؤال واحد لاحقًا اليوم.",
    },
}


@pytest.fixture
def morning():
    # Ticking: the live server and the browser's requests go on as usual from there.
    with time_machine.travel(MORNING, tick=True):
        yield


@pytest.fixture
def cards(morning, signed_in, quiz):
    """Four missed questions: overdue, due now, due in ten minutes, due tomorrow."""
    support.answer_in_db(signed_in, quiz, 4, wrong=frozenset({1, 2, 3, 4}))
    now = datetime.now(UTC)
    dues = [now - timedelta(hours=1), now, now + timedelta(minutes=10), now + timedelta(days=1)]
    for card, due in zip(ReviewCard.objects.order_by("question__position"), dues, strict=True):
        ReviewCard.objects.filter(pk=card.pk).update(due=due)
    return signed_in


def _badge(page: Page):
    return page.locator(".site-nav .count-badge")


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_badge_the_review_page_and_statistics_say_the_same_count(page: Page, cards, lang):
    page.goto(f"/{lang}/")
    expect(_badge(page)).to_have_text("2")

    page.goto(f"/{lang}/review/")
    expect(_badge(page)).to_have_text("2")
    expect(page.locator("#progress-label")).to_contain_text(SAID[lang]["review"])

    page.goto(f"/{lang}/review/statistics/")
    expect(_badge(page)).to_have_text("2")
    expect(page.locator(".stats__due")).to_have_text(SAID[lang]["statistics"])

    # Answered right, the first goes days away: one due now, everywhere.
    page.goto(f"/{lang}/review/")
    card = ReviewCard.objects.filter(due__lte=datetime.now(UTC)).order_by("due", "pk").first()
    right = card.question.choices.get(is_correct=True)
    page.locator(f"#quiz-area input[name=choice][value='{right.pk}']").check()
    support.submit_button(page).click()
    expect(page.locator("#quiz-area .feedback--right")).to_be_visible()
    # The navigation's count goes with the answer (swapped out of band), no page load needed.
    expect(_badge(page)).to_have_text("1")
    page.goto(f"/{lang}/review/statistics/")
    expect(_badge(page)).to_have_text("1")
    expect(page.locator(".stats__due")).to_contain_text(
        "1 question is due now" if lang == "en" else "سؤال واحد مستحق الآن"
    )


@pytest.mark.parametrize("script", [True, False], ids=["with-script", "without-script"])
def test_the_reviews_key_hints_show_only_where_the_keys_work(
    browser: Browser, live_server, cards, quiz, script
):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=script)
    support.sign_in(context, live_server.url, cards)
    page = context.new_page()
    page.goto("/en/review/")
    card = ReviewCard.objects.filter(due__lte=datetime.now(UTC)).order_by("due", "pk").first()
    wrong = card.question.choices.filter(is_correct=False).first()
    page.locator(f"#quiz-area input[name=choice][value='{wrong.pk}']").check()
    page.locator("#quiz-area form.question button[type=submit]").click()

    expect(page.locator("#quiz-area .feedback--wrong")).to_be_visible()
    expect(page.get_by_text("Missed: it comes back within minutes")).to_be_visible()
    hint = page.get_by_text("Key 1 goes on to the next question.")
    if script:
        expect(hint).to_be_visible()
    else:
        expect(hint).to_be_hidden()
    # A card still learning: back at the first learning step, said as minutes, not a date.
    expect(page.locator("#quiz-area .review__due")).to_have_text(
        "This question comes back in 1 minute."
    )
    context.close()
