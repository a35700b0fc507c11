"""make deploy-check: the stack deploy/ describes, started on loopback from a production
install, then a smoke test of what an operator counts on (deploy/smoke.py). Its last line is
`deploy-check: ok` or `deploy-check: FAILED <step>: <why>`.

As root, as CI runs it: PostgreSQL from .ci/postgres.sh runs as the postgres user, and the
site as the `daleel` system user, as the units say (created here when missing). Under a
folder of its own, removed at the end (DEPLOY_CHECK_KEEP=1 keeps it, with every log):
- the release's files (git's tracked files, as they are in the work tree) in
  srv/daleel/app, installed by deploy/release into srv/daleel/venv: `pip install .` without
  the dev extras, then `check --deploy`, `migrate` and `collectstatic` with deploy/daleel.env
  filled in as an operator fills it;
- PostgreSQL and Redis on free loopback ports (bench/services.py);
- daleel-web.service and daleel-worker.service started as systemd starts them: their User,
  WorkingDirectory, EnvironmentFile, Environment, UMask, ExecStartPre and ExecStart, with
  their paths (/srv/daleel, /etc/daleel, /var/lib/daleel, /run/daleel) moved under the folder;
- nginx with deploy/nginx-daleel.conf (TLS with a certificate made for 127.0.0.1), when
  nginx is installed; otherwise (or with DEPLOY_CHECK_PROXY=none) the fallback
  docs/operations.md describes: gunicorn serves TLS itself and the app serves the images
  (SERVE_MEDIA=true);
- a mail server and an error-report endpoint of our own (deploy/fakes.py).
"""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import re
import secrets
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
sys.path.insert(0, str(ROOT))

from bench import services  # noqa: E402

USER = "daleel"
SYSTEMD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class Failed(Exception):
    pass


def say(message: str) -> None:
    print(f"deploy-check: {message}", flush=True)


@contextlib.contextmanager
def step(name: str) -> Iterator[None]:
    started = time.monotonic()
    try:
        yield
    except Failed:
        raise
    except Exception as error:
        raise Failed(f"{name}: {type(error).__name__}: {error}") from error
    say(f"{name} ({time.monotonic() - started:.1f} s)")


# systemd's files, read as systemd reads them (the parts deploy/'s files use).
def read_environment_file(path: Path) -> dict[str, str]:
    """An EnvironmentFile: KEY=value lines, comments (# or ;) on lines of their own, a value
    in single or double quotes taken without them."""
    environment = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        name, _equals, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        environment[name.strip()] = value
    return environment


def write_environment_file(path: Path, environment: dict[str, str]) -> None:
    """As deploy/daleel.env asks: a value with spaces in double quotes, none with $, `, \\
    or a double quote (systemd and the shell would read them differently)."""
    lines = []
    for name, value in environment.items():
        if re.search(r"[\"$`\\]", value):
            raise Failed(f"{name}'s value {value!r} cannot be written for systemd and sh alike")
        lines.append(
            f'{name}="{value}"' if re.search(r"[\s<>|&;()#']", value) else f"{name}={value}"
        )
    path.write_text("\n".join(lines) + "\n")


