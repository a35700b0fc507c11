"""Throwaway services on 127.0.0.1 for the benchmark and the scale-out check.

PostgreSQL comes from .ci/postgres.sh (root: it runs initdb as the postgres user), Redis from
Debian's redis-server, the site from gunicorn with production settings (DEBUG off). Each is a
context manager that stops what it started and removes its folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv" / "bin" / "python"
GUNICORN = ROOT / ".venv" / "bin" / "gunicorn"


# Root processes of what is running, by kind ("app", "postgres", "redis"), for cpu_seconds().
RUNNING: dict[str, list[int]] = {}
_TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(kind: str) -> float:
    """CPU time used so far by the processes of `kind` and all their descendants alive now."""
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                # after the name: state ppid ... utime (14th field) stime (15th)
                stats[int(entry.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
    wanted = set(RUNNING.get(kind, []))
    grew = True
    while grew:
        more = {pid for pid, (ppid, _) in stats.items() if ppid in wanted} - wanted
        wanted |= more
        grew = bool(more)
    return sum(stats[pid][1] for pid in wanted if pid in stats) / _TICK


def log(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_port(port: int, seconds: float, process: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"process on port {port} exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {seconds} s")


def missing_tools() -> list[str]:
    """Debian packages whose programs this machine lacks."""
    missing = []
    if not list(Path("/usr/lib/postgresql").glob("*/bin/initdb")):
        missing.append("postgresql")
    if shutil.which("redis-server") is None:
        missing.append("redis-server")
    return missing


@dataclass
class Postgres:
    """A throwaway PostgreSQL server that can be stopped and started again (an outage)."""

    url: str
    folder: str
    bin: str
    port: int

    def _run(self, function: str) -> None:
        where = {"PG_DIR": self.folder, "PG_BIN": self.bin, "PG_PORT": str(self.port)}
        subprocess.run(
            ["bash", "-c", f"source .ci/postgres.sh && {function}"],
            cwd=ROOT,
            env={**os.environ, **where},
            check=True,
        )

    def stop(self, *, crash: bool = False) -> None:
        """Stop the server, keeping its data; open connections are cut. A crash stops every
        server process at once, before any open transaction can end."""
        self._run("pg_down immediate" if crash else "pg_down")

    def start(self) -> None:
        self._run("pg_up")


@contextlib.contextmanager
def postgres_server() -> Iterator[Postgres]:
    """A fresh PostgreSQL server with an empty `daleel` database."""
    port = free_port()
    script = 'source .ci/postgres.sh && pg_start "$1" && echo "$PG_DIR $PG_BIN $DATABASE_URL"'
    started = subprocess.run(
        ["bash", "-c", script, "pg_start", str(port)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    pg_dir, pg_bin, database_url = started.stdout.split()
    postmaster = int((Path(pg_dir) / "data" / "postmaster.pid").read_text().split()[0])
    RUNNING.setdefault("postgres", []).append(postmaster)
    try:
        yield Postgres(database_url, pg_dir, pg_bin, port)
    finally:
        RUNNING["postgres"].remove(postmaster)
        subprocess.run(
            ["bash", "-c", "source .ci/postgres.sh && pg_stop"],
            cwd=ROOT,
            env={**os.environ, "PG_DIR": pg_dir, "PG_BIN": pg_bin},
            check=False,
        )


@contextlib.contextmanager
def postgres() -> Iterator[str]:
    """A fresh PostgreSQL server with an empty `daleel` database; yields its DATABASE_URL."""
    with postgres_server() as server:
        yield server.url


class Redis:
    """A Redis on a free loopback port, without persistence, that can be stopped and started
    again on the same port (an outage)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.folder = tempfile.mkdtemp(prefix="daleel-redis.")
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--dir",
                self.folder,
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
                "--loglevel",
                "warning",
                "--logfile",
                str(Path(self.folder) / "log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        RUNNING.setdefault("redis", []).append(self.process.pid)
        _wait_for_port(self.port, 10, self.process)

    def stop(self) -> None:
        if self.process is None:
            return
        RUNNING["redis"].remove(self.process.pid)
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None


@contextlib.contextmanager
def redis_server() -> Iterator[Redis]:
    server = Redis()
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.folder, ignore_errors=True)


@contextlib.contextmanager
def redis() -> Iterator[str]:
    """A fresh Redis on a free loopback port, without persistence; yields its REDIS_URL."""
    with redis_server() as server:
        yield server.url


def site_env(database_url: str, redis_url: str, static_root: Path, **extra: str) -> dict[str, str]:
    """The environment of a production server on plain-HTTP loopback."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        # No TLS on loopback: no redirect to https, no HSTS.
        SECURE_SSL_REDIRECT="false",
        SECURE_HSTS_SECONDS="0",
        # What production refuses to start without (config/checks.py): the site's origin,
        # and a mail server or the word that there is none (nothing here reads mail).
        SITE_ORIGIN="http://127.0.0.1",
        EMAIL_DISABLED="true",
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        STATIC_ROOT=str(static_root),
        PYTHONDONTWRITEBYTECODE="1",
    )
    env.update(extra)
    return env


def site_task(env: dict[str, str], *args: str):
    """Run a bench/site_tasks.py command in the site's environment; returns its JSON."""
    done = subprocess.run(
        [str(PYTHON), str(ROOT / "bench" / "site_tasks.py"), *args],
        cwd=ROOT,
        env=env,
        check=False,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"bench/site_tasks.py {args[0]} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def prepare_site(env: dict[str, str]) -> None:
    """Static files, schema and the seed quizzes, as a deployment would."""
    site_task(env, "prepare")


@contextlib.contextmanager
def gunicorn(
    env: dict[str, str], *, count: int = 1, workers: int = 2, threads: int = 2, log_dir: Path
) -> Iterator[list[str]]:
    """`count` gunicorn servers of `workers` workers on free loopback ports, started together;
    yields their base URLs.

    gthread workers: like sync workers each runs one request at a time per thread, but they
    keep connections alive, as a load balancer's pool would use them (a sync worker closes
    every connection, and the load generator would measure TCP handshakes). Two threads let
    a worker use the CPU while its other request waits on PostgreSQL.
    """
    processes, ports = [], []
    try:
        for _ in range(count):
            port = free_port()
            with open(log_dir / f"gunicorn-{port}.log", "wb") as output:
                processes.append(
                    subprocess.Popen(
                        [
                            str(GUNICORN),
                            "bench.wsgi:application",
                            "--bind",
                            f"127.0.0.1:{port}",
                            "--workers",
                            str(workers),
                            "--worker-class",
                            "gthread",
                            "--threads",
                            str(threads),
                            "--backlog",
                            "256",
                            "--graceful-timeout",
                            "5",
                            "--log-level",
                            "warning",
                        ],
                        cwd=ROOT,
                        env=env,
                        stdout=output,
                        stderr=subprocess.STDOUT,
                    )
                )
            ports.append(port)
        urls = [f"http://127.0.0.1:{port}" for port in ports]
        for port, process, url in zip(ports, processes, urls, strict=True):
            _wait_for_port(port, 60, process)
            _wait_for_healthz(url, 30)
        RUNNING.setdefault("app", []).extend(process.pid for process in processes)
        yield urls
    finally:
        for process in processes:
            if process.pid in RUNNING.get("app", []):
                RUNNING["app"].remove(process.pid)
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_for_healthz(base_url: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(f"{base_url}/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
