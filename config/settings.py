"""Settings for the QA human-evaluation platform.

Everything that differs between a laptop and production comes from environment variables:

- ``SECRET_KEY`` (required unless ``DEBUG=1``), ``DEBUG`` (off unless ``1``),
  ``ALLOWED_HOSTS`` (comma separated), ``CSRF_TRUSTED_ORIGINS``.
- ``DATABASE_URL``: default SQLite in ``var/db.sqlite3``; ``postgres://...`` selects PostgreSQL.
- ``DB_CONN_MAX_AGE``: seconds a server thread keeps its database connection (default 60; 0 opens
  one per request).
- ``CELERY_BROKER_URL``: default the embedded ``sqla+sqlite`` broker in ``var/``;
  ``redis://...`` or ``amqp://...`` for production.
- ``SECURE`` = 1 turns on HTTPS-only cookies, HSTS and the SSL redirect (production behind TLS).
- ``QAEVAL_LOG_DAYS``: days login logs are kept (default 180); ``QAEVAL_ERASURE_KEY``: the key of the
  erasure tombstones' HMAC (default: derived from ``SECRET_KEY``); docs/privacy.md.
"""

import os
import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from core.languages import interface_languages

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("QAEVAL_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name, default=False):
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name, default=""):
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG")
# Set by manage.py for commands that work on files only (the offline ``report``): they sign
# nothing and open no database, so they need no SECRET_KEY (a random one is used for the run).
OFFLINE_COMMAND = os.environ.get("QAEVAL_OFFLINE_COMMAND", "")
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if DEBUG or env_bool("QAEVAL_TESTING"):
        SECRET_KEY = "insecure-dev-only-key-" + "x" * 40
    elif OFFLINE_COMMAND:
        SECRET_KEY = secrets.token_urlsafe(50)
    else:
        raise ImproperlyConfigured("SECRET_KEY must be set in the environment (or run with DEBUG=1).")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and Redoc assets served from our static files (no CDN)
    "rest_framework.authtoken",  # API tokens, created in the Django admin
    "django_htmx",
    "axes",
    "core",
    "annotation",
    "models_runner",
    "frames",
    "evaluation",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "core.middleware.SecurityHeadersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Django's LocaleMiddleware with the site's precedence (the user's choice, the browser, the
    # corpus of an annotator's folds): after authentication, which it reads; no URL prefixes.
    "core.i18n.LanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",
    "core.middleware.HostileInputMiddleware",
    "core.middleware.DomainErrorMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "core.roles.roles_context",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"

# Persistent connections (each server thread keeps its own for DB_CONN_MAX_AGE seconds) on both
# databases: opening one per request was about a quarter of an annotator's round trip. Health
# checks drop a connection that broke (database restarted) before a request uses it. SQLite in WAL
# mode is safe with long-lived connections: outside a transaction a connection holds no lock.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL + a busy timeout let the web server and a Celery worker share the file.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
else:
    # A second connection on which jobs report progress while their work holds a transaction.
    DATABASES["jobs"] = {**DATABASES["default"], "TEST": {"MIRROR": "default"}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Login rate limiting (django-axes): lock a username+IP after 5 failures for 15 minutes.
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = 0.25  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/lockout.html"  # a styled page with a way back
AXES_ENABLED = env_bool("AXES_ENABLED", True)

# Participants' data (SPEC 18, docs/privacy.md): login logs and sessions are kept this many days;
# the tombstones of erased participants hash their panel ids with this key (default: from SECRET_KEY).
QAEVAL_LOG_DAYS = int(os.environ.get("QAEVAL_LOG_DAYS", "180"))
ERASURE_KEY = os.environ.get("QAEVAL_ERASURE_KEY", "")

# The interface speaks English and French (docs/i18n.md): the language follows the user's choice,
# else the browser, else the corpus of an annotator's folds, else English (core.i18n).
LANGUAGE_CODE = "en"
LANGUAGES = interface_languages()  # the records of core.languages that say interface=True
# Catalogues: one per app (<app>/locale), and this one for the site-wide templates/ and static/js.
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["config.formats"]  # English short dates stay ISO-like (config/formats/en)
LANGUAGE_COOKIE_NAME = "qaeval_language"
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_HTTPONLY = True
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "staticfiles"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_ROOT = BASE_DIR / "static" / "root"  # /favicon.ico, asked for by every browser
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))
MEDIA_URL = "media/"
# Uploads above this size are streamed to a temporary file, never held in memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
UPLOAD_DIR = MEDIA_ROOT / "uploads"
# Largest import file accepted from the web (admin form, POST /api/imports/); stored uploads are
# removed once their import job ends. The management commands read local files of any size.
MAX_UPLOAD_BYTES = int(os.environ.get("QAEVAL_MAX_UPLOAD_BYTES", str(512 * 1024 * 1024)))
# A study archive's members, unpacked, at most (they are read into memory and checked before any write).
# A FrameNet lexicon upload, unpacked (frames.lexicon_jobs.unpack): bytes and members.
# A lexicon's files that are read (frameIndex.xml, luIndex.xml, frame/*.xml: frames.lexicon_jobs.is_read)
# take some tens of MiB for FrameNet 1.7; 256 MiB leaves room for a lexicon several times larger.
MAX_LEXICON_BYTES = int(os.environ.get("QAEVAL_MAX_LEXICON_BYTES", str(256 * 1024**2)))
MAX_LEXICON_MEMBERS = int(os.environ.get("QAEVAL_MAX_LEXICON_MEMBERS", "100000"))
MAX_ARCHIVE_BYTES = int(os.environ.get("QAEVAL_MAX_ARCHIVE_BYTES", str(4 * 1024**3)))

