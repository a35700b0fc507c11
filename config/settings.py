"""Daleel settings: local defaults that just run, every production knob an environment variable.

In the manner of healthchecks.io's settings: nothing exists only in production; production
differs from a laptop only by the environment it is given.
"""

import os
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

from config.env import (
    env_bool,
    env_float,
    env_int,
    env_list,
    env_minutes,
    env_networks,
    env_prepare_threshold,
    package_version,
)
from config.languages import translated_field_label
from config.logs import logging_settings

BASE_DIR = Path(__file__).resolve().parent.parent


DEBUG = env_bool("DEBUG", True)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off: export SECRET_KEY=<a long random string>."
        )
    SECRET_KEY = "django-insecure-local-development-only"  # noqa: S105 — DEBUG only

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    # modeltranslation must come before the admin to patch its forms.
    "modeltranslation",
    # Django's admin, named Daleel's and with our apps first (config/admin_site.py).
    "config.admin_site.DaleelAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    # The queue of background tasks (TASKS, below) in the database, and its `db_worker`.
    "config.library_apps.TasksConfig",
    "config.library_apps.AxesConfig",
    # Sign-up, sign-in, reset, email addresses (django-allauth), and two-factor sign-in.
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "accounts",
    "quizzes",
    # LTI 1.3: Daleel as a tool inside an LMS (lti/).
    "lti",
    # Only for its migration: the table of the database cache (CACHES, below).
    "config",
]

MIDDLEWARE = [
    # First: its request id, log line and timing cover everything below (config/observe.py).
    "config.observe.request_observed",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Above the rest, so that even a response made by a middleware below (a 400 for a host
    # that is not allowed) carries the CSP and may not be framed; static files need neither.
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django.middleware.gzip.GZipMiddleware",
    # Inside the two above (they read the framing it allows) and outside the session and CSRF
    # middlewares (it marks their cookies third-party): only for sessions launched by LTI.
    "lti.middleware.lti_embedding",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After sessions (it may read the language a learner chose) and before CommonMiddleware
    # (which must see the language-prefixed URL when it appends slashes).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Reads a POST before CSRF's check does, to answer one over the upload limits with a page
    # that says so (after authentication: the admin's page knows its instructor).
    "config.uploads.upload_limits",
    "accounts.middleware.private_when_signed_in",
    # After authentication: the signed-in learner's time zone (Profile.time_zone).
    "accounts.middleware.learner_time_zone",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # Staff without a second factor go to set one up before any admin page (DEBUG off).
    "accounts.middleware.staff_two_factor",
    # Last, so that it sees failed sign-ins after every other middleware ran.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "quizzes.context_processors.frame",
                "quizzes.context_processors.review_due",
            ],
        },
    },
    {
        # The learner's step (quizzes/views/steps.py) and its frame, written with Jinja2:
        # quizzes/jinja2/ (quizzes/jinja_pages.py). Its strings: `make messages`, via Babel.
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "NAME": "jinja2",
        "DIRS": [BASE_DIR / "quizzes" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {
            "environment": "quizzes.jinja_pages.environment",
            "context_processors": [
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "quizzes.context_processors.frame",
                "quizzes.context_processors.review_due",
            ],
        },
    },
]

