"""Helpers for the browser tests: axe, screenshots, page shape, and the quiz's answer key."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.test import Client
from playwright.sync_api import BrowserContext, Page, expect

from quizzes.attempts.services import attempt_start
from quizzes.grading import Response
from quizzes.models import Attempt, Quiz
from tests.steps import post_answer


def sign_in(context: BrowserContext, base_url: str, user) -> None:
    """Give the browser context a session of `user`, made without the sign-in form."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies(
        [{"name": cookie.key, "value": cookie.value, "url": base_url, "httpOnly": True}]
    )


PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
# (name, viewport, colour scheme): every page type is audited and photographed in each.
VARIANTS = [
    ("desktop", DESKTOP, "light"),
    ("desktop-dark", DESKTOP, "dark"),
    ("phone", PHONE, "light"),
    ("phone-dark", PHONE, "dark"),
]

# axe's default rule set: WCAG 2.0/2.1/2.2 A and AA plus best practices (region, landmarks,
# one h1, …). No rule is disabled. Only violations are asked for, which keeps runs fast.
_RUN_AXE = """async () => {
  const results = await axe.run(document, {resultTypes: ["violations"]});
  return results.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target.join(" "), summary: n.failureSummary})),
  }));
}"""


def axe_violations(page: Page, axe_source: str) -> list[dict]:
    """Run axe-core in the page as it is, Content-Security-Policy in force.

    The source goes in through page.evaluate (the DevTools protocol), which no page CSP can
    block; a <script> tag (page.add_script_tag) would be refused by script-src 'self', and
    bypass_csp would audit a page that learners never see.
    """
    if not page.evaluate("() => typeof window.axe === 'object'"):
        # A trailing expression, so that evaluate does not try to call or serialise axe.
        page.evaluate(f"{axe_source}\n;true")
    return page.evaluate(_RUN_AXE)


def describe(violations: list[dict]) -> str:
    lines = []
    for violation in violations:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"][:8]:
            summary = " ".join(node["summary"].split())
            lines.append(f"    {node['target']}: {summary}")
    return "\n".join(lines)


def assert_accessible(page: Page, axe_source: str, where: str) -> None:
    violations = axe_violations(page, axe_source)
    assert not violations, f"axe-core violations on {where} ({page.url}):\n{describe(violations)}"


def screenshot(page: Page, folder: Path, name: str) -> Path:
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True, animations="disabled")
    return path


def page_shape(page: Page) -> dict:
    """What a whole page has and a bare fragment lacks."""
    return page.evaluate(
        """() => ({
          lang: document.documentElement.lang,
          dir: document.documentElement.dir,
          headers: document.querySelectorAll("body > header.site-header").length,
          mains: document.querySelectorAll("main#main").length,
          footers: document.querySelectorAll("body > footer.site-footer").length,
          h1s: document.querySelectorAll("h1").length,
          quizAreas: document.querySelectorAll("#quiz-area").length,
          skipLinks: document.querySelectorAll("a.skip-link").length,
          stylesheets: document.styleSheets.length,
        })"""
    )


def assert_whole_page(page: Page, lang: str = "en") -> None:
    shape = page_shape(page)
    expected = {"headers": 1, "mains": 1, "footers": 1, "h1s": 1, "skipLinks": 1}
    assert {key: shape[key] for key in expected} == expected, f"not a whole page: {shape}"
    assert shape["quizAreas"] <= 1, f"a page inside a page: {shape}"
    assert shape["stylesheets"] >= 1, f"unstyled: {shape}"
    assert shape["lang"] == lang
    assert shape["dir"] == ("rtl" if lang == "ar" else "ltr")


def mark_document(page: Page) -> None:
    """Tag the current document; the tag survives htmx swaps but not a page load."""
    page.evaluate("() => { window.__daleelDocument = 'still here'; }")


def same_document(page: Page) -> bool:
    return page.evaluate("() => window.__daleelDocument === 'still here'")


