"""Settings shared by every environment; everything comes from the environment.

`.env` at the project root is read when present. `.env.example` documents each variable.
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url
from dotenv import load_dotenv

from config.devserver import TOKEN_FILE_NAME, token_file_read
from config.env import env_bool, env_float, env_int, env_list, env_rates, env_str
from config.private import private_dir_ensure, sqlite_files_private

BASE_DIR = Path(__file__).resolve().parent.parent.parent
load_dotenv(BASE_DIR / ".env")

VAR_DIR = Path(env_str("AISLE_VAR_DIR", str(BASE_DIR / "var")))
# Databases, sessions and the memory token live here: the owner's only (config/private.py).
private_dir_ensure(VAR_DIR)

_DEVELOPMENT_SECRET_KEY = "dev-only-insecure-key-change-me"  # production.py refuses it
SECRET_KEY = env_str("DJANGO_SECRET_KEY", _DEVELOPMENT_SECRET_KEY)
# Off by default, for `make run` too: whoever tries the shop sees its own 404 and 500 pages,
# as a shopper would, and the traceback of a 500 is logged to the console. DJANGO_DEBUG=true
# brings back Django's debug pages for development.
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "shop",
    "memoryapp",
    "assistant",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Exact origin (scheme, host, port) for every write, the REST API included.
    "config.origins.OriginCheckMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"

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
                "shop.context_processors.navigation",
                "assistant.context_processors.demo",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'aisle.sqlite3'}"), conn_max_age=0
    ),
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# SQLite under a burst of writes (many new sign-ins at once): every write transaction takes
# the write lock when it begins, so a writer waits its turn for up to the timeout instead of
# failing with "database is locked" halfway through (a deferred transaction that read first
# cannot wait); WAL lets reads go on while a write commits. docs/reliability.md has the figures.
SQLITE_BUSY_TIMEOUT_SECONDS = env_float("SQLITE_BUSY_TIMEOUT_SECONDS", 20.0, minimum=0.0)
SQLITE_OPTIONS = {
    "transaction_mode": "IMMEDIATE",
    "timeout": SQLITE_BUSY_TIMEOUT_SECONDS,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}
# PostgreSQL: a pool of open connections per process (psycopg_pool through Django's
# "pool" option) instead of a new backend for every ORM call (conn_max_age=0 made ~14 new
# backends a turn). Each connection is checked when it is taken from the pool
# (CONN_HEALTH_CHECKS), so one the server closed is replaced, not handed to a query.
# Persistent connections (CONN_MAX_AGE) are no choice under ASGI: a request's thread ends
# with the request and would leave its connection open behind it.
DATABASE_POOL_MIN_SIZE = env_int("DATABASE_POOL_MIN_SIZE", 2, minimum=0)
DATABASE_POOL_MAX_SIZE = env_int("DATABASE_POOL_MAX_SIZE", 10, minimum=1)
DATABASE_POOL_TIMEOUT_SECONDS = env_float("DATABASE_POOL_TIMEOUT_SECONDS", 10.0, minimum=0.1)


def postgres_pooled(database: dict) -> dict:
    """`database` with the pool and its health checks when it is PostgreSQL."""
    if database["ENGINE"] != "django.db.backends.postgresql":
        return database
    pool = {
        "min_size": min(DATABASE_POOL_MIN_SIZE, DATABASE_POOL_MAX_SIZE),
        "max_size": DATABASE_POOL_MAX_SIZE,
        "timeout": DATABASE_POOL_TIMEOUT_SECONDS,
    }
    options = {"pool": pool, **database.get("OPTIONS", {})}
    return {**database, "CONN_MAX_AGE": 0, "CONN_HEALTH_CHECKS": True, "OPTIONS": options}


DATABASES["default"] = postgres_pooled(DATABASES["default"])
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {**SQLITE_OPTIONS, **DATABASES["default"].get("OPTIONS", {})}
    # Kept open on the threads that ask again and again (the chat's ORM thread, the chat
    # records' thread): opening one costs 0.5 ms of CPU and a turn asked for ~14, a fifth of
    # the shop's CPU a turn under load (docs/benchmarks.md, "Under load"). A request thread
    # that ends takes its connection with it: a SQLite connection is a file handle in this
    # process, closed when its thread's state goes, with no server-side session to leak.
    DATABASES["default"]["CONN_MAX_AGE"] = None
    _sqlite_name = str(DATABASES["default"]["NAME"])
    if _sqlite_name and _sqlite_name != ":memory:" and not _sqlite_name.startswith("file:"):
        # Created 0600 before SQLite opens it, so its -wal and -shm files are 0600 too.
        sqlite_files_private(Path(_sqlite_name))

_channel_layer_url = env_str("CHANNEL_LAYER_URL", "")
if _channel_layer_url:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [_channel_layer_url]},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "shop:signin"

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
# Serve straight from the source folders, so `make run` needs no collectstatic step; a
# deployment can run collectstatic and turn this off for compressed, cached files.
WHITENOISE_USE_FINDERS = env_bool("WHITENOISE_USE_FINDERS", True)
# Serving from the source folders is development: an edited file is served as it is now.
WHITENOISE_AUTOREFRESH = WHITENOISE_USE_FINDERS

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Aisle API",
    "DESCRIPTION": "The shop's REST API: assistant turns and the shopper's own memory records.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI's files come from the pinned sidecar package and are served as static
    # files: the docs page works offline and loads nothing from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        # The SDK logs every request, and a 404 on a first visit as a warning; the memory
        # policy logs real outages itself, once each.
        "agentmemory": {"level": "ERROR"},
        "httpx": {"level": "WARNING"},
    },
}

# --- Agent Memory (client side) -------------------------------------------------------
# Euros for one unit of a currency the shop does not price in ("GBP:1.17,USD:0.92"): a
# budget said in pounds or dollars is converted at the shop's rate, and the rate said. None
# by default: a rate written here goes stale, so only a shop that keeps it sets one; without
# it such a budget is said back and filters nothing.
SHOP_EXCHANGE_RATES = env_rates("SHOP_EXCHANGE_RATES", {})

# The catalog's search ranks its matches by meaning as well as by words (shop/meaning.py),
# with the memory server's MiniLM; false ranks by words alone and loads no model here.
CATALOG_SEARCH_MEANING = env_bool("CATALOG_SEARCH_MEANING", True)
CATALOG_MEANING_ENCODER = "llm.embedding.meaning_vectors" if CATALOG_SEARCH_MEANING else ""
# A served shop (config/asgi.py) loads the encoder, the catalog's vectors and the offline
# model's examples on a thread of its own as it starts, not in its first shoppers' turns.
MEANING_WARM_AT_START = True

AGENT_MEMORY_URL = env_str("AGENT_MEMORY_URL", "http://127.0.0.1:8080").rstrip("/")
# A real server's token comes from the environment; otherwise the embedded server's, which
# `make run` creates once in var/ and hands to both processes (config/devserver.py).
AGENT_MEMORY_TOKEN_FILE = VAR_DIR / TOKEN_FILE_NAME
_token_given = env_str("AGENT_MEMORY_TOKEN", "")
AGENT_MEMORY_TOKEN = _token_given or token_file_read(AGENT_MEMORY_TOKEN_FILE)
AGENT_MEMORY_TOKEN_SOURCE = (
    "environment" if _token_given else "file" if AGENT_MEMORY_TOKEN else None
)
# A dead server must cost a turn about one second at most (the reads before the answer).
AGENT_MEMORY_TIMEOUT_SECONDS = env_float("AGENT_MEMORY_TIMEOUT_SECONDS", 1.0, minimum=0.05)
# Writes happen after the answer is sent, so they may wait longer before giving up.
AGENT_MEMORY_WRITE_TIMEOUT_SECONDS = env_float(
    "AGENT_MEMORY_WRITE_TIMEOUT_SECONDS", 10.0, minimum=0.05
)

# --- Memory policy (names and defaults of the memory specification) --------------------
MEMORY_MESSAGE_TTL_SECONDS = env_int("MEMORY_MESSAGE_TTL_SECONDS", 7_776_000, minimum=0)
MEMORY_FACT_TTL_SECONDS = env_int("MEMORY_FACT_TTL_SECONDS", 0, minimum=0)
MEMORY_VERBATIM_WINDOW_TURNS = env_int("MEMORY_VERBATIM_WINDOW_TURNS", 3, minimum=0)
MEMORY_SEARCH_THRESHOLD_TURNS = env_int("MEMORY_SEARCH_THRESHOLD_TURNS", 10, minimum=1)
MEMORY_MAX_SESSION_BLOCKS = env_int("MEMORY_MAX_SESSION_BLOCKS", 200, minimum=1)
MEMORY_CROSS_SESSION_FACT_K = env_int("MEMORY_CROSS_SESSION_FACT_K", 10, minimum=1)
MEMORY_CROSS_SESSION_TURN_K = env_int("MEMORY_CROSS_SESSION_TURN_K", 10, minimum=1)
MEMORY_CROSS_SESSION_EPISODE_K = env_int("MEMORY_CROSS_SESSION_EPISODE_K", 5, minimum=1)
MEMORY_MAX_FACTS_PER_TURN = env_int("MEMORY_MAX_FACTS_PER_TURN", 5, minimum=1)
MEMORY_NOTE_MAX_CHARS = env_int("MEMORY_NOTE_MAX_CHARS", 500, minimum=50)
# The notes message as a whole, in estimated tokens (memoryapp.render.tokens_estimate).
# Sent in both rounds of a turn; docs/benchmarks.md (what a turn costs) has the figures.
MEMORY_NOTES_MAX_TOKENS = env_int("MEMORY_NOTES_MAX_TOKENS", 800, minimum=100)

# --- Models -----------------------------------------------------------------------------
OPENAI_API_KEY = env_str("OPENAI_API_KEY", "") or None
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL", "") or None
ASSISTANT_MODEL = env_str("ASSISTANT_MODEL", "gpt-4o-mini")
JUDGE_MODEL = env_str("JUDGE_MODEL", "gpt-4o-mini")
# Unset: the judge's model writes the episode record when a session closes.
EPISODE_MODEL = env_str("EPISODE_MODEL", "")
MODEL_TIMEOUT_SECONDS = env_float("MODEL_TIMEOUT_SECONDS", 60.0, minimum=1.0)
# The offline model's pause after each streamed word: a few ms reads like a fast model;
# 30-60 shows streaming and Stop at a human pace; 0 streams as fast as possible.
OFFLINE_MODEL_STREAM_DELAY_MS = env_float("OFFLINE_MODEL_STREAM_DELAY_MS", 4.0, minimum=0.0)