# Database: a SQLite file next to the code by default, any DATABASE_URL otherwise.
DATABASE_URL = os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")
DATABASES = {"default": dj_database_url.parse(DATABASE_URL)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {
        # WAL lets readers run beside a writer; IMMEDIATE takes the write lock at the start
        # of a transaction so concurrent writers wait (busy timeout) instead of failing.
        "init_command": (
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
        ),
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
    # Tests run on a file, not in memory, so that concurrent requests meet SQLite's real locking.
    DATABASES["default"]["TEST"] = {
        "NAME": os.environ.get(
            "SQLITE_TEST_NAME",
            str(Path(tempfile.gettempdir()) / f"daleel-test-{os.getpid()}.sqlite3"),
        )
    }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's psycopg 3 connection pool; a pool wants CONN_MAX_AGE 0.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # The pool checks a connection before handing it out, so that after PostgreSQL restarts
    # the first requests get new connections, not the dead ones the pool kept.
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    DATABASES["default"]["OPTIONS"] = {
        # Parameters bound by the server and statements prepared on a connection after their
        # fifth use: PostgreSQL plans a step's statements once per pooled connection instead
        # of on every request. Behind PgBouncer in transaction mode, set DB_PREPARE_THRESHOLD
        # to "off" unless it is 1.21 or later with max_prepared_statements.
        "server_side_binding": True,
        "prepare_threshold": env_prepare_threshold(),
        # A server that does not answer at all (a host gone, a firewall dropping packets)
        # fails a connection attempt after this long instead of the operating system's minutes.
        "connect_timeout": env_int("DB_CONNECT_TIMEOUT", 3),
        "pool": {
            "min_size": env_int("DB_POOL_MIN_SIZE", 2),
            "max_size": env_int("DB_POOL_MAX_SIZE", 10),
            # How long a request waits for a connection before it answers 503: while
            # PostgreSQL is down, every request waits this long.
            "timeout": env_float("DB_POOL_TIMEOUT", 5),
            # How long the pool retries a failed connection, waiting 1, 2, 4 … seconds between
            # tries, before it gives up and lets the next request try afresh. psycopg_pool's
            # default, five minutes, let the waits grow past a minute during an outage: after
            # PostgreSQL came back, requests still got 503 for up to 90 s. With 5 s, the longest
            # wait is 4 s, so the site serves again within seconds of PostgreSQL's return.
            "reconnect_timeout": env_float("DB_POOL_RECONNECT_SECONDS", 5),
        },
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


# The release this process runs: the cache keys carry it, so a deploy never reads what the
# previous release pickled (its classes may have changed).
RELEASE = os.environ.get("RELEASE", "").strip() or package_version()
CACHE_KEY_PREFIX = f"daleel-{RELEASE}"

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {
            # django-redis, serving from the database while Redis is unreachable
            # (config/cache.py), with short timeouts so that a hung Redis cannot hang workers.
            "BACKEND": "config.cache.OutageTolerantRedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {
                "SOCKET_CONNECT_TIMEOUT": env_float("REDIS_CONNECT_TIMEOUT", 0.5),
                "SOCKET_TIMEOUT": env_float("REDIS_SOCKET_TIMEOUT", 0.5),
                "RETRY_SECONDS": env_float("REDIS_RETRY_SECONDS", 5),
            },
        }
    }
elif DEBUG and not env_bool("DALEEL_SHARED_DEV_CACHE", False):
    # The test suite's processes: each its own memory, emptied between tests.
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
else:
    # With DEBUG on, every process that manage.py starts (manage.py sets
    # DALEEL_SHARED_DEV_CACHE) shares this cache too: `make run`'s server, its task worker and
    # a `manage.py shell`, so that a quiz a script adds shows in the catalog at once (the
    # catalog's generation lives here: quizzes/content.py), as in production.
    # Without Redis, production still needs one cache that every process shares: a session
    # ended in one worker must not live on in another's memory. Django's database cache, in a
    # table that a migration creates (config/migrations), so `migrate` is all it needs.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "daleel_cache",
            # Every session is an entry too: cull (a third at a time) only past this many.
            "OPTIONS": {"MAX_ENTRIES": 10_000},
        }
    }
