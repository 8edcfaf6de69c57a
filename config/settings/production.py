"""Settings for a deployment behind a TLS-terminating proxy: `DJANGO_SETTINGS_MODULE=config.settings.production`.

DEBUG is off whatever the environment says, the secret key and the host names must be
given, cookies are secure and HSTS is on; `manage.py check --deploy` is clean with the
environment documented in docs/deploy.md. `make run` keeps using `config.settings.base`
with its friendly development defaults.
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_int, env_list, env_str
from config.settings.base import *  # noqa: F403
from config.settings.base import _DEVELOPMENT_SECRET_KEY


def _required(name: str, hint: str) -> str:
    value = env_str(name, "").strip()
    if not value:
        raise ImproperlyConfigured(f"{name} is required with config.settings.production: {hint}")
    return value


# Never the DEBUG page: it shows settings, code and the request to whoever caused the error.
DEBUG = False

SECRET_KEY = _required(
    "DJANGO_SECRET_KEY",
    'a long random string, e.g. python -c "import secrets; print(secrets.token_urlsafe(50))"',
)
if SECRET_KEY == _DEVELOPMENT_SECRET_KEY:
    raise ImproperlyConfigured("DJANGO_SECRET_KEY is the development key; generate a new one.")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", [])
if not ALLOWED_HOSTS:
    _required("DJANGO_ALLOWED_HOSTS", "the site's host names, comma-separated (shop.example.com)")

# TLS ends at the proxy; it tells Django the original scheme in X-Forwarded-Proto. Only say
# so when the proxy sets that header itself (and drops one sent by the client).
if env_bool("DJANGO_TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", True)

# Static files from `manage.py collectstatic`: compressed, with hashed names cached forever.
WHITENOISE_USE_FINDERS = env_bool("WHITENOISE_USE_FINDERS", False)
WHITENOISE_AUTOREFRESH = False
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
