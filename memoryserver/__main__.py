"""Serve the embedded Agent Memory server: `python -m memoryserver [--host H] [--port P]`."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time

from django.conf import settings
from django.core.management import call_command
from pydantic import ValidationError

from memoryserver.asgi import SETTINGS_MODULE, build_application
from memoryserver.embedders import EmbedderUnavailable, get_embedder


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
    if options.verbosity < 2:
        logging.getLogger("daphne").setLevel(logging.WARNING)

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

    # Importing daphne.server installs Twisted's asyncio reactor as a side effect: only once
    # the process is about to serve.
    from daphne.endpoints import build_endpoint_description_strings
    from daphne.server import Server

    def ready() -> None:
        if options.verbosity >= 1:
            print(
                f"Agent Memory server on http://{options.host}:{options.port} "
                f"(embedder {embedder.name}, extractor {settings.AGENT_MEMORY_EXTRACTOR}, "
                f"db {settings.DATABASES['default']['NAME']}, "
                f"ready in {time.monotonic() - started:.2f}s)",
                flush=True,
            )

    Server(
        application=application,
        endpoints=build_endpoint_description_strings(host=options.host, port=options.port),
        signal_handlers=True,
        verbosity=0,
        ready_callable=ready,
        server_name="agentmemory",
    ).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