# Each process's own memory, for what is keyed by a version and so never changes: quiz
# content per content version (quizzes/content.py) and template fragments that show content
# only ({% cache ... using="local" %}). Nothing of one learner goes here.
CACHES["local"] = {
    "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
    "LOCATION": "daleel-local",
    "TIMEOUT": 60 * 60,
    "OPTIONS": {"MAX_ENTRIES": env_int("LOCAL_CACHE_ENTRIES", 5000)},
}
# The database's cache table, whatever `default` is: what must outlive Redis and be shared by
# every process while it is away (accounts/limits.py: wrong second-factor codes, used
# authenticator-app codes, and every limit's count during an outage).
CACHES["database"] = {
    "BACKEND": "django.core.cache.backends.db.DatabaseCache",
    "LOCATION": "daleel_cache",
    "OPTIONS": {"MAX_ENTRIES": 10_000},
}
for alias in CACHES.values():
    alias["KEY_PREFIX"] = CACHE_KEY_PREFIX

# Sessions are read from the cache, and from the database when the cache misses (emptied, or
# Redis unreachable): a learner stays signed in through either.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

# One backend checks passwords, so a failed sign-in hashes the password once: allauth's, which
# matches usernames case-insensitively (as django-axes counts them: AXES_USERNAME_CALLABLE) and
# signs in passkeys (allauth.mfa). It is Django's ModelBackend underneath (permissions).
# Sessions signed in before it was the only one (by "django.contrib.auth.backends.ModelBackend")
# end once, at the upgrade.
SIGN_IN_BACKEND = "allauth.account.auth_backends.AuthenticationBackend"
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", SIGN_IN_BACKEND]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    {"NAME": "accounts.validators.NotOnlySpacesValidator"},
]

CSRF_FAILURE_VIEW = "quizzes.views.errors.csrf_failure"

# Mail (password reset), Django 6.1's MAILERS. With DEBUG on and no EMAIL_HOST, mail is printed
# by the run command (the console backend); otherwise it goes through EMAIL_HOST by SMTP, and
# with DEBUG off the site refuses to start without it (config/checks.py) unless EMAIL_DISABLED
# says to send none. (Lower-case names: Django reads only upper-case ones, and the EMAIL_*
# settings are deprecated.)
email_host = os.environ.get("EMAIL_HOST", "")
if env_bool("EMAIL_DISABLED", False):
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.dummy.EmailBackend"}}
elif DEBUG and not email_host:
    MAILERS = {"default": {"BACKEND": "accounts.mail.ReadableConsoleBackend"}}
else:
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": email_host,
                "port": env_int("EMAIL_PORT", 587),
                "username": os.environ.get("EMAIL_HOST_USER", ""),
                "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
                "use_tls": env_bool("EMAIL_USE_TLS", True),
                "timeout": 10,
            },
        }
    }
# Background tasks (Django's tasks framework): mail, and whatever must not hold a request up.
# TASKS_BACKEND=database (the default) queues them in the database for the worker, a process
# of its own (`manage.py db_worker`; `make run` starts one beside the web server);
# TASKS_BACKEND=immediate runs each in the request that queued it, without a worker.
TASKS_BACKENDS = {
    "database": "django_tasks_db.DatabaseBackend",
    "immediate": "django.tasks.backends.immediate.ImmediateBackend",
}
TASKS = {"default": {"BACKEND": TASKS_BACKENDS[os.environ.get("TASKS_BACKEND", "database")]}}
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Daleel <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# A reset link works once (its token hashes the password it replaces) and for one hour.
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_TIMEOUT_MINUTES", 60) * 60
# Limits (accounts/limits.py), counted atomically in the cache and, while it is unreachable,
# in each process's memory: sign-ups and password resets per client address, mail per
# address, email changes per learner; question reports and data downloads per learner.
# Accounts one client address may create in an hour; 0: no limit.
SIGNUP_LIMIT_PER_HOUR = env_int("SIGNUP_LIMIT_PER_HOUR", 20)
PASSWORD_RESET_RATE_PER_EMAIL = os.environ.get("PASSWORD_RESET_RATE_PER_EMAIL", "3/h")
PASSWORD_RESET_RATE_PER_CLIENT = os.environ.get("PASSWORD_RESET_RATE_PER_CLIENT", "10/h")
EMAIL_CHANGE_RATE = os.environ.get("EMAIL_CHANGE_RATE", "5/h")
QUESTION_REPORT_RATE = os.environ.get("QUESTION_REPORT_RATE", "10/h")
# "Download my data" per learner: the costliest page a learner can ask for.
DATA_EXPORT_RATE = os.environ.get("DATA_EXPORT_RATE", "5/h")
# LTI logins (/lti/login/) one client address may start: each is a signed address and, once
# its cookie works, a row until its launch; a class behind one address launches many times.
LTI_LOGIN_RATE_PER_CLIENT = os.environ.get("LTI_LOGIN_RATE_PER_CLIENT", "300/h")
# Failed sign-ins from one client address, whatever the usernames (password spraying); one
# username's failures from one address are django-axes' (AXES_FAILURE_LIMIT, below).
SIGN_IN_FAILURE_RATE_PER_CLIENT = os.environ.get("SIGN_IN_FAILURE_RATE_PER_CLIENT", "30/15m")
# Wrong second-factor codes (authenticator app, recovery codes) per account and per client
# address, after the right password (accounts.second_factor).
SECOND_FACTOR_RATE_PER_ACCOUNT = os.environ.get("SECOND_FACTOR_RATE_PER_ACCOUNT", "5/15m")
SECOND_FACTOR_RATE_PER_CLIENT = os.environ.get("SECOND_FACTOR_RATE_PER_CLIENT", "20/15m")

