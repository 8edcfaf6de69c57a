"""Settings for the test suite: fast, deterministic, no model weights, no network."""

from __future__ import annotations

import os

# The deterministic embedder keeps the suite fast; MiniLM has its own tests.
os.environ.setdefault("AGENT_MEMORY_EMBEDDER", "hashing")
os.environ.setdefault("AISLE_VAR_DIR", os.path.join(os.path.dirname(__file__), "../../var/test"))
# Never reach a real model from a test, whatever the developer's .env says.
os.environ["OPENAI_API_KEY"] = ""

from config.settings.base import *  # noqa: F403
from config.settings.base import DATABASES, VAR_DIR

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# A file, not :memory:, so a live server thread and the test share the database.
DATABASES["default"] = {
    "ENGINE": "django.db.backends.sqlite3",
    "NAME": str(VAR_DIR / "test-aisle.sqlite3"),
    "TEST": {"NAME": str(VAR_DIR / "test-aisle.sqlite3")},
}