def read_unit(text: str) -> dict[str, list[str]]:
    """A unit's [Service] section: each key's values, in order."""
    section, service = "", {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[Service]":
            key, _equals, value = line.partition("=")
            service.setdefault(key.strip(), []).append(value.strip())
    return service


@dataclass
class Layout:
    """Where each of deploy/'s absolute paths lives in this run."""

    top: Path
    places: dict[str, Path] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.places = {
            "/srv/daleel/app": self.top / "srv/daleel/app",
            "/srv/daleel/venv": self.top / "srv/daleel/venv",
            "/etc/daleel": self.top / "etc/daleel",
            "/var/lib/daleel": self.top / "var/lib/daleel",
            "/run/daleel": self.top / "run/daleel",
            "/var/log/nginx": self.top / "var/log/nginx",
            "/etc/letsencrypt/live/quiz.example.org": self.top / "etc/letsencrypt",
            "/var/www/html": self.top / "var/www/html",
        }

    def __getitem__(self, path: str) -> Path:
        return self.places[path]

    def moved(self, text: str) -> str:
        for original, here in self.places.items():
            text = text.replace(original, str(here))
        return text


def tracked_files(destination: Path) -> None:
    """The release as git knows it: its tracked files as they are in the work tree."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = ROOT / name.decode()
        if source.is_file():
            target = destination / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def ensure_user() -> None:
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(
            [
                "useradd",
                "--system",
                "--user-group",
                "--home-dir",
                "/nonexistent",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                USER,
            ],
            check=True,
        )


def site_python(top: Path) -> str:
    """A Python 3.12 the daleel user can run, as on a server (/usr/local, /opt). This one's
    may live where only root reaches (pyenv under /root, as on CI's machines): then a copy of
    it under the run's folder, found through its own lib/ (patchelf: Debian's package)."""
    base = Path(sys.base_prefix)
    python = base / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    reachable = subprocess.run(
        ["runuser", "-u", USER, "--", str(python), "-c", "pass"], capture_output=True
    )
    if reachable.returncode == 0:
        return str(python)
    copy = top / "opt" / "python"
    copy.mkdir(parents=True)
    subprocess.run(
        f"tar -C {shlex.quote(str(base))} --exclude=./lib/python3.12/test "
        f"--exclude=./lib/python3.12/site-packages --exclude='*.a' -cf - "
        f"bin/{python.name} lib | tar -C {shlex.quote(str(copy))} -xf -",
        shell=True,
        check=True,
    )
    (copy / "lib/python3.12/site-packages").mkdir(exist_ok=True)
    copied = copy / "bin" / python.name
    subprocess.run(["patchelf", "--set-rpath", "$ORIGIN/../lib", str(copied)], check=True)
    for path in [copy.parent, copy, *copy.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o444 | (0o111 if path.is_dir() else 0))
    return str(copied)


def certificate(folder: Path) -> None:
    """A self-signed certificate for 127.0.0.1, as certbot would leave one (fullchain.pem,
    privkey.pem)."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fullchain.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "privkey.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )


def as_site_user(folder: Path) -> None:
    user = pwd.getpwnam(USER)
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, user.pw_uid, user.pw_gid)


