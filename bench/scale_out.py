"""Scale-out proof: two gunicorn servers on one PostgreSQL and one Redis are one site.

One learner signs up on server A, signs out and in again on B, and takes both seed quizzes
with every request going to the other server than the one before (plain forms for one
quiz, htmx for the other). A second learner makes the same choices on server A alone. Their
results must be the same. Then an instructor's edit, saved through the ORM as the admin
saves it, must show on both servers at once: quiz content is cached per version in Redis.

    python bench/scale_out.py    # starts its own PostgreSQL, Redis and two servers

bench/benchmark.py runs the same check against the benchmark's database and cache.
"""

from __future__ import annotations

import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: import bench.* from the project folder
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import services
from bench.browser import Browser, Response, choice_ids, score_of

PASSWORD = "scale-out-passphrase-7"  # noqa: S105 — a throwaway learner on a throwaway site
STEP = re.compile(r"/en/attempts/(\d+)/questions/(\d+)/")
VERDICTS = re.compile(r"review__item--(right|wrong|unanswered)")


class ScaleOutError(AssertionError):
    pass


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise ScaleOutError(message)


@dataclass
class Outcome:
    score: str
    verdicts: list[str]
    prompts: list[str]


class Learner:
    """A browser whose every request goes to the next server in turn."""

    def __init__(self, servers: list[str]) -> None:
        self.servers = servers
        self.turn = 0
        self.browser = Browser(servers[0])
        self.log: list[str] = []
        self.responses: list[tuple[str, str, bool, Response]] = []

    def _next(self) -> str:
        server = self.servers[self.turn % len(self.servers)]
        self.turn += 1
        return server

    def get(self, path: str, *, htmx: bool = False) -> Response:
        server = self._next()
        response = self.browser.get(path, htmx=htmx, base_url=server)
        self.log.append(f"GET {server}{path} -> {response.status}")
        self.responses.append(("GET", path, htmx, response))
        return response

    def post(self, path: str, data: dict | None = None, *, htmx: bool = False) -> Response:
        server = self._next()
        response = self.browser.post(path, data, htmx=htmx, base_url=server)
        self.log.append(f"POST {server}{path} -> {response.status}")
        self.responses.append(("POST", path, htmx, response))
        expect(response.status != 403, f"CSRF or permission refused: POST {server}{path}")
        return response

    def sign_up(self, username: str) -> None:
        self.get("/en/accounts/signup/")
        response = self.post(
            "/en/accounts/signup/",
            {"username": username, "password1": PASSWORD, "password2": PASSWORD},
        )
        expect(response.status == 302, f"sign-up of {username} failed: {response.status}")

    def sign_out_and_in(self, username: str) -> None:
        expect(self.post("/en/accounts/logout/").status == 302, "sign-out failed")
        expect("sessionid" not in self.browser.cookies, "the session survived sign-out")
        self.get("/en/accounts/login/")
        response = self.post("/en/accounts/login/", {"login": username, "password": PASSWORD})
        expect(response.status == 302, f"sign-in of {username} failed: {response.status}")

    def take(self, slug: str, picks: list[int], *, htmx: bool) -> Outcome:
        """Take the quiz, choosing the `picks[n]`-th choice (by position) of question n."""
        page = self.get(f"/en/quizzes/{slug}/")
        expect(page.status == 200 and "Start quiz" in page.text, f"quiz page {slug}")
        started = self.post(f"/en/quizzes/{slug}/start/", htmx=htmx)
        location = started.header("HX-Push-Url" if htmx else "Location") or ""
        match = STEP.search(location)
        expect(match is not None and match[2] == "1", f"start went to {location!r}")
        attempt = match[1]
        form = started.text if htmx else self.get(location).text
        for number, pick in enumerate(picks, 1):
            step = f"/en/attempts/{attempt}/questions/{number}/"
            if number > 1:  # the Next link (htmx) or the page (plain forms)
                form = self.get(step, htmx=htmx).text
            choices = choice_ids(form)
            expect(len(choices) >= 2, f"question {number} shows no choices")
            answered = self.post(step, {"choice": choices[pick]}, htmx=htmx)
            if htmx:
                expect(answered.status == 200, f"answer {number}: {answered.status}")
                feedback = answered.text
            else:
                expect(answered.status == 302, f"answer {number}: {answered.status}")
                feedback = self.get(step).text
            expect("feedback--" in feedback, f"no feedback after answer {number}")
        result = self.get(f"/en/attempts/{attempt}/result/")
        expect(result.status == 200, f"result: {result.status}")
        score = score_of(result.text)
        expect(score is not None, "no score on the result page")
        prompts = re.findall(r'class="review__prompt">(.*?)</h3>', result.text, re.S)
        return Outcome(score, VERDICTS.findall(result.text), prompts)


