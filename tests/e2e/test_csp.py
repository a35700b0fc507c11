"""The strict Content-Security-Policy holds in a real browser while a learner takes a quiz."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from . import support
from .support import expect_feedback, expect_question, next_control

# Runs before any page script (through the DevTools protocol, so the policy does not apply to
# it) and records every violation the browser reports, whether or not it also logs one.
_RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI}`);
});
"""


def _violations(page: Page) -> list[str]:
    return page.evaluate("() => window.__cspViolations")


def test_taking_a_quiz_reports_no_csp_violation(page: Page, console_errors, signed_in, quiz):
    page.add_init_script(_RECORD_VIOLATIONS)
    csp_headers: list[str] = []
    page.on(
        "response",
        lambda response: (
            csp_headers.append(response.headers.get("content-security-policy", ""))
            if response.request.resource_type in {"document", "fetch"}
            else None
        ),
    )

    page.goto(f"/en/quizzes/{quiz.slug}/")
    page.get_by_role("button", name="Start quiz").click()
    for number, question in enumerate(support.answer_key(quiz, "en"), start=1):
        expect_question(page, question)
        page.get_by_role("radio", name=question.right).check()
        support.submit_button(page).click()
        expect_feedback(page, question, right=True)
        if number < 8:
            assert _violations(page) == [], f"CSP violations at question {number}"
        next_control(page).click()
    expect(page).to_have_url(re.compile(r"/result/$"))
    page.get_by_role("link", name="My history").first.click()
    expect(page.locator("h1")).to_have_text("My history")

    assert _violations(page) == []
    assert not [e for e in console_errors if "Content Security Policy" in e], console_errors
    assert console_errors == []
    # The policy was really in force, on pages and on htmx fragments alike.
    assert csp_headers and all("script-src 'self'" in header for header in csp_headers)
    assert all("style-src 'self'" in header for header in csp_headers)

    # And the recorder works: an inline script is refused and reported.
    page.evaluate(
        """() => { const s = document.createElement("script");
                   s.textContent = "window.__inlineRan = true"; document.body.append(s); }"""
    )
    page.wait_for_function("() => window.__cspViolations.length > 0")
    assert page.evaluate("() => window.__inlineRan") is None
    assert any("script-src" in v for v in _violations(page))