# Security. Production (SECURE=1) turns on everything `check --deploy` asks for.
SECURE = env_bool("SECURE")
SESSION_COOKIE_HTTPONLY = True
# Database sessions (logout deletes the row), read with one fixed SQL statement (core/sessions.py).
SESSION_ENGINE = "core.sessions"
CSRF_COOKIE_HTTPONLY = False  # htmx reads the token from the page, not the cookie
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_SECURE = SECURE
LANGUAGE_COOKIE_SECURE = SECURE
CSRF_COOKIE_SECURE = SECURE
SECURE_SSL_REDIRECT = SECURE
SECURE_HSTS_SECONDS = 31536000 if SECURE else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE
SECURE_HSTS_PRELOAD = SECURE
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if SECURE else None
# Sessions: 8 hours (a working day) under SECURE=1, two weeks otherwise; the cookie carries that Max-Age
# (issue 44: a browser-session cookie without one outlives its server row in browsers that restore tabs).
# SESSION_COOKIE_AGE (seconds) overrides within sane bounds: 5 minutes to 24 hours under SECURE=1
# (a stolen cookie is worth a day at most), to 90 days otherwise; anything else stops the start.


def _session_age():
    raw = os.environ.get("SESSION_COOKIE_AGE", "").strip()
    if not raw:
        return 8 * 3600 if SECURE else 14 * 24 * 3600
    most = 24 * 3600 if SECURE else 90 * 24 * 3600
    if not raw.isdigit() or not 300 <= int(raw) <= most:
        raise ImproperlyConfigured(
            f"SESSION_COOKIE_AGE must be a number of seconds from 300 to {most}"
            f"{' under SECURE=1' if SECURE else ''}; got {raw[:40]!r}"
        )
    return int(raw)


SESSION_COOKIE_AGE = _session_age()
SESSION_EXPIRE_AT_BROWSER_CLOSE = False  # the cookie has Max-Age = SESSION_COOKIE_AGE, SECURE=1 included
# No inline script anywhere (core.middleware adds the header); inline style attributes stay
# allowed for progress bars.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # The first class names the scheme of a 401's WWW-Authenticate: no credentials -> 401 "Token"
        # (SessionAuthentication first would answer 403, which has no such header).
        "rest_framework.authentication.TokenAuthentication",  # header "Authorization: Token <key>"
        "rest_framework.authentication.BasicAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "core.pagination.StrictLimitOffsetPagination",
    "DEFAULT_PARSER_CLASSES": [
        "core.parsers.StrictJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "PAGE_SIZE": 100,
    "EXCEPTION_HANDLER": "core.web_errors.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "QA human-evaluation platform API",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Celery: embedded SQLite broker by default, Redis/RabbitMQ from env.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", f"sqla+sqlite:///{VAR_DIR / 'celery-broker.sqlite3'}")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_DEFAULT_QUEUE", "default")
CELERY_TASK_ROUTES = {"models_runner.tasks.run_inference_gpu": {"queue": "gpu"}}
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER")
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# SPEC 18: retention once a day (``celery -A config beat``; ``manage.py purge`` does the same by hand)
CELERY_BEAT_SCHEDULE = {
    "purge-daily": {"task": "annotation.tasks.purge", "schedule": 24 * 3600.0},
}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Recovery does not wait for the broker: each worker's reaper (core.worker) re-sends or fails
# jobs whose heartbeat went silent. Redis redelivers an unacknowledged task only after the
# visibility timeout, so it is set above the longest job (a copy delivered while its job still
# beats is skipped anyway); it is what recovers a task lost between delivery and start.
if CELERY_BROKER_URL.startswith(("redis", "rediss")):  # the sqla transport passes options to create_engine
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", str(6 * 3600)))
    }

# Jobs (core.runner, core.reaper): a running job beats every JOB_HEARTBEAT_SECONDS; silent for
# JOB_STALE_SECONDS it is taken for dead; each worker reaps every JOB_REAP_SECONDS. Worst case from a
# kill to recovery: stale + reap (75 s by default), given a worker is running.
JOB_HEARTBEAT_SECONDS = float(os.environ.get("QAEVAL_JOB_HEARTBEAT_SECONDS", "10"))
JOB_STALE_SECONDS = float(os.environ.get("QAEVAL_JOB_STALE_SECONDS", "60"))
JOB_REAP_SECONDS = float(os.environ.get("QAEVAL_JOB_REAP_SECONDS", "15"))
# Environment variables that may hold an LLM server's key (besides names starting with LLM_KEY_);
# never the platform's own secrets (models_runner.endpoints.key_env_problem).
LLM_KEY_ENVS = [n.strip() for n in os.environ.get("QAEVAL_LLM_KEY_ENVS", "OPENAI_API_KEY").split(",") if n.strip()]
JOB_MAX_ATTEMPTS = int(os.environ.get("QAEVAL_JOB_MAX_ATTEMPTS", "3"))
# A job still ``created`` this long after its task was sent is sent again (the broker lost the
# message before any worker took it), once per such period: core.reaper.resend_lost_jobs.
JOB_RESEND_SECONDS = float(os.environ.get("QAEVAL_JOB_RESEND_SECONDS", "600"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.request": {"level": "ERROR"}, "axes": {"level": "WARNING"}},
}
AXES_VERBOSE = False
