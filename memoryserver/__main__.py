"""Serve the embedded Agent Memory server: `python -m memoryserver [--host H] [--port P]`.

The server never opens its door silently: without `AGENT_MEMORY_SERVER_TOKEN` it refuses to
start, unless told in so many words that an open server is wanted (`--no-token`, or
`AGENT_MEMORY_SERVER_ALLOW_NO_TOKEN=true`), and then it says so on every start.
Its database holds every memory's text: its folder is made 0700 and the file with its
`-wal` and `-shm` 0600 before SQLite opens it, whatever the umask.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

import uvicorn
from django.conf import settings
from django.core.management import call_command
from pydantic import ValidationError

from memoryserver.asgi import SETTINGS_MODULE, build_application
from memoryserver.conf import ServerSettings
from memoryserver.embedders import EmbedderUnavailable, get_embedder

KEEP_ALIVE_SECONDS = 30
NO_TOKEN_VARIABLE = "AGENT_MEMORY_SERVER_ALLOW_NO_TOKEN"
# What the process itself writes (the database, its -wal and -shm) is the owner's only.
PRIVATE_UMASK = 0o077
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


class _ReadyServer(uvicorn.Server):
    """uvicorn's server, telling the caller once it listens."""

    def __init__(self, config: uvicorn.Config, *, ready: Callable[[], None]) -> None:
        super().__init__(config)
        self._ready = ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self._ready()


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m memoryserver",
        description="Run the embedded Agent Memory server (the REST API the agentmemory SDK speaks).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="TCP port (default 8080)")
    parser.add_argument(
        "--no-token",
        action="store_true",
        help=f"serve without a bearer token: every local process (and whoever reaches the "
        f"interface) reads and writes every memory; also {NO_TOKEN_VARIABLE}=true",
    )
    parser.add_argument(
        "--no-migrate", action="store_true", help="skip migrating the server's database on start"
    )
    parser.add_argument(
        "-v", "--verbosity", type=int, default=1, choices=[0, 1, 2, 3], help="0 is silent"
    )
    return parser.parse_args(argv)


def token_refusal(*, conf: ServerSettings, no_token: bool) -> str | None:
    """Why the server must not start as configured, or None when it may."""
    if (
        conf.AGENT_MEMORY_SERVER_TOKEN.strip()
        or no_token
        or conf.AGENT_MEMORY_SERVER_ALLOW_NO_TOKEN
    ):
        return None
    return (
        "Refusing to start: AGENT_MEMORY_SERVER_TOKEN is not set, so anyone who can reach the "
        "server could read and write every memory. Set it (the shop's AGENT_MEMORY_TOKEN must "
        "match; `make agentmemory` and `make run` use the token in var/agent-memory.token), "
        f"or pass --no-token (or {NO_TOKEN_VARIABLE}=true) to serve without one on purpose."
    )


def database_files_private(path: Path, *, var_dir: Path) -> None:
    """Make `var_dir` 0700 and the database, with its companions, 0600.

    The file is created empty with its final mode when missing (an empty file is an empty
    SQLite database), so the -wal and -shm files SQLite creates beside it get that mode too.
    A folder of the database's elsewhere is created 0700 when missing and otherwise left as
    the operator made it.
    """
    for folder in (var_dir, path.parent):
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    var_dir.chmod(0o700)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    for candidate in (path, *(path.with_name(path.name + s) for s in SQLITE_COMPANIONS)):
        with contextlib.suppress(FileNotFoundError):
            candidate.chmod(0o600)


def main(argv: list[str] | None = None) -> int:
    options = arguments(argv)
    started = time.monotonic()
    os.umask(PRIVATE_UMASK)
    try:
        conf = ServerSettings()
    except ValidationError as exc:
        print(f"Agent Memory server settings are not valid:\n{exc}", file=sys.stderr)
        return 2
    if (refusal := token_refusal(conf=conf, no_token=options.no_token)) is not None:
        print(refusal, file=sys.stderr)
        return 2
    if not conf.AGENT_MEMORY_SERVER_TOKEN.strip():
        print(
            f"WARNING: serving without a token ({'--no-token' if options.no_token else NO_TOKEN_VARIABLE}): "
            "every route is open to whoever reaches the server.",
            file=sys.stderr,
            flush=True,
        )
    database_files_private(conf.database_path, var_dir=conf.AISLE_VAR_DIR)
    # Always the server's own settings, even when the caller's environment names the shop's.
    os.environ["DJANGO_SETTINGS_MODULE"] = SETTINGS_MODULE
    try:
        application = build_application()
    except ValidationError as exc:
        print(f"Agent Memory server settings are not valid:\n{exc}", file=sys.stderr)
        return 2

    # The worker's modules define and query models, which Django allows only once it is set
    # up, and build_application is what sets it up.
    from memoryserver.worker import start_background

    if not options.no_migrate:
        # A fresh machine just works: the server creates its own tables.
        call_command("migrate", interactive=False, verbosity=0)
    try:
        embedder = get_embedder()  # loads the MiniLM weights once, before the first request
    except EmbedderUnavailable as exc:
        print(str(exc), file=sys.stderr)
        return 1
    start_background()

    def ready() -> None:
        if options.verbosity >= 1:
            print(
                f"Agent Memory server on http://{options.host}:{options.port} "
                f"(embedder {embedder.name}, extractor {settings.AGENT_MEMORY_EXTRACTOR}, "
                f"db {settings.DATABASES['default']['NAME']}, "
                f"ready in {time.monotonic() - started:.2f}s)",
                flush=True,
            )

    server = _ReadyServer(
        uvicorn.Config(
            application,
            host=options.host,
            port=options.port,
            # The C request parser and the standard event loop: the parser is what makes a
            # request cheap (docs/agent-memory-server.md, "One process, by choice").
            http="httptools",
            loop="asyncio",
            lifespan="off",
            ws="none",  # the API is HTTP only
            proxy_headers=False,  # nothing sits in front of it: take no forwarded headers
            access_log=options.verbosity >= 2,
            log_level="info" if options.verbosity >= 2 else "warning",
            server_header=False,
            # Well past the SDK's own keep-alive (httpx closes an idle connection after 5 s):
            # were the server to close first, a request could be sent on a connection the
            # server is closing at that moment.
            timeout_keep_alive=KEEP_ALIVE_SECONDS,
        ),
        ready=ready,
    )
    server.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
