"""Serve the embedded Agent Memory server in this process (daphne, own URLconf)."""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = "Run the embedded Agent Memory server (the REST API the agentmemory SDK speaks)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)"
        )
        parser.add_argument("--port", type=int, default=8080, help="TCP port (default 8080)")
        parser.add_argument(
            "--no-migrate",
            action="store_true",
            help="skip migrating the server's own database on start",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        self.verbosity = int(options["verbosity"])
        if self.verbosity < 2:
            logging.getLogger("daphne").setLevel(logging.WARNING)
        if not options["no_migrate"]:
            # A fresh machine just works: the server creates its own tables.
            call_command("migrate", database="agentmemory", interactive=False, verbosity=0)

        from memoryapp.server.embedders import EmbedderUnavailable, get_embedder

        try:
            embedder = get_embedder()  # loads MiniLM weights once, before the first request
        except EmbedderUnavailable as exc:
            raise CommandError(str(exc)) from exc

        from memoryapp.server.asgi import build_application
        from memoryapp.server.worker import start_background

        application = build_application()
        start_background()
        self._serve(application, options["host"], options["port"], embedder.name, started)

    def _serve(self, application: Any, host: str, port: int, embedder: str, started: float) -> None:
        from daphne.endpoints import build_endpoint_description_strings
        from daphne.server import Server

        def ready() -> None:
            if self.verbosity >= 1:
                self.stdout.write(
                    self.style.SUCCESS(
                        f"Agent Memory server on http://{host}:{port} "
                        f"(embedder {embedder}, extractor {settings.AGENT_MEMORY_EXTRACTOR}, "
                        f"db {settings.DATABASES['agentmemory']['NAME']}, "
                        f"ready in {time.monotonic() - started:.2f}s)"
                    )
                )
                self.stdout.flush()

        Server(
            application=application,
            endpoints=build_endpoint_description_strings(host=host, port=port),
            signal_handlers=True,
            verbosity=0,
            ready_callable=ready,
            server_name="agentmemory",
        ).run()