# django-allauth: accounts by username, with an email address that is used (reset, reminders)
# once it is verified by a link; a learner starts at once after signing up.
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_FORMS = {
    "signup": "accounts.forms.SignupForm",
    "reset_password": "accounts.reset.ResetPasswordForm",
}
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "optional"
ACCOUNT_EMAIL_VERIFICATION_BY_CODE_ENABLED = False
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = False
# No page says whether an address has an account: a taken address at sign-up or email change
# is answered as a free one, and its owner is told by mail (accounts.adapter).
ACCOUNT_PREVENT_ENUMERATION = "strict"
ACCOUNT_EMAIL_UNKNOWN_ACCOUNTS = True
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_CHANGE_EMAIL = True
# Changing the email address or a second factor asks for the password again (good for five
# minutes): not whoever finds a computer left signed in.
ACCOUNT_REAUTHENTICATION_REQUIRED = True
ACCOUNT_EMAIL_NOTIFICATIONS = True
ACCOUNT_LOGOUT_ON_GET = False
ACCOUNT_LOGOUT_REDIRECT_URL = "quizzes:catalog"
ACCOUNT_SESSION_REMEMBER = True
# allauth's own limits lock a cache key and refuse when the lock cannot be had (every request
# while Redis is away): ours (accounts.limits) count atomically instead; failed sign-ins are
# django-axes' (in the database, below) and ours per client (accounts.signin). Turning them off
# also turns off allauth's only limit on second-factor codes: ours count those too
# (accounts.second_factor, MFA_FORMS).
ACCOUNT_RATE_LIMITS = False
ACCOUNT_EMAIL_SUBJECT_PREFIX = ""

# Two-factor sign-in (allauth.mfa): an authenticator app with recovery codes, and passkeys.
# Required of every staff account before the admin opens when DEBUG is off; offered to all.
MFA_ADAPTER = "accounts.adapter.MFAAdapter"
MFA_FORMS = {
    "add_webauthn": "accounts.forms.AddWebAuthnForm",
    # Wrong codes counted and limited (accounts.second_factor).
    "authenticate": "accounts.second_factor.AuthenticateForm",
    "reauthenticate": "accounts.second_factor.ReauthenticateForm",
}
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes", "webauthn"]
MFA_PASSKEY_LOGIN_ENABLED = True
MFA_TOTP_ISSUER = os.environ.get("MFA_TOTP_ISSUER", "Daleel")
# WebAuthn needs a secure context; http://localhost counts, for `make run` and browser tests.
MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = DEBUG
# Always with DEBUG off (no variable turns it off in production); MFA_REQUIRED_FOR_STAFF=true
# requires it under DEBUG too, to try the setup locally.
MFA_REQUIRED_FOR_STAFF = not DEBUG or env_bool("MFA_REQUIRED_FOR_STAFF", False)

LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "quizzes:catalog"
LOGOUT_REDIRECT_URL = "quizzes:catalog"

# Lock out a username from one address after repeated failures, so that one shared campus
# address cannot lock everybody out and one attacker cannot lock out a learner everywhere.
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = env_int("AXES_COOLOFF_MINUTES", 15) / 60  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_LOCKOUT_CALLABLE = "accounts.views.locked_out"
# The username as sign-in matches it (case-folded): `Alice` is `alice`'s count, not a new one.
AXES_USERNAME_CALLABLE = "accounts.signin.username_key"
AXES_RESET_ON_SUCCESS = True
AXES_ENABLED = env_bool("AXES_ENABLED", True)

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("ar", _("Arabic"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Our own date and number formats for Arabic (config/formats/ar/formats.py), over Django's.
FORMAT_MODULE_PATH = ["config.formats"]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"

MODELTRANSLATION_DEFAULT_LANGUAGE = "en"
MODELTRANSLATION_FALLBACK_LANGUAGES = {"default": ("en",), "en": ("ar",)}
# «العنوان (بالعربية)», not «العنوان [ar]» (config/languages.py).
MODELTRANSLATION_BUILD_LOCALIZED_VERBOSE_NAME = translated_field_label

# What one request may send. A quiz's page posts every question with its parts: a question
# about 15 fields, a choice 12, each file input left empty counted as a field (a part without a
# file name), unless the page's script leaves those out. Sized for a quiz of 100 questions of up
# to 10 choices each sent without the script (11,626 fields), well past the 1,000 Django starts
# with; images chosen in one save stay at Django's 100. Beyond them the page says what happened
# and how to go on (config/uploads.py), and its script refuses before sending. The text itself
# (not the images) is at most DATA_UPLOAD_MAX_MEMORY_SIZE bytes.
DATA_UPLOAD_MAX_NUMBER_FIELDS = env_int("DATA_UPLOAD_MAX_NUMBER_FIELDS", 15_000)
DATA_UPLOAD_MAX_NUMBER_FILES = env_int("DATA_UPLOAD_MAX_NUMBER_FILES", 100)
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 10 * 1024 * 1024)

STATIC_URL = "/static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
# Uploaded images (questions', choices' and explanations'): the media folder, served by
# config/urls.py while SERVE_MEDIA is on and by the web server in front otherwise; or, with
# MEDIA_STORAGE=s3, any S3-compatible object store through django-storages.
MEDIA_URL = os.environ.get("MEDIA_URL") or "/media/"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT") or BASE_DIR / "media")
# Django itself serves the media folder at MEDIA_URL: for development, or a small site with
# no web server in front (config/urls.py).
SERVE_MEDIA = env_bool("SERVE_MEDIA", DEBUG)
MEDIA_STORAGE = os.environ.get("MEDIA_STORAGE", "filesystem").strip().lower() or "filesystem"
if MEDIA_STORAGE == "filesystem":
    media_storage: dict = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
elif MEDIA_STORAGE == "s3":
    media_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": os.environ.get("AWS_STORAGE_BUCKET_NAME", ""),
            # Another provider's address (MinIO, R2, Spaces…); empty for AWS itself.
            "endpoint_url": os.environ.get("AWS_S3_ENDPOINT_URL") or None,
            "region_name": os.environ.get("AWS_S3_REGION_NAME") or None,
            # The host images are linked from (a CDN or the bucket's public address); empty:
            # the store's own address, signed for each page (AWS_QUERYSTRING_AUTH).
            "custom_domain": os.environ.get("AWS_S3_CUSTOM_DOMAIN") or None,
            "querystring_auth": env_bool("AWS_QUERYSTRING_AUTH", True),
            # A signed link lives well past the hour a rendered step is kept in the cache
            # (take.html's `{% cache 3600 %}`), and a learner's page stays open a while.
            "querystring_expire": env_int("AWS_QUERYSTRING_EXPIRE", 6 * 60 * 60),
            # Signed links in Signature Version 4: AWS refuses version 2 for buckets made since
            # 2020, and boto3 still signs links to us-east-1 in version 2 unless told.
            "signature_version": "s3v4",
            "location": os.environ.get("AWS_LOCATION", ""),
            # The keys, when not from the machine's role: AWS_ACCESS_KEY_ID and
            # AWS_SECRET_ACCESS_KEY, read by django-storages from the environment itself.
            "file_overwrite": False,
            "default_acl": None,
        },
    }
    if not media_storage["OPTIONS"]["bucket_name"]:
        raise ImproperlyConfigured("MEDIA_STORAGE=s3 needs AWS_STORAGE_BUCKET_NAME.")
