"""What `make run` prepares before it starts its two processes (`scripts/run` calls this).

- The embedded Agent Memory server's bearer token: random, created once in
  `<AISLE_VAR_DIR>/agent-memory.token` (mode 0600) and reused, so the server is never open
  to every local process (or a page that rebinds a name to 127.0.0.1). The server reads it
  as `AGENT_MEMORY_SERVER_TOKEN`, the shop as `AGENT_MEMORY_TOKEN`; the shop's settings
  also read the file, so `manage.py` commands run later find it without being told.
- `AGENT_MEMORY_URL` given to `make run` is written to `.env`, so those later commands talk
  to the same memory server.

    python -m config.devserver token                # print the token, creating it first
    python -m config.devserver remember-url         # AGENT_MEMORY_URL from the environment -> .env
    python -m config.devserver check-token URL      # warn when the server there refuses it

Standard library and python-dotenv only: the settings import it, and so does a shell script
before Django is set up.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import urllib.error
import urllib.request
from pathlib import Path

from dotenv import dotenv_values, set_key

BASE_DIR = Path(__file__).resolve().parent.parent
TOKEN_FILE_NAME = "agent-memory.token"


def var_dir(*, env_file: Path = BASE_DIR / ".env") -> Path:
    """`AISLE_VAR_DIR` as the settings resolve it: environment, then `.env`, then `var/`."""
    configured = os.environ.get("AISLE_VAR_DIR") or dotenv_values(env_file).get("AISLE_VAR_DIR")
    return Path(configured) if configured else BASE_DIR / "var"


def token_file_read(path: Path) -> str | None:
    """The token stored at `path`, or None when there is none (or it is empty)."""
    try:
        token = path.read_text().strip()
    except FileNotFoundError:
        return None
    return token or None


def token_file_ensure(path: Path) -> str:
    """Return the token at `path`, creating a random one (mode 0600) when there is none.

    Created with O_EXCL and its final mode at once, so the secret is never readable by
    others, not even for a moment, and two runs starting together agree on one token.
    """
    token = token_file_read(path)
    if token is not None:
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
        return token
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        # An empty file left by an interrupted write, or another run won the race.
        existing = token_file_read(path)
        if existing is not None:
            return existing
        path.unlink()
        return token_file_ensure(path)
    with os.fdopen(fd, "w") as handle:
        handle.write(token + "\n")
    return token


def effective_token(*, token_file: Path, env_file: Path = BASE_DIR / ".env") -> str:
    """The token both processes get: `AGENT_MEMORY_TOKEN` when given (environment or `.env`,
    a real server's), else the local file's, created on first use."""
    given = os.environ.get("AGENT_MEMORY_TOKEN") or dotenv_values(env_file).get(
        "AGENT_MEMORY_TOKEN"
    )
    return given or token_file_ensure(token_file)


def url_remember(*, url: str, env_file: Path = BASE_DIR / ".env") -> bool:
    """Write `AGENT_MEMORY_URL=url` to `env_file` unless it already says so; True if written."""
    if dotenv_values(env_file).get("AGENT_MEMORY_URL") == url:
        return False
    set_key(env_file, "AGENT_MEMORY_URL", url, quote_mode="never")
    return True


def token_accepted(*, url: str, token: str, timeout: float = 2.0) -> bool | None:
    """Whether the server at `url` lets `token` in (None when it does not answer).

    Asks for a user that does not exist: 404 means the door opened, 401 that it did not.
    """
    request = urllib.request.Request(
        f"{url.rstrip('/')}/users/token-probe", headers={"Authorization": f"Bearer {token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout):
            return True
    except urllib.error.HTTPError as exc:
        return exc.code != 401
    except OSError:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m config.devserver",
        description="Prepare `make run`: the memory server's token, AGENT_MEMORY_URL in .env.",
    )
    parser.add_argument("action", choices=["token", "remember-url", "check-token"])
    parser.add_argument("url", nargs="?", help="check-token: the memory server's base URL")
    options = parser.parse_args(argv)
    if options.action == "token":
        print(effective_token(token_file=var_dir() / TOKEN_FILE_NAME))
        return 0
    if options.action == "check-token":
        token = effective_token(token_file=var_dir() / TOKEN_FILE_NAME)
        if token_accepted(url=options.url, token=token) is False:
            print(
                f"The server at {options.url} refuses this token: it was started with another "
                "one. Stop it and run `make run` again, or set AGENT_MEMORY_TOKEN to its token.",
                file=sys.stderr,
            )
            return 1
        return 0
    url = os.environ.get("AGENT_MEMORY_URL", "").strip().rstrip("/")
    if url and url_remember(url=url):
        print(
            f"Saved AGENT_MEMORY_URL={url} to .env, so later manage.py commands use it too.",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
