"""make deploy-check's smoke test (deploy/check.py starts the stack): what an operator counts
on, through the proxy as a browser would, each step named in a FAILED line."""

from __future__ import annotations

import io
import json
import os
import re
import secrets
import subprocess
import time
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin

import requests
from PIL import Image
from prometheus_client.parser import text_string_to_metric_families

GIFT = """\
$CATEGORY: Deploy check
::Web:: Which protocol carries the web? {=HTTP ~SMTP ~FTP ####HTTP, over TLS for HTTPS.}

::Port:: Which port does HTTPS use unless told? {=443 ~80 ~25 ####443; HTTP's is 80.}
"""
# What the forced error's request carries that no report may: a learner's answer, a password,
# a second-factor code, an LTI token, a secret in the query string.
SECRETS = {
    "answer": "my-answer-" + secrets.token_hex(6),
    "password": "pass-" + secrets.token_hex(8),
    "code": "code-" + secrets.token_hex(4),
    "id_token": "jwt-" + secrets.token_hex(12),
}
QUERY_SECRET = "query-" + secrets.token_hex(6)


@dataclass
class Admin:
    password: str
    username: str = "first-admin"
    email: str = "admin@daleel.test"


class Manage:
    """deploy/manage as the daleel user, as docs/operations.md runs it (sudo -u daleel)."""

    def __init__(self, script: Path, places: dict[str, str], user: str) -> None:
        self.script, self.places, self.user = script, places, user

    def __call__(self, *args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            [str(self.script), *args],
            env={"PATH": os.environ["PATH"], "LANG": "C.UTF-8", **self.places, **(env or {})},
            user=self.user,
            group=self.user,
            extra_groups=[],
            cwd="/",
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise AssertionError(f"manage {args[0]}: {done.stderr[-3000:]}")
        return done.stdout

    def shell(self, code: str) -> dict:
        return json.loads(self("shell", "--no-imports", "-c", code).strip().splitlines()[-1])


class Forms(HTMLParser):
    """Every form of a page with the values a browser would send for it as it stands."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[dict] = []
        self._select: str | None = None
        self._option: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = {key: value or "" for key, value in attrs}
        if tag == "form":
            self.forms.append({**a, "fields": [], "files": [], "names": set()})
            return
        if not self.forms:
            return
        form = self.forms[-1]
        name = a.get("name")
        if name and tag in {"input", "select", "textarea"}:
            form["names"].add(name)
        if tag == "input" and name and "__prefix__" not in name:
            kind = a.get("type", "text").lower()
            if kind == "file":
                form["files"].append(name)
            elif kind in {"checkbox", "radio"}:
                if "checked" in a:
                    form["fields"].append((name, a.get("value", "on")))
            elif kind not in {"submit", "button", "image", "reset"}:
                form["fields"].append((name, a.get("value", "")))
        elif tag == "select" and name and "__prefix__" not in name:
            self._select = name
        elif tag == "option" and self._select:
            if "selected" in a:
                form["fields"].append((self._select, a.get("value", "")))
        elif tag == "textarea" and name and "__prefix__" not in name:
            self._textarea = name
            form["fields"].append((name, ""))

    def handle_data(self, data):
        if self._textarea and self.forms:
            name, value = self.forms[-1]["fields"][-1]
            self.forms[-1]["fields"][-1] = (name, value + data)

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None
            # Browsers drop the newline that opens a textarea.
            name, value = self.forms[-1]["fields"][-1]
            self.forms[-1]["fields"][-1] = (name, value.removeprefix("\n"))


def form_of(page: requests.Response, has: str, action: str | None = None) -> dict:
    """The page's first form with a field named `has` (and, if given, an action holding
    `action`)."""
    parser = Forms()
    parser.feed(page.text)
    for form in parser.forms:
        if has in form["names"] and (action is None or action in form.get("action", "")):
            return form
    raise AssertionError(f"{page.url} has no form with a field {has!r} ({action or 'any'})")


@dataclass
class Browser:
    origin: str
    certificate: Path
    session: requests.Session = field(default_factory=requests.Session)

    def __post_init__(self) -> None:
        # This run's certificate only: not the machine's CA bundle or proxies from the
        # environment (requests lets REQUESTS_CA_BUNDLE override a session's own).
        self.session.trust_env = False
        self.session.verify = str(self.certificate)

    def get(self, path: str, **options) -> requests.Response:
        return self.session.get(urljoin(self.origin, path), timeout=30, **options)

    def submit(
        self,
        page: requests.Response,
        has: str,
        *,
        fields: dict[str, str] | None = None,
        files: dict | None = None,
        action: str | None = None,
        **options,
    ) -> requests.Response:
        """Send the page's form holding the field `has`, changed by `fields`, as a browser
        would (its Referer: Django checks it over HTTPS)."""
        form = form_of(page, has, action)
        data = [(name, value) for name, value in form["fields"] if name not in (fields or {})]
        data += list((fields or {}).items())
        action = urljoin(page.url, form.get("action") or page.url)
        return self.session.post(
            action,
            data=data,
            files=files,
            headers={"Referer": page.url},
            timeout=60,
            **options,
        )


@dataclass
class Site:
    origin: str
    certificate: Path
    http_origin: str | None
    proxy: bool

    def browser(self) -> Browser:
        return Browser(self.origin, self.certificate)


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def totp(secret: str) -> str:
    """The authenticator app's code now (RFC 6238: SHA-1, 30 s, 6 digits)."""
    import base64
    import hashlib
    import hmac
    import struct

    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    digest = hmac.new(key, struct.pack(">Q", int(time.time()) // 30), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    number = struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF
    return f"{number % 1_000_000:06d}"


def noise_png(width: int = 760, height: int = 760) -> bytes:
    """A PNG of random pixels: it does not compress, so it weighs what nginx's default limit
    (1 MB) would refuse."""
    picture = Image.frombytes("RGB", (width, height), os.urandom(width * height * 3))
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return out.getvalue()


def sign_in(browser: Browser, username: str, password: str, next_path: str = "/en/"):
    page = browser.get(f"/en/accounts/login/?next={next_path}")
    return browser.submit(page, "login", fields={"login": username, "password": password})


def sign_up(browser: Browser, username: str, email: str, password: str) -> requests.Response:
    page = browser.get("/en/accounts/signup/")
    fields = {"username": username, "email": email, "password1": password, "password2": password}
    return browser.submit(page, "username", fields=fields)


def expect_saved(response: requests.Response, changelist: str, what: str) -> None:
    """An admin page saved: sent back to its list (`…/question/`), not shown again."""
    errors = re.findall(r'class="errorlist[^>]*>(.*?)</ul>', response.text, re.S)[:3]
    expect(
        response.status_code == 200 and response.url.split("?")[0].endswith(changelist),
        f"{what} was not saved: {response.status_code} {response.url} {errors}",
    )


def json_lines(text: str) -> list[dict]:
    lines = []
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                lines.append(json.loads(line))
            except ValueError:
                continue
    return lines


def run(
    *, site, admin, manage, mail, reports, processes, metrics_token, state, nginx_log, step
) -> None:
    origin = site.origin
    learner_password = secrets.token_urlsafe(12)
    seen: dict = {}

    with step("the home page over HTTPS (and HTTP sent there), its static files"):
        if site.http_origin:
            plain = site.browser().session.get(
                site.http_origin + "/en/", allow_redirects=False, timeout=10
            )
            expect(plain.status_code == 301, f"HTTP answered {plain.status_code}")
            expect(plain.headers["Location"].startswith("https://"), "HTTP not sent to HTTPS")
        visitor = site.browser()
        home = visitor.get("/")
        expect(home.status_code == 200 and home.url == origin + "/en/", f"{home.url}")
        expect("Daleel" in home.text, "the home page does not say Daleel")
        hsts = home.headers.get("Strict-Transport-Security", "")
        expect("max-age=31536000" in hsts and "preload" not in hsts, f"HSTS: {hsts!r}")
        seen["home_request_id"] = home.headers.get("X-Request-ID", "")
        if site.proxy:  # nginx's $request_id, passed on and sent back by Django
            expect(re.fullmatch(r"[0-9a-f]{32}", seen["home_request_id"]), "no request id")
        stylesheet = re.search(r'href="(/static/[^"]+\.css)"', home.text)
        expect(stylesheet is not None, "no stylesheet on the home page")
        css = visitor.get(stylesheet.group(1))
        expect(
            css.status_code == 200 and "immutable" in css.headers.get("Cache-Control", ""),
            f"static file: {css.status_code} {css.headers.get('Cache-Control')}",
        )

    administrator = site.browser()
    with step("the first administrator signs in and sets up two-factor sign-in"):
        signed_in = sign_in(administrator, admin.username, admin.password, "/en/admin/")
        expect(
            "/en/accounts/2fa/" in signed_in.url, f"not asked for a second factor: {signed_in.url}"
        )
        activate = administrator.get("/en/accounts/2fa/totp/activate/")
        if "/reauthenticate/" in activate.url:
            activate = administrator.submit(
                activate, "password", fields={"password": admin.password}
            )
        secret = re.search(r'id="authenticator_secret"[^>]*value="([A-Z2-7]+)"', activate.text)
        expect(secret is not None, f"no authenticator secret on {activate.url}")
        administrator.submit(activate, "code", fields={"code": totp(secret.group(1))})
        index = administrator.get("/en/admin/")
        expect(
            index.url == origin + "/en/admin/" and index.status_code == 200,
            f"the admin did not open: {index.status_code} {index.url}",
        )

    image = noise_png()
    with step(f"an admin upload of an image of {len(image) / 1e6:.1f} MB through the proxy"):
        gift = state / "deploy-check.gift"
        gift.write_text(GIFT)
        gift.chmod(0o644)
        manage("import_quiz", str(gift), "--quiz", "deploy-check")
        ids = manage.shell(
            "import json; from quizzes.models import Quiz, Choice; "
            "q = Quiz.objects.get(slug='deploy-check'); "
            "first = q.questions.order_by('position')[0]; "
            "print(json.dumps({'quiz': q.pk, 'question': first.pk, "
            "'wrong': Choice.objects.get(question=first, text_en='SMTP').pk}))"
        )
        page = administrator.get(f"/en/admin/quizzes/question/{ids['question']}/change/")
        saved = administrator.submit(
            page,
            "image_alt_en",
            fields={"image_alt_en": "Random dots", "_save": "Save"},
            files={"image": ("dots.png", image, "image/png")},
        )
        expect_saved(saved, "/question/", "the question")
        page = administrator.get("/en/admin/quizzes/guide/add/")
        guide = administrator.submit(
            page,
            "slug",
            fields={
                "slug": "operations",
                "title_en": "Running a site",
                "url": "https://daleel.test/ops",
                "_save": "Save",
            },
        )
        expect_saved(guide, "/guide/", "the guide")
        guide_id = manage.shell(
            "import json; from quizzes.models import Guide; "
            "print(json.dumps({'pk': Guide.objects.get(slug='operations').pk}))"
        )["pk"]
        page = administrator.get(f"/en/admin/quizzes/quiz/{ids['quiz']}/change/")
        published = administrator.submit(
            page,
            "is_published",
            fields={"is_published": "on", "guide": str(guide_id), "_save": "Save"},
        )
        expect_saved(published, "/quiz/", "the published quiz")

    learner = site.browser()
    with step("a learner signs up (the verification mail through the worker) and signs in"):
        signed_up = sign_up(learner, "learner", "learner@daleel.test", learner_password)
        expect(signed_up.status_code == 200, f"sign-up answered {signed_up.status_code}")
        verification = mail.wait_for("learner@daleel.test")
        link = re.search(
            r"https?://\S+/confirm-email/\S+/", verification.get_body(("plain",)).get_content()
        )
        expect(link is not None and link.group(0).startswith(origin + "/"), f"link: {link}")
        confirm = learner.get(link.group(0))
        learner.submit(confirm, "csrfmiddlewaretoken", action="confirm-email")
        learner = site.browser()  # another day, another browser
        back = sign_in(learner, "learner", learner_password)
        expect("learner" in back.text and back.url == origin + "/en/", f"not signed in: {back.url}")

    with step("the instructor's image served to the learner"):
        quiz = learner.get("/en/quizzes/deploy-check/")
        step_page = learner.submit(quiz, "csrfmiddlewaretoken", action="/start/")
        source = re.search(r'<img[^>]+src="([^"]*/media/quizzes/[0-9a-f]+\.png)"', step_page.text)
        expect(source is not None, f"no image on the learner's question ({step_page.url})")
        served = learner.get(source.group(1))
        expect(served.status_code == 200, f"the image answered {served.status_code}")
        expect(served.headers.get("Content-Type") == "image/png", "not served as a PNG")
        if site.proxy:
            expect("nginx" in served.headers.get("Server", ""), "the image was not nginx's")
            expect("X-Request-ID" not in served.headers, "the image went through the app")
        expect(
            Image.open(io.BytesIO(served.content)).size == Image.open(io.BytesIO(image)).size,
            "the image served is not the one uploaded",
        )
        answered = learner.submit(step_page, "choice", fields={"choice": str(ids["wrong"])})
        expect(answered.status_code == 200, f"the answer answered {answered.status_code}")

    with step("a review reminder mailed by the worker links to SITE_ORIGIN"):
        manage.shell(
            "import json; from django.utils import timezone; "
            "from accounts.models import Profile; from quizzes.models import ReviewCard; "
            "Profile.objects.filter(user__username='learner').update(reminder_hour=0, "
            "reminded_on=None); "
            "n = ReviewCard.objects.filter(user__username='learner').update(due=timezone.now()); "
            "print(json.dumps({'cards': n}))"
        )
        manage("send_review_reminders")
        reminder = mail.wait_for("learner@daleel.test", body_has="/review/")
        body = reminder.get_body(("plain",)).get_content()
        links = re.findall(r"https?://[^\s>]+", body)
        expect(origin + "/en/review/" in links, f"no review link to {origin}: {links}")
        expect(all(link.startswith(origin + "/") for link in links), f"links: {links}")

    with step("metrics: refused without the token, counting every process with it"):
        scraper = site.browser().session
        refused = scraper.get(origin + "/metrics", timeout=10)
        wrong = scraper.get(origin + "/metrics", headers={"Authorization": "Bearer nope"})
        expect(
            refused.status_code == 401 and wrong.status_code == 401,
            f"without the token: {refused.status_code}, {wrong.status_code}",
        )
        scraped = scraper.get(
            origin + "/metrics", headers={"Authorization": f"Bearer {metrics_token}"}, timeout=10
        )
        expect(scraped.status_code == 200, f"with the token: {scraped.status_code}")
        samples = {
            (sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(scraped.text)
            for sample in family.samples
        }

        def total(name: str, **labels: str) -> float:
            return sum(
                value
                for (sample, sample_labels), value in samples.items()
                if sample == name and set(labels.items()) <= set(sample_labels)
            )

        expect(
            total("daleel_http_requests_total", view="quizzes:catalog", status="200") >= 1,
            "no catalog request counted",
        )
        expect(total("daleel_attempts_started_total") == 1, "the attempt not counted")
        expect(total("daleel_answers_recorded_total") == 1, "the answer not counted")
        expect(total("daleel_db_query_duration_seconds_count") > 0, "no statement timed")
        expect(total("daleel_cache_operation_duration_seconds_count") > 0, "no Redis op timed")
        expect(
            total("daleel_http_request_duration_seconds_count", view="quizzes:catalog") >= 1,
            "no catalog latency",
        )
        # Counted by the worker, a process of its own, and added up by the web's scrape.
        expect(
            total("daleel_tasks_finished_total", task="accounts.mail.deliver", status="SUCCESSFUL")
            >= 1,
            "the worker's mail tasks not counted",
        )
        expect(total("daleel_tasks", state="scheduled") >= 1, "the hourly task not scheduled")
        expect(("daleel_task_oldest_due_age_seconds", ()) in samples, "no queue age")

    with step("a forced error reaches the error reports, scrubbed, with its request id"):
        page = administrator.get("/en/admin/error-report-test/")
        failed = administrator.submit(
            page, "error_report_test", fields=SECRETS, params={"token": QUERY_SECRET}
        )
        expect(failed.status_code == 500, f"the test error answered {failed.status_code}")
        request_id = failed.headers.get("X-Request-ID", "")
        event, raw = reports.wait_for(
            lambda event: any(
                value.get("type") == "ErrorReportTest"
                for value in event.get("exception", {}).get("values", [])
            )
        )
        tags = event.get("tags", {})
        expect(tags.get("request_id") == request_id, f"request id {tags} vs {request_id}")
        release = (state / "release.env").read_text().strip().removeprefix("RELEASE=")
        expect(event.get("release") == release, f"release {event.get('release')} != {release}")
        expect(
            event.get("environment") == "deploy-check", f"environment {event.get('environment')}"
        )
        kept = {
            **SECRETS,
            "query": QUERY_SECRET,
            "admin's password": admin.password,
            "admin's address": admin.email,
            **{f"cookie {cookie.name}": cookie.value for cookie in administrator.session.cookies},
        }
        for what, secret in kept.items():
            expect(secret.encode() not in raw, f"the report holds the {what}")
        expect(admin.username.encode() not in raw, "the report names the administrator")

    with step("a failed task reaches the error reports with its task"):
        sign_up(site.browser(), "bounced", "refused@daleel.test", learner_password)
        event, _raw = reports.wait_for(
            lambda event: event.get("tags", {}).get("task") == "accounts.mail.deliver_template"
        )
        expect(event["tags"].get("task_id"), "no task id on the failed task's report")

    with step("logs: one JSON line per request and per task, with its ids"):
        web = json_lines(processes.log("daleel-web.service"))
        requests_logged = [line for line in web if line.get("logger") == "daleel.requests"]
        home_line = [
            line for line in requests_logged if line.get("request_id") == seen["home_request_id"]
        ]
        expect(len(home_line) == 1, f"the home page's line: {home_line}")
        expect(
            home_line[0]["view"] == "quizzes:catalog"
            and home_line[0]["status"] == 200
            and isinstance(home_line[0]["duration_ms"], float),
            f"{home_line[0]}",
        )
        expect(any(line.get("user_id") for line in requests_logged), "no line names a user")
        if site.proxy:
            access = nginx_log.read_text()
            expect(f"id={seen['home_request_id']}" in access, "nginx logged another id")
        worker = json_lines(processes.log("daleel-worker.service"))
        tasks = [line for line in worker if line.get("logger") == "daleel.tasks"]
        expect(
            any(
                line["status"] == "SUCCESSFUL" and line["task"] == "accounts.mail.deliver"
                for line in tasks
            ),
            f"no line for a mail sent: {tasks[:3]}",
        )
        expect(
            any(line["status"] == "FAILED" and "exception" in line for line in tasks),
            "no line, with its traceback, for the failed task",
        )
