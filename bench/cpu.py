"""CPU per request, in one process: where a learner's request spends its time.

`make bench` measures rates under load; this measures the CPU one request costs, which is
what a change to the step's code moves, and it can profile it. It serves the production
settings (DEBUG off) on a throwaway PostgreSQL and Redis, as the benchmark does, but calls
Django's WSGI handler directly in this process: no server, no network client, so the CPU time
of a request (`time.process_time`, this process only) is the site's own.

  python -m bench.cpu                          every phase, the median CPU per request
  python -m bench.cpu --requests 500           more requests per phase
  python -m bench.cpu --profile question       cProfile of one phase, 40 lines by cumulative time
  python -m bench.cpu --rounds 3               phases interleaved, three rounds
  python -m bench.cpu --phases catalog,search  these phases only (and the signed-in floor)
  python -m bench.cpu --grow 10000             the site grown first as `make bench`'s catalog
                                               phase grows it (bench/site_tasks.py catalog)

Phases: healthz, signed-in (the floor of a request that knows its learner), question (a step
as htmx's Next asks for it), page (a step as a whole page), answer (htmx's POST of an answer,
walking attempts of the seed quizzes to their last answer), catalog (the first page, signed
in), search (`make bench`'s catalog search, as htmx asks for its results). With `--grow N`,
N more published quizzes and progress on them for the learners are made before the phases
(untimed), so the catalog and the search are timed at the size `make bench` times them at
(CATALOG_QUIZZES). The ratios to the signed-in floor are printed as `make bench` prints its rates'.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from http.cookies import SimpleCookie
from pathlib import Path

if __package__ in (None, ""):  # run as a script: import bench.* from the project folder
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import services

PHASES = ("healthz", "signed-in", "question", "page", "answer", "catalog", "search")


class Site:
    """The site's WSGI handler, called as a server would, with one learner's cookies."""

    def __init__(self) -> None:
        # The application gunicorn serves (config/wsgi.py: its collector settings too).
        from config.wsgi import application

        self.handler = application

    def call(
        self,
        method: str,
        path: str,
        *,
        cookies: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        body: bytes = b"",
        content_type: str = "application/x-www-form-urlencoded",
        query: str = "",
        sink: Callable[[bytes], object] | None = None,
    ) -> tuple[int, dict[str, list[str]], bytes]:
        """One request; its status, headers and body. With `sink`, each chunk of the body
        goes to it as the response yields it and the body returned is empty (a client that
        saves a download as it comes keeps none of it)."""
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
            "HTTP_HOST": "127.0.0.1",
            "HTTP_ACCEPT_ENCODING": "gzip, deflate, br",
            "HTTP_ACCEPT_LANGUAGE": "en",
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(body),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
            "CONTENT_LENGTH": str(len(body)),
        }
        if body:
            environ["CONTENT_TYPE"] = content_type
        if cookies:
            environ["HTTP_COOKIE"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        for name, value in (headers or {}).items():
            environ["HTTP_" + name.upper().replace("-", "_")] = value
        got: dict[str, object] = {}

        def start_response(status: str, response_headers, exc_info=None):  # noqa: ANN001
            got["status"] = int(status.split()[0])
            got["headers"] = response_headers

        response = self.handler(environ, start_response)
        try:
            if sink is None:
                content = b"".join(response)
            else:
                content = b""
                for chunk in response:
                    sink(chunk)
        finally:
            if hasattr(response, "close"):
                response.close()
        headers_by_name: dict[str, list[str]] = {}
        for name, value in got["headers"]:  # type: ignore[attr-defined]
            headers_by_name.setdefault(name.lower(), []).append(value)
        return got["status"], headers_by_name, content  # type: ignore[return-value]


@contextlib.contextmanager
def served() -> Iterator[Site]:
    """The site with the production settings on a throwaway PostgreSQL and Redis (the seed
    quizzes loaded), served in this process."""
    with (
        services.postgres() as database_url,
        services.redis() as redis_url,
        tempfile.TemporaryDirectory() as static_root,
    ):
        env = services.site_env(database_url, redis_url, Path(static_root))
        services.prepare_site(env)
        os.environ.update(env)
        os.environ["DJANGO_SETTINGS_MODULE"] = "bench.settings"
        import django

        django.setup()
        yield Site()


def _csrf_cookie(headers: dict[str, list[str]]) -> str | None:
    for line in headers.get("set-cookie", []):
        cookie = SimpleCookie(line)
        if "csrftoken" in cookie:
            return cookie["csrftoken"].value
    return None


class Learners:
    """Learners with sessions and attempts of the seed quizzes, made untimed beforehand."""

    def __init__(self, site: Site, count: int) -> None:
        from bench import site_tasks

        self.site = site
        self.prefix = f"cpu{time.time_ns() % 10**8}"
        self.made = site_tasks.create(count, prefix=self.prefix)
        self.content = site_tasks.content()
        self.slugs = sorted(self.content)

    def cookies(self, index: int) -> dict[str, str]:
        return {"sessionid": self.made[index % len(self.made)]["session"]}

    def start(self, index: int, slug: str) -> tuple[int, dict[str, str]]:
        """Start `slug` for learner `index` over HTTP, as Start does; (attempt pk, cookies
        with the CSRF cookie)."""
        cookies = self.cookies(index)
        status, headers, _body = self.site.call("GET", f"/en/quizzes/{slug}/", cookies=cookies)
        assert status == 200, status
        token = _csrf_cookie(headers)
        assert token, "no CSRF cookie"
        cookies = {**cookies, "csrftoken": token}
        status, headers, _body = self.site.call(
            "POST",
            f"/en/quizzes/{slug}/start/",
            cookies=cookies,
            headers={"X-CSRFToken": token},
        )
        assert status == 302, status
        location = headers["location"][0]
        return int(location.split("/attempts/")[1].split("/")[0]), cookies


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def _timed(call: Callable[[], tuple[int, dict, bytes]], expect: int = 200) -> float:
    started = time.process_time()
    status, _headers, _body = call()
    spent = time.process_time() - started
    if status != expect:
        raise SystemExit(f"unexpected status {status} (expected {expect})")
    return spent


def _servers_cpu() -> float:
    return services.cpu_seconds("postgres") + services.cpu_seconds("redis")


def phases(site: Site, learners: Learners, requests: int) -> dict[str, Iterator[float]]:
    """Per phase, an endless iterator of one request's CPU seconds."""

    def healthz() -> Iterator[float]:
        while True:
            yield _timed(lambda: site.call("GET", "/healthz"))

    def signed_in() -> Iterator[float]:
        cookies = learners.cookies(0)
        while True:
            yield _timed(lambda: site.call("GET", "/bench/signed-in", cookies=cookies))

    # Attempts in progress on their first step, read again and again.
    readers = [learners.start(1 + n, learners.slugs[n % len(learners.slugs)]) for n in range(4)]

    def question() -> Iterator[float]:
        n = 0
        while True:
            pk, cookies = readers[n % len(readers)]
            n += 1
            yield _timed(
                lambda pk=pk, cookies=cookies: site.call(
                    "GET",
                    f"/en/attempts/{pk}/questions/1/",
                    cookies=cookies,
                    headers={"HX-Request": "true", "HX-Current-URL": "http://127.0.0.1/"},
                )
            )

    def page() -> Iterator[float]:
        n = 0
        while True:
            pk, cookies = readers[n % len(readers)]
            n += 1
            yield _timed(
                lambda pk=pk, cookies=cookies: site.call(
                    "GET", f"/en/attempts/{pk}/questions/1/", cookies=cookies
                )
            )

    def answer() -> Iterator[float]:
        learner = 10
        while True:
            slug = learners.slugs[learner % len(learners.slugs)]
            content = learners.content[slug]
            pk, cookies = learners.start(learner, slug)
            learner += 1
            for number, (question, choices, right) in enumerate(
                zip(content["questions"], content["choices"], content["correct"], strict=True),
                start=1,
            ):
                # Right and wrong answers in turn: a miss writes its review card.
                picked = right if number % 2 else next(c for c in choices if c != right)
                body = f"question={question}&choice={picked}".encode()
                yield _timed(
                    lambda body=body, number=number, pk=pk, cookies=cookies: site.call(
                        "POST",
                        f"/en/attempts/{pk}/questions/{number}/",
                        cookies=cookies,
                        headers={
                            "HX-Request": "true",
                            "X-CSRFToken": cookies["csrftoken"],
                            "HX-Current-URL": "http://127.0.0.1/",
                        },
                        body=body,
                    )
                )

    def catalog() -> Iterator[float]:
        cookies = learners.cookies(2)
        while True:
            yield _timed(lambda: site.call("GET", "/en/", cookies=cookies))

    def search() -> Iterator[float]:
        from bench.benchmark import CATALOG_SEARCH

        path, query = CATALOG_SEARCH.split("?")
        cookies = learners.cookies(2)
        while True:
            yield _timed(
                lambda: site.call(
                    "GET", path, query=query, cookies=cookies, headers={"HX-Request": "true"}
                )
            )

    return {
        "healthz": healthz(),
        "signed-in": signed_in(),
        "question": question(),
        "page": page(),
        "answer": answer(),
        "catalog": catalog(),
        "search": search(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=300, help="per phase and round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--profile", choices=PHASES, help="cProfile this phase instead")
    parser.add_argument("--lines", type=int, default=40)
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="the profile's clock: cpu leaves out the time spent waiting for PostgreSQL",
    )
    parser.add_argument(
        "--phases",
        default=",".join(PHASES),
        help="the phases timed, comma-separated (signed-in always: the floor)",
    )
    parser.add_argument(
        "--grow", type=int, default=0, metavar="N", help="N more quizzes first, as make bench"
    )
    args = parser.parse_args()

    with served() as site:
        learners = Learners(site, count=2000)
        if args.grow:
            from bench import site_tasks

            made = site_tasks.catalog(args.grow, prefix=learners.prefix)
            print(f"grown: {made['quizzes']} more quizzes, {made['attempts']} attempts on them")
        wanted = {"signed-in", args.profile, *args.phases.split(",")} - {None}
        if unknown := wanted - set(PHASES):
            parser.error(f"unknown phases: {', '.join(sorted(unknown))}")
        runs = {
            name: run
            for name, run in phases(site, learners, args.requests).items()
            if name in wanted
        }
        for iterator in runs.values():  # warm: imports, caches, the pool's connection
            for _ in range(20):
                next(iterator)
        if args.profile:
            profiler = (
                cProfile.Profile(time.process_time) if args.clock == "cpu" else cProfile.Profile()
            )
            iterator = runs[args.profile]
            profiler.enable()
            for _ in range(args.requests):
                next(iterator)
            profiler.disable()
            if os.environ.get("CPU_PROFILE_OUT"):
                profiler.dump_stats(os.environ["CPU_PROFILE_OUT"])
            stats = pstats.Stats(profiler)
            stats.sort_stats("cumulative").print_stats(args.lines)
            stats.sort_stats("tottime").print_stats(args.lines)
            return
        samples: dict[str, list[float]] = {name: [] for name in runs}
        # The CPU PostgreSQL and Redis spend for each phase's requests (their processes'
        # clock ticks, too coarse for one request: summed over a phase's batches).
        servers = dict.fromkeys(runs, 0.0)
        for _round in range(args.rounds):
            for name, iterator in runs.items():  # interleaved: noise weighs on all alike
                before = _servers_cpu()
                samples[name].extend(next(iterator) for _ in range(args.requests))
                servers[name] += _servers_cpu() - before
        floor = _median_ms(samples["signed-in"])
        for name in runs:
            ms = _median_ms(samples[name])
            database = 1000 * servers[name] / len(samples[name])
            print(
                f"{name:10} {ms:7.2f} ms CPU/request   {floor / ms:5.2f} of the signed-in floor"
                f"   PostgreSQL and Redis {database:5.2f} ms/request"
            )


if __name__ == "__main__":
    main()