def plans_for(content: dict) -> dict[str, list[int]]:
    """Per quiz, which choice (by position) to pick for each question: right on two questions
    in three, wrong on the others."""
    plans = {}
    for index, (slug, quiz) in enumerate(sorted(content.items())):
        plans[slug] = [
            choices.index(right) if (n + index) % 3 else (choices.index(right) + 1) % len(choices)
            for n, (choices, right) in enumerate(zip(quiz["choices"], quiz["correct"], strict=True))
        ]
    return plans


def run(servers: list[str], single: str, env: dict[str, str], tag: str = "scale") -> dict:
    """The check; returns what it saw. Raises ScaleOutError on any difference."""
    plans = plans_for(services.site_task(env, "content"))
    alternating = Learner(servers)
    alone = Learner([single])
    outcomes = {}
    for learner, name in ((alternating, f"{tag}-alternating"), (alone, f"{tag}-alone")):
        learner.sign_up(name)
        if learner is alternating:  # a session begun on one server, signed in on the other
            learner.sign_out_and_in(name)
        outcomes[name] = {
            slug: learner.take(slug, plan, htmx=index % 2 == 1)
            for index, (slug, plan) in enumerate(sorted(plans.items()))
        }
    across, one = outcomes[f"{tag}-alternating"], outcomes[f"{tag}-alone"]
    for slug in plans:
        expect(
            across[slug] == one[slug],
            f"{slug}: across servers {across[slug]} but on one server {one[slug]}",
        )
    servers_used = {line.split()[1].split("/en/")[0] for line in alternating.log}
    expect(servers_used == set(servers), f"requests went to {servers_used} only")

    # An instructor's edit on the shared database shows on every server at once.
    slug = sorted(plans)[0]
    new_prompt = f"Edited while two servers run ({tag})?"
    services.site_task(env, "edit", slug, "1", new_prompt)
    for server in servers:
        page = alternating.browser.get(f"/en/quizzes/{slug}/", base_url=server)
        expect(new_prompt in page.text, f"{server} still shows the old question 1 of {slug}")

    return {
        "requests": len(alternating.log),
        "scores": {slug: across[slug].score for slug in sorted(plans)},
    }


def main() -> int:
    missing = services.missing_tools()
    if missing:
        print(f"scale-out: missing Debian packages: {' '.join(missing)}", file=sys.stderr)
        return 2
    with (
        tempfile.TemporaryDirectory(prefix="daleel-scale.") as folder,
        services.postgres() as database_url,
        services.redis() as redis_url,
    ):
        folder = Path(folder)
        env = services.site_env(database_url, redis_url, folder / "static")
        services.prepare_site(env)
        with services.gunicorn(env, count=2, workers=1, log_dir=folder) as (a, b):
            try:
                seen = run([a, b], a, env)
            except ScaleOutError as error:
                for log in folder.glob("gunicorn-*.log"):
                    sys.stderr.write(log.read_text())
                print(f"scale-out: FAILED: {error}")
                return 1
    print(
        f"scale-out: ok, {seen['requests']} requests alternating between 2 servers, "
        f"same results as one server: {seen['scores']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