else:
    raise ImproperlyConfigured("MEDIA_STORAGE is 'filesystem' (the default) or 's3'.")


# The site's public origin ("https://daleel.example.org"), for links made without a request:
# the images of a GIFT file exported by `manage.py export_quiz`. Empty: the request's own.
SITE_ORIGIN = os.environ.get("SITE_ORIGIN", "").strip().rstrip("/")
# With DEBUG on and no SITE_ORIGIN, links made without a request (review reminders) point at
# `make run`'s server, on the port it was given (`PORT=9000 make run`).
DEV_SERVER_ORIGIN = f"http://127.0.0.1:{env_int('PORT', 8000)}"


def media_origins() -> list[str]:
    """The origins images are served from when not this site's: for the CSP's img-src."""
    if MEDIA_STORAGE == "s3":
        options = media_storage["OPTIONS"]
        if options["custom_domain"]:
            return [f"https://{options['custom_domain'].strip('/').split('/')[0]}"]
        if options["endpoint_url"]:
            parts = urlsplit(options["endpoint_url"])
            return [f"{parts.scheme}://{parts.netloc}"]
        bucket, region = options["bucket_name"], options["region_name"]
        hosts = [
            f"{bucket}.s3.amazonaws.com",
            *([f"{bucket}.s3.{region}.amazonaws.com"] * bool(region)),
        ]
        return [f"https://{host}" for host in hosts]
    parts = urlsplit(MEDIA_URL)
    return [f"{parts.scheme}://{parts.netloc}"] if parts.netloc else []