def step_url(attempt: Attempt, number: int, lang: str = "en") -> str:
    return f"/{lang}/attempts/{attempt.pk}/questions/{number}/"


STEP_URL = re.compile(r"/attempts/\d+/questions/(\d+)/$")


def step_number(page: Page) -> int:
    match = STEP_URL.search(page.url)
    assert match, f"not on a question step: {page.url}"
    return int(match.group(1))


@dataclass(frozen=True)
class Key:
    """One question of a quiz in one language: what the learner reads and which answer is right."""

    prompt: str
    right: str
    wrong: str


def answer_key(quiz: Quiz, lang: str) -> list[Key]:
    keys = []
    for question in quiz.questions.order_by("position").prefetch_related("choices"):
        if not question.has_choices:  # the ZeRO quiz's last three: typed, matched, ordered
            continue
        choices = list(question.choices.all())
        right = next(c for c in choices if c.is_correct)
        wrong = next(c for c in choices if not c.is_correct)
        keys.append(
            Key(
                prompt=getattr(question, f"prompt_{lang}"),
                right=getattr(right, f"text_{lang}"),
                wrong=getattr(wrong, f"text_{lang}"),
            )
        )
    return keys


def answer_in_db(user, quiz: Quiz, count: int, *, wrong: frozenset[int] = frozenset()) -> Attempt:
    """An attempt whose first `count` questions are answered (right, except the 1-based `wrong`)."""
    attempt = attempt_start(user=user, quiz=quiz)
    for number, question in enumerate(quiz.questions.order_by("position")[:count], start=1):
        if not question.has_choices:
            response = typed_response(question, right=number not in wrong)
            post_answer(attempt, question, response=response)
            continue
        choice = question.choices.filter(is_correct=number not in wrong).first()
        post_answer(attempt, question, choice=choice)
    attempt.refresh_from_db()
    return attempt


def typed_response(question, *, right: bool) -> Response:
    """A number, short-answer, matching or ordering response, right or wrong."""
    if question.kind == "numerical":
        accepted = question.numerical_answers.order_by("-fraction", "position")[0]
        return Response(number=accepted.value if right else accepted.value + 1000)
    if question.kind == "short":
        accepted = question.accepted_texts.filter(fraction=1).order_by("position")[0]
        return Response(text=accepted.text_en if right else "not an answer")
    if question.kind == "matching":
        prompted = question.pairs.exclude(prompt_en="").order_by("position")
        prompts = list(prompted.values_list("pk", flat=True))
        matches = prompts if right else prompts[1:] + prompts[:1]
        return Response(arrangement=tuple(zip(prompts, matches, strict=True)))
    items = list(question.order_items.order_by("position").values_list("pk", flat=True))
    return Response(arrangement=tuple(items if right else items[::-1]))


# ---------- Driving the quiz through its own controls ----------


def quiz_area(page: Page):
    return page.locator("#quiz-area")


def submit_button(page: Page):
    return page.locator("#quiz-area form.question button[type=submit]")


def next_control(page: Page):
    """ "Next question" or, after the last question, "See results"."""
    return page.locator("#quiz-area .step__actions a.button--primary")


def expect_question(page: Page, key: Key) -> None:
    expect(page.locator("#quiz-area form.question #question-heading")).to_have_text(key.prompt)


def expect_feedback(page: Page, key: Key, *, right: bool) -> None:
    expect(page.locator("#quiz-area .feedback")).to_be_visible()
    expect(page.locator("#quiz-area .feedback")).to_have_class(
        re.compile(r"feedback--right" if right else r"feedback--wrong")
    )
    expect(page.locator("#quiz-area .choice--correct .choice__text")).to_have_text(key.right)


# ---------- Console, CSP and network problems ----------

