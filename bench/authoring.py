"""Benchmark: a quiz's one admin page at the size instructors work at (issue 50).

    .venv/bin/python -m bench.authoring [--settings production|dev] [--rounds R]

For the seed quizzes and generated quizzes of 10, 60 and 100 questions of every kind (KIND_MIX's
proportions, tests/factories.py), an administrator signed in through the sign-in form (and its
second factor, with production settings) opens the quiz's page and saves it as a browser
without JavaScript sends it (every field, each empty file input as a part: the most a save
sends), its title edited. Requests go through Django's WSGI handler in this process (as
bench/cpu.py does: no server, no network client), so a request's CPU time is the site's own;
wall time adds the database's answers and, on a busy machine, the wait for a core.

  production  DEBUG off, a throwaway PostgreSQL and Redis (bench/services.py), static files
              collected, as `make bench` serves the site
  dev         DEBUG on, SQLite in a scratch folder, the caches `make run` uses

Prints per quiz (medians of --rounds):

    bench: authoring NAME Q questions: page C ms CPU W ms wall, S KB, F fields; save C ms
    CPU W ms wall

then the growth per question between 10 and 100, and a last line `bench: authoring targets
met` or `bench: authoring targets MISSED: …` against issue 50's targets: the 100-question page
in at most 1 s and 2 MB of HTML, each seed quiz's page at most 300 KB, the 100-question save in
at most 2 s (CPU time, the server's own share of a request).
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as a script: import bench.* from the project folder
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

import brotli

from bench.cpu import Site, _csrf_cookie, served

PASSWORD = "a-bench-passphrase-for-the-admin"
TARGETS = {"page_ms": 1000, "page_kb": 2000, "seed_kb": 300, "save_ms": 2000}
SIZES = (10, 60, 100)


def _measure(
    call: Callable[[], tuple[int, dict, bytes]], expect: int
) -> tuple[float, float, bytes]:
    """(CPU ms, wall ms, the body as sent before compression) of one request; the request
    asks for compression as browsers do, so the page's compression is in its time."""
    cpu, wall = time.process_time(), time.perf_counter()
    status, headers, body = call()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if status != expect:
        raise SystemExit(f"bench: authoring: status {status}, expected {expect}")
    encoding = headers.get("content-encoding", [""])[0]
    if encoding == "gzip":
        body = gzip.decompress(body)
    elif encoding == "br":
        body = brotli.decompress(body)
    return cpu * 1000, wall * 1000, body


class Administrator:
    """An administrator's session, made through the sign-in form (and the second factor)."""

    def __init__(self, site: Site, *, second_factor: bool) -> None:
        from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret, hotp_value
        from django.contrib.auth import get_user_model

        self.site = site
        user = get_user_model().objects.create_superuser(
            "bench-admin", "bench-admin@example.org", PASSWORD
        )
        secret = generate_totp_secret()
        if second_factor:
            TOTP.activate(user, secret)
        status, headers, _body = site.call("GET", "/en/accounts/login/")
        token = _csrf_cookie(headers)
        self.cookies = {"csrftoken": token}
        status, headers, _body = self.post(
            "/en/accounts/login/", f"login=bench-admin&password={PASSWORD}".encode()
        )
        assert status == 302, f"sign-in: {status}"
        self._keep(headers)
        if second_factor:
            code = f"{hotp_value(secret, int(time.time()) // 30):06d}"
            status, headers, _body = self.post(
                "/en/accounts/2fa/authenticate/", f"code={code}".encode()
            )
            assert status == 302, f"second factor: {status}"
            self._keep(headers)

    def _keep(self, headers: dict[str, list[str]]) -> None:
        from http.cookies import SimpleCookie

        for line in headers.get("set-cookie", []):
            for name, morsel in SimpleCookie(line).items():
                self.cookies[name] = morsel.value

    def get(self, path: str):
        status, headers, body = self.site.call("GET", path, cookies=self.cookies)
        self._keep(headers)
        return status, headers, body

    def post(self, path: str, body: bytes, content_type: str = "application/x-www-form-urlencoded"):
        status, headers, content = self.site.call(
            "POST",
            path,
            cookies=self.cookies,
            headers={"X-CSRFToken": self.cookies["csrftoken"], "Referer": "http://127.0.0.1/"},
            body=body,
            content_type=content_type,
        )
        self._keep(headers)
        return status, headers, content


