"""Serve the embedded Agent Memory server: `python -m memoryserver [--host H] [--port P]`."""

from __future__ import annotations

import argparse
import os
import socket
import sys
import time
from collections.abc import Callable

import uvicorn
from django.conf import settings
from django.core.management import call_command
from pydantic import ValidationError

from memoryserver.asgi import SETTINGS_MODULE, build_application
from memoryserver.embedders import EmbedderUnavailable, get_embedder

KEEP_ALIVE_SECONDS = 30


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
        "--no-migrate", action="store_true", help="skip migrating the server's database on start"
    )
    parser.add_argument(
        "-v", "--verbosity", type=int, default=1, choices=[0, 1, 2, 3], help="0 is silent"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    options = arguments(argv)
    started = time.monotonic()
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