# Runs before any page script, through the DevTools protocol (so the policy does not apply to
# it), in every document: each violation goes to the test at once, across page loads.
_REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.__daleelViolation(
    `${event.violatedDirective} blocked ${event.blockedURI || "inline"} ` +
    `at ${event.sourceFile}:${event.lineNumber}:${event.columnNumber} ${event.sample}`
  );
});
"""
# Chromium logs a document answered with 4xx as a failed load; responses are judged below.
_RESPONSE_LOGGED = re.compile(r"^Failed to load resource: the server responded with a status of")
_SUBRESOURCES = {"stylesheet", "script", "image", "font", "media", "manifest", "other"}


@dataclass
class Problems:
    """Everything that would show in the console or the network panel as a problem."""

    console: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    # The documents the page loaded (not a problem: kept for the HTML checker).
    documents: list = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.console or self.violations or self.failed)

    def __str__(self) -> str:
        return str({"console": self.console, "violations": self.violations, "failed": self.failed})

    def clear(self) -> None:
        self.console.clear()
        self.violations.clear()
        self.failed.clear()


def _request_failed(problems: Problems, request) -> None:
    # Cancelled by the browser itself: a fetch still on its way when the test leaves the page,
    # or one that htmx drops (hx-sync). Not an answer that failed.
    if request.failure != "net::ERR_ABORTED":
        problems.failed.append(f"{request.failure} {request.url}")


def _response(problems: Problems, response) -> None:
    kind = response.request.resource_type
    if response.status >= 500 or (response.status >= 400 and kind in _SUBRESOURCES):
        problems.failed.append(f"{response.status} {kind} {response.url}")
    if kind == "document":
        problems.documents.append(response)


def record_problems(page: Page) -> Problems:
    """Start recording the page's console errors, CSP violations and failed requests."""
    found = Problems()
    page.expose_function("__daleelViolation", lambda text: found.violations.append(text))
    page.add_init_script(_REPORT_VIOLATIONS)

    def console(message) -> None:
        if message.type == "error" and not _RESPONSE_LOGGED.match(message.text):
            found.console.append(f"{message.text} ({message.location.get('url')})")

    page.on("console", console)
    page.on("pageerror", lambda error: found.console.append(f"uncaught: {error}"))
    page.on("requestfailed", lambda r: _request_failed(found, r))
    page.on("response", lambda response: _response(found, response))
    return found


def settle(page: Page) -> None:
    """Late reports (a violation is dispatched as a task after the load) arrive in this pause."""
    page.wait_for_timeout(100)


# ---------- Every check of one page ----------


def overflow(page: Page) -> dict | None:
    """What sticks out sideways (the page scrolls horizontally), or None."""
    return page.evaluate(
        """() => {
          const width = document.documentElement.clientWidth;
          if (document.documentElement.scrollWidth <= width + 1) return null;
          const wide = [...document.querySelectorAll("body *")].filter(el => {
            const box = el.getBoundingClientRect();
            return box.width > 0 && (box.right > width + 1 || box.left < -1);
          }).slice(0, 5).map(el => el.tagName.toLowerCase() + (el.className ? "." +
            String(el.className).split(" ").join(".") : ""));
          return {scrollWidth: document.documentElement.scrollWidth, width, wide};
        }"""
    )


def check_every_variant(
    page: Page,
    axe_source: str,
    folder: Path,
    name: str,
    *,
    problems: Problems | None = None,
) -> list[str]:
    """At every viewport and colour scheme: axe-core, a screenshot, nothing wider than a phone
    (at phone width) and, with `problems`, a clean console. The failures, said."""
    failures = []
    for variant, viewport, scheme in VARIANTS:
        page.set_viewport_size(viewport)
        page.emulate_media(color_scheme=scheme)
        violations = axe_violations(page, axe_source)
        if violations:
            failures.append(f"-- axe, {variant}:\n{describe(violations)}")
        screenshot(page, folder, f"{name}-{variant}")
        if viewport == PHONE and (wide := overflow(page)):
            failures.append(f"-- wider than a phone, {variant}: {wide}")
        if problems is not None:
            settle(page)
            if problems:
                failures.append(f"-- console, {variant}: {problems}")
                problems.clear()
    return failures
