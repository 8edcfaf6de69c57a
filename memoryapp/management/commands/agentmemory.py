"""Start the embedded Agent Memory server: a launcher for `python -m memoryserver`."""

from __future__ import annotations

import os
import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = (
        "Run the embedded Agent Memory server (the REST API the agentmemory SDK speaks) "
        "in place of this process; same as `python -m memoryserver`."
    )

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
        argv = [
            sys.executable,
            "-m",
            "memoryserver",
            "--host",
            options["host"],
            "--port",
            str(options["port"]),
            "--verbosity",
            str(options["verbosity"]),
        ]
        if options["no_migrate"]:
            argv.append("--no-migrate")
        self.stdout.flush()
        paths = [str(settings.BASE_DIR), *filter(None, [os.environ.get("PYTHONPATH")])]
        os.environ["PYTHONPATH"] = os.pathsep.join(paths)
        # The server wants the token this app sends (AGENT_MEMORY_TOKEN, or make run's file).
        os.environ.setdefault("AGENT_MEMORY_SERVER_TOKEN", settings.AGENT_MEMORY_TOKEN or "")
        # The server is a separate Django project with its own settings: it cannot share
        # this process, so this process becomes it (signals reach the server directly).
        os.execv(sys.executable, argv)