STORAGES = {
    "default": media_storage,
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Security headers. The policy allows nothing inline: scripts and styles come from our own
# static files (htmx through django-htmx's script tag).
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    # Images uploaded to questions come from the media origin when it is another host.
    "img-src": [CSP.SELF, "data:", *media_origins()],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "object-src": [CSP.NONE],
}
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
LANGUAGE_COOKIE_SECURE = not DEBUG
LANGUAGE_COOKIE_SAMESITE = "Lax"
SECURE_HSTS_SECONDS = 0 if DEBUG else env_int("SECURE_HSTS_SECONDS", 60 * 60 * 24 * 365)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
# Preload is for a domain whose every subdomain serves HTTPS for good: browsers ship the list
# and leaving it takes months. An operator opts in; Django's reminder (security.W021) is
# silenced so that `check --deploy` passes without it.
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SILENCED_SYSTEM_CHECKS = ["security.W021"]
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
# Probes and scrapes from the private network, over plain HTTP to an app server.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
if env_bool("BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Proxies in front of the app servers (a load balancer is one): every request then comes from
# a proxy's address, and sign-in lockouts and the sign-up limit must count the client's address
# instead, which the proxies pass on in X-Forwarded-For (accounts/client_ip.py). The header is
# read only from TRUSTED_PROXIES: from anyone else, it is whatever they chose to write.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)  # older setting: at most this many hops
# Loopback only by default (a proxy on the same machine): a campus LAN's private addresses are
# clients too, which must not choose the address their limits count. A proxy on another
# machine is named: TRUSTED_PROXIES=10.0.0.5 (or its network).
LOOPBACK = ["127.0.0.0/8", "::1/128"]
TRUSTED_PROXIES = env_networks("TRUSTED_PROXIES", LOOPBACK)
# Every limit and the sign-in lockout count an IPv6 client by its network of this many bits
# (accounts/client_ip.py: client_key): a host is given a whole /64 and may use any address in
# it. 48 or 56 counts a whole site or subscriber as one client; 128 each address.
CLIENT_IPV6_PREFIX = env_int("CLIENT_IPV6_PREFIX", 64)
if not 1 <= CLIENT_IPV6_PREFIX <= 128:
    raise ImproperlyConfigured("CLIENT_IPV6_PREFIX is a prefix length from 1 to 128 (64).")
AXES_CLIENT_IP_CALLABLE = "accounts.client_ip.client_key"

# Spaced review (quizzes/review/scheduler.py): FSRS spreads due dates by a random fuzz so that cards
# learned together do not all come back on one day; tests turn it off for exact dates.
REVIEW_FUZZING = env_bool("REVIEW_FUZZING", True)


# FSRS's learning steps (a first miss) and relearning steps (a miss of a card in review), in
# minutes: a missed question comes back within the session before whole-day intervals.
REVIEW_LEARNING_STEPS_MINUTES = env_minutes("REVIEW_LEARNING_STEPS_MINUTES", ["1", "10"])
REVIEW_RELEARNING_STEPS_MINUTES = env_minutes("REVIEW_RELEARNING_STEPS_MINUTES", ["10"])

# Logs go to standard error: under deploy/'s systemd units, to the journal
# (`journalctl -u daleel-web -u daleel-worker`). LOG_FORMAT=json writes every record as one
# JSON object a line, with the request's (or task's) id, and adds one line per request and
# one per task (config/observe.py: request id, user id, view, status, duration).
LOG_FORMAT = os.environ.get("LOG_FORMAT", "").strip().lower() or "text"
if LOG_FORMAT not in {"text", "json"}:
    raise ImproperlyConfigured("LOG_FORMAT is 'text' (the default) or 'json'.")
JSON_LOGS = LOG_FORMAT == "json"
LOGGING = logging_settings(json_logs=JSON_LOGS, level=os.environ.get("LOG_LEVEL", "WARNING"))

# Metrics for Prometheus at /metrics (config/metrics.py), off unless METRICS_ENABLED; then
# only to a request bearing METRICS_TOKEN or from METRICS_ALLOWED_ADDRESSES (the site refuses
# to start with neither: config/checks.py). Several processes add up their counts through
# PROMETHEUS_MULTIPROC_DIR (prometheus-client's own variable; deploy/'s units set it).
METRICS_ENABLED = env_bool("METRICS_ENABLED", False)
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "").strip()
METRICS_ALLOWED_ADDRESSES = env_networks("METRICS_ALLOWED_ADDRESSES", [])

# Error reports (config/sentry.py): SENTRY_DSN turns on sentry-sdk, scrubbed of learners'
# answers, passwords, codes and tokens, tagged with RELEASE and SENTRY_ENVIRONMENT.
SENTRY_DSN = os.environ.get("SENTRY_DSN", "").strip()
if SENTRY_DSN:
    from config.sentry import start as start_error_reports

    start_error_reports(
        dsn=SENTRY_DSN,
        release=RELEASE,
        environment=os.environ.get("SENTRY_ENVIRONMENT", "").strip() or "production",
        traces_sample_rate=env_float("SENTRY_TRACES_SAMPLE_RATE", 0.0),
    )