class Processes:
    """The long-running processes started here, each logging to its own file; stopped as
    systemd stops them (SIGTERM, then SIGKILL)."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.running: list[tuple[str, subprocess.Popen]] = []

    def start(self, name: str, command: list[str], **options) -> subprocess.Popen:
        log = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 (the process keeps it)
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, **options)
        self.running.append((name, process))
        return process

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text(errors="replace")

    def check_alive(self) -> None:
        for name, process in self.running:
            if process.poll() is not None:
                raise Failed(f"{name} exited with {process.returncode}:\n{self.log(name)[-3000:]}")

    def stop(self) -> None:
        for _name, process in reversed(self.running):
            if process.poll() is None:
                process.terminate()
        for _name, process in reversed(self.running):
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def unit_environment(service: dict[str, list[str]]) -> dict[str, str]:
    """What systemd gives a unit's processes: its user's basics, its EnvironmentFiles (a
    leading `-`: read if present), then its Environment lines."""
    user = pwd.getpwnam(service["User"][0])
    environment = {
        "PATH": SYSTEMD_PATH,
        "LANG": "C.UTF-8",
        "HOME": user.pw_dir,
        "USER": user.pw_name,
        "LOGNAME": user.pw_name,
    }
    for entry in service.get("EnvironmentFile", []):
        optional = entry.startswith("-")
        path = Path(entry.lstrip("-"))
        if optional and not path.exists():
            continue
        environment |= read_environment_file(path)
    for entry in service.get("Environment", []):
        for assignment in shlex.split(entry):
            name, _equals, value = assignment.partition("=")
            environment[name] = value
    return environment


def start_unit(name: str, layout: Layout, processes: Processes) -> subprocess.Popen:
    service = read_unit(layout.moved((DEPLOY / name).read_text()))
    options = {
        "env": unit_environment(service),
        "cwd": service["WorkingDirectory"][0],
        "user": service["User"][0],
        "group": service["Group"][0],
        "extra_groups": [],
        "umask": int(service.get("UMask", ["0022"])[0], 8),
        "start_new_session": True,
    }
    for directory in service.get("RuntimeDirectory", []):
        runtime = layout["/run/daleel"].parent / directory
        runtime.mkdir(parents=True, exist_ok=True)
        as_site_user(runtime)
    for command in service.get("ExecStartPre", []):
        done = subprocess.run(shlex.split(command), capture_output=True, text=True, **options)
        if done.returncode != 0:
            raise Failed(f"{name}'s ExecStartPre {command!r}: {done.stderr[-3000:]}")
    return processes.start(name, shlex.split(service["ExecStart"][0]), **options)


NGINX_MAIN = """\
# Debian's /etc/nginx/nginx.conf, less its other sites, with its files in this run's folder.
user www-data;
worker_processes 1;
pid {top}/run/nginx.pid;
error_log {top}/var/log/nginx/error.log;
events {{
    worker_connections 256;
}}
http {{
    sendfile on;
    tcp_nopush on;
    types_hash_max_size 2048;
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    ssl_prefer_server_ciphers on;
    gzip on;
    client_body_temp_path {top}/var/lib/nginx/body;
    proxy_temp_path {top}/var/lib/nginx/proxy;
    fastcgi_temp_path {top}/var/lib/nginx/fastcgi;
    uwsgi_temp_path {top}/var/lib/nginx/uwsgi;
    scgi_temp_path {top}/var/lib/nginx/scgi;
    access_log {top}/var/log/nginx/access.log;
    include {top}/etc/nginx/sites-enabled/daleel;
}}
"""


def nginx_site(layout: Layout, *, http: int, https: int, app: int) -> str:
    """deploy/nginx-daleel.conf with this run's paths, loopback ports and host name: only
    those change (each must be found, so that the file still reads as this expects)."""
    text = layout.moved((DEPLOY / "nginx-daleel.conf").read_text())
    changes = [
        ("    listen 80;\n", f"    listen 127.0.0.1:{http};\n"),
        ("    listen [::]:80;\n", ""),
        ("    listen 443 ssl http2;\n", f"    listen 127.0.0.1:{https} ssl http2;\n"),
        ("    listen [::]:443 ssl http2;\n", ""),
        ("server_name quiz.example.org;", "server_name 127.0.0.1;"),
        ("server 127.0.0.1:8000;", f"server 127.0.0.1:{app};"),
    ]
    for old, new in changes:
        if old not in text:
            raise Failed(f"deploy/nginx-daleel.conf has no {old.strip()!r} any more")
        text = text.replace(old, new)
    return text


def start_nginx(layout: Layout, processes: Processes, *, http: int, https: int, app: int):
    top = layout.top
    for folder in ["etc/nginx/sites-enabled", "var/log/nginx", "var/www/html"]:
        (top / folder).mkdir(parents=True, exist_ok=True)
    temp = top / "var/lib/nginx"
    for name in ["body", "proxy", "fastcgi", "uwsgi", "scgi"]:
        (temp / name).mkdir(parents=True, exist_ok=True)
    www = pwd.getpwnam("www-data")
    for path in [temp, *temp.rglob("*")]:
        os.chown(path, www.pw_uid, grp.getgrnam("www-data").gr_gid)
    (top / "etc/nginx/sites-enabled/daleel").write_text(
        nginx_site(layout, http=http, https=https, app=app)
    )
    main = top / "etc/nginx/nginx.conf"
    main.write_text(NGINX_MAIN.format(top=top))
    tested = subprocess.run(["nginx", "-t", "-c", str(main)], capture_output=True, text=True)
    if tested.returncode != 0:
        raise Failed(f"nginx -t: {tested.stderr}")
    processes.start("nginx", ["nginx", "-c", str(main), "-g", "daemon off;"])
    services._wait_for_port(https, 10)


def missing() -> list[str]:
    problems = services.missing_tools()
    if shutil.which("patchelf") is None:
        problems.append("patchelf")
    if os.geteuid() != 0:
        problems.append("root (PostgreSQL runs as the postgres user, the site as daleel)")
    return problems


def main() -> int:
    started = time.monotonic()
    problems = missing()
    if problems:
        say(f"FAILED: needs {', '.join(problems)} (`make system-packages` as root)")
        return 1
    proxy = shutil.which("nginx") is not None and os.environ.get("DEPLOY_CHECK_PROXY") != "none"
    say(f"the stack of deploy/ with {'nginx' if proxy else 'no proxy (the fallback)'}")
    top = Path(tempfile.mkdtemp(prefix="daleel-deploy-check."))
    top.chmod(0o755)
    layout = Layout(top)
    processes = Processes(top)
    try:
        with contextlib.ExitStack() as stack:
            run(layout, processes, stack, proxy=proxy)
    except Failed as failure:
        say(f"FAILED {failure}")
        if os.environ.get("DEPLOY_CHECK_KEEP"):
            say(f"kept {top}")
        return 1
    finally:
        processes.stop()
        if not os.environ.get("DEPLOY_CHECK_KEEP"):
            shutil.rmtree(top, ignore_errors=True)
    say(f"every step passed in {time.monotonic() - started:.0f} s")
    say("ok")
    return 0


def run(layout: Layout, processes: Processes, stack: contextlib.ExitStack, *, proxy: bool):
    from deploy import fakes, smoke

    top = layout.top
    with step("the daleel user, the release's files and its folders"):
        ensure_user()
        tracked_files(layout["/srv/daleel/app"])
        for place in ["/etc/daleel", "/var/lib/daleel/media", "/var/lib/daleel/static", "/run"]:
            Path(layout.moved(place) if place != "/run" else top / "run").mkdir(
                parents=True, exist_ok=True
            )
        as_site_user(layout["/var/lib/daleel"])
        for folder in [top / "srv", top / "etc", top / "var", top / "run"]:
            folder.chmod(0o755)
    with step("PostgreSQL, Redis, a mail server and an error-report endpoint on loopback"):
        database = stack.enter_context(services.postgres_server())
        redis = stack.enter_context(services.redis_server())
        mail = fakes.MailServer(services.free_port())
        mail.start()
        stack.callback(mail.stop)
        reports = fakes.ErrorReports(services.free_port())
        reports.start()
        stack.callback(reports.stop)

    app_port, https_port, http_port = (services.free_port() for _ in range(3))
    origin = f"https://127.0.0.1:{https_port if proxy else app_port}"
    certificates = layout["/etc/letsencrypt/live/quiz.example.org"]
    certificate(certificates)
    metrics_token = secrets.token_urlsafe(32)
    with step("deploy/daleel.env filled in as an operator fills it"):
        environment = read_environment_file(DEPLOY / "daleel.env")
        gunicorn = f"--bind 127.0.0.1:{app_port} --workers 2"
        filled = {
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": "127.0.0.1",
            "CSRF_TRUSTED_ORIGINS": origin,
            "SITE_ORIGIN": origin,
            "DATABASE_URL": database.url,
            "REDIS_URL": redis.url,
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(mail.port),
            "EMAIL_USE_TLS": "false",
            "EMAIL_HOST_USER": "",
            "EMAIL_HOST_PASSWORD": "",
            "DEFAULT_FROM_EMAIL": "Daleel <noreply@daleel.test>",
            "METRICS_TOKEN": metrics_token,
            "SENTRY_DSN": reports.dsn,
            "SENTRY_ENVIRONMENT": "deploy-check",
        }
        if not proxy:
            # The fallback: gunicorn ends TLS, Django serves the images.
            certs = f"--certfile {certificates}/fullchain.pem --keyfile {certificates}/privkey.pem"
            gunicorn += f" {certs}"
            filled |= {"BEHIND_TLS_PROXY": "false", "SERVE_MEDIA": "true"}
        unfilled = {
            name
            for name, value in environment.items()
            if ("change-me" in value or "example.org" in value) and name not in filled
        }
        if unfilled:
            raise Failed(f"deploy/daleel.env has placeholders this check does not fill: {unfilled}")
        environment = {name: layout.moved(value) for name, value in (environment | filled).items()}
        # GUNICORN_CMD_ARGS: gunicorn's own variable, as docs/operations.md changes the bind.
        environment["GUNICORN_CMD_ARGS"] = gunicorn
        env_file = layout["/etc/daleel"] / "daleel.env"
        write_environment_file(env_file, environment)
        env_file.chmod(0o640)
        os.chown(env_file, 0, grp.getgrnam(USER).gr_gid)

    places = {
        "DALEEL_APP": str(layout["/srv/daleel/app"]),
        "DALEEL_VENV": str(layout["/srv/daleel/venv"]),
        "DALEEL_ENV": str(env_file),
        "DALEEL_STATE": str(layout["/var/lib/daleel"]),
    }
    with step("deploy/release: pip install . (no dev extras), check --deploy, migrate, static"):
        released = subprocess.run(
            ["bash", str(layout["/srv/daleel/app"] / "deploy/release")],
            env={**os.environ, **places, "PYTHON": site_python(top)},
            capture_output=True,
            text=True,
        )
        if released.returncode != 0:
            raise Failed(f"{released.stdout[-2000:]}\n{released.stderr[-4000:]}")
        installed = subprocess.run(
            [
                str(layout["/srv/daleel/venv"] / "bin/python"),
                "-m",
                "pip",
                "list",
                "--format=freeze",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.lower()
        for dev_only in ["pytest", "playwright", "hypothesis", "moto", "aiosmtpd"]:
            if f"{dev_only}==" in installed:
                raise Failed(f"the production install holds {dev_only}, a dev extra")

    manage = smoke.Manage(layout["/srv/daleel/app"] / "deploy/manage", places, USER)
    with step("the first administrator: createsuperuser"):
        admin = smoke.Admin(password=secrets.token_urlsafe(16))
        manage(
            "createsuperuser",
            "--noinput",
            "--username",
            admin.username,
            "--email",
            admin.email,
            env={"DJANGO_SUPERUSER_PASSWORD": admin.password},
        )

    with step("daleel-web and daleel-worker started as their units say"):
        start_unit("daleel-web.service", layout, processes)
        start_unit("daleel-worker.service", layout, processes)
        services._wait_for_port(app_port, 60)
        if proxy:
            start_nginx(layout, processes, http=http_port, https=https_port, app=app_port)
        processes.check_alive()

    site = smoke.Site(
        origin=origin,
        certificate=certificates / "fullchain.pem",
        http_origin=f"http://127.0.0.1:{http_port}" if proxy else None,
        proxy=proxy,
    )
    smoke.run(
        site=site,
        admin=admin,
        manage=manage,
        mail=mail,
        reports=reports,
        processes=processes,
        metrics_token=metrics_token,
        state=layout["/var/lib/daleel"],
        nginx_log=layout["/var/log/nginx"] / "daleel.access.log",
        step=step,
    )
    processes.check_alive()


if __name__ == "__main__":
    sys.exit(main())