def measure(admin: Administrator, quiz, rounds: int) -> dict[str, float]:
    from tests.admin_posts import MULTIPART, browser_form, multipart_body

    url = f"/en/admin/quizzes/quiz/{quiz.pk}/change/"
    admin.get(url)  # warm: templates, the content's first read
    pages, saves = [], []
    for round_ in range(rounds):
        pages.append(_measure(lambda: admin.get(url), 200))
        page = pages[-1][2].decode()
        form = browser_form(page, "quiz_form")
        body = multipart_body(form, {"title_en": f"{quiz.title_en} ({round_})", "_continue": "1"})
        saves.append(_measure(lambda body=body: admin.post(url, body, MULTIPART), 302))
    return {
        "questions": quiz.questions.count(),
        "page_cpu": statistics.median(p[0] for p in pages),
        "page_wall": statistics.median(p[1] for p in pages),
        "page_kb": len(pages[-1][2]) / 1000,
        "fields": len(form.fields) + len(form.files),
        "save_cpu": statistics.median(s[0] for s in saves),
        "save_wall": statistics.median(s[1] for s in saves),
    }


def report(results: dict[str, dict[str, float]], seeds: list[str]) -> int:
    for name, r in results.items():
        print(
            f"bench: authoring {name} {r['questions']:.0f} questions: page {r['page_cpu']:.0f} ms "
            f"CPU {r['page_wall']:.0f} ms wall, {r['page_kb']:.0f} KB, {r['fields']:.0f} fields; "
            f"save {r['save_cpu']:.0f} ms CPU {r['save_wall']:.0f} ms wall"
        )
    small, large = results["every-kind-10"], results["every-kind-100"]
    per = {
        key: (large[key] - small[key]) / (large["questions"] - small["questions"])
        for key in ("page_cpu", "page_kb", "save_cpu")
    }
    print(
        f"bench: authoring per question: page {per['page_cpu']:.1f} ms CPU, "
        f"{per['page_kb']:.1f} KB; save {per['save_cpu']:.1f} ms CPU"
    )
    missed = []
    if large["page_cpu"] > TARGETS["page_ms"]:
        missed.append(f"100-question page {large['page_cpu']:.0f} ms > {TARGETS['page_ms']}")
    if large["page_kb"] > TARGETS["page_kb"]:
        missed.append(f"100-question page {large['page_kb']:.0f} KB > {TARGETS['page_kb']}")
    if large["save_cpu"] > TARGETS["save_ms"]:
        missed.append(f"100-question save {large['save_cpu']:.0f} ms > {TARGETS['save_ms']}")
    for name in seeds:
        if results[name]["page_kb"] > TARGETS["seed_kb"]:
            missed.append(f"{name} {results[name]['page_kb']:.0f} KB > {TARGETS['seed_kb']}")
    if missed:
        print("bench: authoring targets MISSED: " + "; ".join(missed))
        return 1
    print("bench: authoring targets met")
    return 0


def run(site: Site, rounds: int, *, second_factor: bool) -> int:
    from quizzes.models import Quiz
    from tests.factories import make_quiz_of_every_kind

    admin = Administrator(site, second_factor=second_factor)
    seeds = list(Quiz.objects.order_by("slug"))
    quizzes = {quiz.slug: quiz for quiz in seeds}
    for size in SIZES:
        quizzes[f"every-kind-{size}"] = make_quiz_of_every_kind(size, is_published=False)
    results = {name: measure(admin, quiz, rounds) for name, quiz in quizzes.items()}
    return report(results, [quiz.slug for quiz in seeds])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--settings", choices=["production", "dev"], default="production")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"bench: authoring with {args.settings} settings", flush=True)
    if args.settings == "dev":
        with tempfile.TemporaryDirectory(prefix="daleel-authoring-") as scratch:
            os.environ.update(
                DATABASE_URL=f"sqlite:///{scratch}/dev.sqlite3",
                DJANGO_SETTINGS_MODULE="bench.settings",
                DEBUG="true",
                ALLOWED_HOSTS="127.0.0.1",
                MEDIA_ROOT=scratch,
            )
            import django
            from django.core.management import call_command

            django.setup()
            call_command("migrate", verbosity=0)
            call_command("seed_quizzes", verbosity=0)
            return run(Site(), args.rounds, second_factor=False)
    with served() as site:
        return run(site, args.rounds, second_factor=True)


if __name__ == "__main__":
    sys.exit(main())
