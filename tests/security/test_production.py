"""The production profile: DEBUG off whatever happens, required secrets, a clean deploy check.

Each test runs a fresh process on `config.settings.production`, as a deployment would.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SECRET = secrets.token_urlsafe(50)

# The environment docs/deploy.md documents.
DEPLOY_ENV = {
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "DJANGO_SECRET_KEY": SECRET,
    "DJANGO_ALLOWED_HOSTS": "shop.example.com",
    "DJANGO_CSRF_TRUSTED_ORIGINS": "https://shop.example.com",
    "DJANGO_TRUST_X_FORWARDED_PROTO": "true",
}

# Requests through Django's test client under the production settings, with a database that
# cannot be opened: every page that touches it fails with a 500.
PROBE = r"""
import json, django
django.setup()
from django.test import Client
client = Client(raise_request_exception=False, HTTP_HOST="shop.example.com",
                HTTP_X_FORWARDED_PROTO="https")
client.cookies["sessionid"] = "a-session-that-needs-the-database"
answers = {}
for method, path in [("get", "/"), ("get", "/products/no-such-product/"),
                     ("get", "/api/memory/records"), ("post", "/api/assistant/turns"),
                     ("get", "/no-such-page/"), ("get", "/api/no-such-endpoint")]:
    response = getattr(client, method)(path, {"text": "hi"} if method == "post" else None,
                                       content_type="application/json")
    answers[f"{method} {path}"] = [response.status_code, response.content.decode(errors="replace")]
print(json.dumps(answers))
"""


def run(args: list[str], env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    return subprocess.run(
        args,
        cwd=ROOT,
        env={**base, "AISLE_VAR_DIR": str(tmp_path), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_errors_never_show_the_debug_page(tmp_path):
    env = {
        **DEPLOY_ENV,
        "DJANGO_DEBUG": "true",  # ignored: production never debugs
        "DATABASE_URL": f"sqlite:///{tmp_path}/missing-dir/aisle.sqlite3",
    }
    result = run([sys.executable, "-c", PROBE], env, tmp_path)
    assert result.returncode == 0, result.stderr
    answers = json.loads(result.stdout.splitlines()[-1])
    statuses = {request: status for request, (status, _) in answers.items()}
    assert statuses == {
        "get /": 500,
        "get /products/no-such-product/": 500,
        "get /api/memory/records": 500,
        "post /api/assistant/turns": 500,
        "get /no-such-page/": 404,
        "get /api/no-such-endpoint": 404,
    }
    for request, (_, body) in answers.items():
        for leak in (SECRET, "SECRET_KEY", "Traceback", "DATABASES", "settings", "sqlite3"):
            assert leak not in body, f"{request} shows {leak!r}"
    # The failure is still logged for the people running the shop.
    assert "OperationalError" in result.stderr


def test_deploy_check_is_clean_with_the_documented_environment(tmp_path):
    result = run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        DEPLOY_ENV,
        tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_secret_key_and_host_names_are_required(tmp_path):
    for missing, fragment in [
        ("DJANGO_SECRET_KEY", "DJANGO_SECRET_KEY is required"),
        ("DJANGO_ALLOWED_HOSTS", "DJANGO_ALLOWED_HOSTS is required"),
    ]:
        env = {k: v for k, v in DEPLOY_ENV.items() if k != missing}
        result = run([sys.executable, "manage.py", "check"], env, tmp_path)
        assert result.returncode != 0 and fragment in result.stderr
    development = {**DEPLOY_ENV, "DJANGO_SECRET_KEY": "dev-only-insecure-key-change-me"}
    result = run([sys.executable, "manage.py", "check"], development, tmp_path)
    assert result.returncode != 0 and "development key" in result.stderr
