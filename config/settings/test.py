"""Settings for the test suite: fast, deterministic, no model weights, no network."""

from __future__ import annotations

import os

# The deterministic embedder keeps the suite fast; MiniLM has its own tests.
os.environ.setdefault("AGENT_MEMORY_EMBEDDER", "hashing")
# The catalog ranks by words alone; its meaning has tests of its own that turn it on.
os.environ.setdefault("CATALOG_SEARCH_MEANING", "false")
# Each pytest-xdist worker gets a folder of its own: its databases, tokens and clock files.
os.environ.setdefault(
    "AISLE_VAR_DIR",
    os.path.join(
        os.path.dirname(__file__), "../../var/test", os.environ.get("PYTEST_XDIST_WORKER", "")
    ),
)
# Never reach a real model from a test, whatever the developer's .env says.
os.environ["OPENAI_API_KEY"] = ""

import dj_database_url

from config.settings.base import *  # noqa: F403
from config.settings.base import DATABASES, INSTALLED_APPS, VAR_DIR, postgres_pooled
from memoryserver.conf import ServerSettings, sqlite_database

DEBUG = False
# Tests load what each needs; a thread reading the database as config.asgi is imported
# would race the test database's creation.
MEANING_WARM_AT_START = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
if os.environ.get("TEST_DATABASE_URL"):
    # make test's PostgreSQL pass: a throwaway server (harness/services.py); the
    # test database is created on it and dropped afterwards, as Django's runner does.
    # Pooled as the shop's own settings pool it.
    DATABASES["default"] = postgres_pooled(dj_database_url.parse(os.environ["TEST_DATABASE_URL"]))
else:
    # A file, not :memory:, so a live server thread and the test share the database.
    DATABASES["default"] = {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(VAR_DIR / "test-aisle.sqlite3"),
        "TEST": {"NAME": str(VAR_DIR / "test-aisle.sqlite3")},
    }

# The embedded server's in-process tests load its models and services into this process:
# its tables get an alias of their own (the router keeps them there), and its knobs join
# these settings. The shop's code never touches either; live tests run the server in its
# own process on its own settings.
INSTALLED_APPS = [*INSTALLED_APPS, "memoryserver"]
_server = ServerSettings(AGENT_MEMORY_SERVER_DB=VAR_DIR / "test-agentmemory.sqlite3")
DATABASES["agentmemory"] = {
    **sqlite_database(_server.database_path),
    "TEST": {"NAME": str(_server.database_path)},
}
DATABASE_ROUTERS = ["memoryserver.router.AgentMemoryRouter"]
globals().update(
    {k: v for k, v in _server.knobs().items() if k.startswith("AGENT_MEMORY_")}
    | {"EXTRACTION_MODEL": _server.EXTRACTION_MODEL, "EMBEDDING_MODEL": _server.EMBEDDING_MODEL}
)
