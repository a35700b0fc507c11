"""The catalog in a browser: results follow what the learner types and picks, in the URL,
with Back, in both languages; without JavaScript the same form is a plain GET."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Page, expect

from . import support
from .support import assert_whole_page


def cards(page: Page):
    return page.locator("#results .card__title")


def query_of(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def test_results_follow_the_search_as_the_learner_types_in_english(
    page: Page, seeded, console_errors
):
    page.goto("/en/")
    expect(cards(page)).to_have_count(2)
    support.mark_document(page)

    # Typed a key at a time, as a learner does: one request after the pause, not one a key.
    requests = []
    page.on("request", lambda r: requests.append(r.url) if "q=" in r.url else None)
    page.get_by_label("Search", exact=True).press_sequentially("recomputation", delay=30)
    expect(cards(page)).to_have_count(1)
    expect(cards(page)).to_have_text("Activation recomputation")
    expect(page.locator("#results .results__count")).to_contain_text("1 quiz matches")
    # Read out to screen readers, which do not hear a swapped region by themselves.
    expect(page.locator("#results-announcer")).to_have_text("1 quiz matches")
    assert support.same_document(page), "the page reloaded instead of swapping the results"
    assert query_of(page) == {"q": ["recomputation"]}
    assert len(requests) <= 2, requests
    assert_whole_page(page, "en")

    # Arabic words find quizzes on the English page too, harakat or not.
    page.get_by_label("Search", exact=True).fill("المحسنات")
    expect(cards(page)).to_have_text("ZeRO and sharded optimizers")

    # Filters swap the results too and join the search in the URL.
    page.get_by_label("Search", exact=True).fill("")
    expect(cards(page)).to_have_count(2)
    page.get_by_label("Difficulty").select_option("hard")
    expect(cards(page)).to_have_count(1)
    expect(cards(page)).to_have_text("ZeRO and sharded optimizers")
    expect(page).to_have_url(re.compile(r"difficulty=hard"))
    assert support.same_document(page)

    # Back returns to the results before the filter.
    page.go_back()
    expect(page).not_to_have_url(re.compile(r"difficulty=hard"))
    expect(cards(page)).to_have_count(2)
    assert console_errors == []  # the CSP refused nothing


def test_search_and_progress_filter_in_arabic(page: Page, seeded, signed_in, quiz):
    support.answer_in_db(signed_in, quiz, 8)
    page.goto("/ar/")
    assert_whole_page(page, "ar")
    search = page.locator("#id_q")
    # «إعادة» typed with a bare alef and ه for ة, no harakat.
    search.press_sequentially("اعاده", delay=30)
    expect(cards(page)).to_have_count(1)
    expect(cards(page)).to_have_text("إعادة حساب التنشيطات")
    expect(page.locator("#results .state--done")).to_be_visible()

    search.fill("")
    expect(cards(page)).to_have_count(2)
    page.locator("#id_status").select_option("not-started")
    expect(cards(page)).to_have_count(1)
    expect(cards(page)).to_have_text(seeded["zero-sharded-optimizers"].title_ar)
    assert query_of(page)["status"] == ["not-started"]

    # The URL is the state: opened afresh, it shows the same results and the same choices.
    page.goto(page.url)
    expect(cards(page)).to_have_count(1)
    expect(page.locator("#id_status")).to_have_value("not-started")


def test_the_search_form_works_without_javascript(browser, live_server, seeded):
    context = browser.new_context(java_script_enabled=False, base_url=live_server.url)
    page = context.new_page()
    page.goto("/en/")
    page.locator("#id_q").fill("sharded")
    page.locator("#id_guide").select_option("zero-sharded-optimizers")
    page.locator("form.filters button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"q=sharded"))
    expect(cards(page)).to_have_count(1)
    assert query_of(page)["guide"] == ["zero-sharded-optimizers"]
    context.close()


def test_the_pager_swaps_pages_and_back_returns(page: Page, seeded):
    from tests.factories import make_quiz

    for n in range(25):
        make_quiz(questions=1, title_en=f"Extra {n:02d}")
    page.goto("/en/")
    expect(cards(page)).to_have_count(20)
    support.mark_document(page)
    page.locator(".pager").get_by_role("link", name="Next").click()
    expect(page).to_have_url(re.compile(r"page=2"))
    expect(cards(page)).to_have_count(7)
    assert support.same_document(page)
    page.go_back()
    expect(cards(page)).to_have_count(20)


def test_enter_pressed_while_the_search_is_on_its_way_logs_no_error_and_shows_its_results(
    page: Page, seeded, console_errors
):
    page.goto("/en/")
    expect(cards(page)).to_have_count(2)
    held = []

    def hold_the_first(route):
        if held:
            route.continue_()
        else:
            held.append(route)  # the request typing sent, still on its way

    page.route(re.compile(r"/en/\?q="), hold_the_first)
    search = page.get_by_label("Search", exact=True)
    search.fill("recomputation")
    page.wait_for_timeout(400)  # past the typing pause: its request is sent, and held
    assert len(held) == 1
    search.press("Enter")
    held[0].continue_()

    expect(cards(page)).to_have_count(1)
    expect(cards(page)).to_have_text("Activation recomputation")
    assert query_of(page) == {"q": ["recomputation"]}
    page.wait_for_timeout(200)
    assert console_errors == []
