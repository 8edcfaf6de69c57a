"""Django settings of the embedded Agent Memory server's own process.

A separate project from the shop: its own database (the server's SQLite file as `default`),
URLconf and middleware, and only the knobs of `memoryserver.conf`.
"""

from __future__ import annotations

import secrets
from typing import Any

from memoryserver.conf import ServerSettings, sqlite_database
from memoryserver.limits import MAX_BODY_BYTES

_conf = ServerSettings()
_conf.database_path.parent.mkdir(parents=True, exist_ok=True)

# Nothing is signed: there are no sessions, cookies or CSRF tokens in this process.
SECRET_KEY = secrets.token_urlsafe(32)
DEBUG = False
# The Host check with the spec's error envelope is `memoryserver.api.middleware.host_refusal`
# (loopback names plus AGENT_MEMORY_SERVER_ALLOWED_HOSTS); Django's own check agrees with it.
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]", *_conf.AGENT_MEMORY_SERVER_ALLOWED_HOSTS]
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_BODY_BYTES

INSTALLED_APPS = ["memoryserver"]
MIDDLEWARE = ["memoryserver.api.middleware.DoorMiddleware"]
ROOT_URLCONF = "memoryserver.api.urls"
DATABASES = {"default": sqlite_database(_conf.database_path)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
TIME_ZONE = "UTC"

REST_FRAMEWORK: dict[str, Any] = {
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": _conf.LOG_LEVEL},
    "loggers": {"httpx": {"level": "WARNING"}},
}

globals().update(_conf.knobs())
