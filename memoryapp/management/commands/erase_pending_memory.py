"""Erase the memory of deleted accounts that Agent Memory could not erase when they went
(`make run` runs it once memory answers; on a real deployment, run it from cron)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from memoryapp.erasure import memory_erasures_retry
from memoryapp.models import MemoryErasure


class Command(BaseCommand):
    help = (
        "Try once more to erase the memory of every deleted account still marked for "
        "erasure; what memory cannot erase now stays marked. Exits 1 when some is left."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--dry-run", action="store_true", help="list the pending erasures, erase nothing"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        verbosity = options["verbosity"]
        if options["dry_run"]:
            for mark in MemoryErasure.objects.all():
                self.stdout.write(
                    f"{mark.username} ({mark.memory_user_id}): pending since "
                    f"{mark.requested_at:%Y-%m-%d %H:%M}, {mark.attempts} failed attempt(s)"
                )
            return
        run = memory_erasures_retry()
        if run.erased and verbosity > 0:
            names = ", ".join(run.erased)
            self.stdout.write(
                self.style.SUCCESS(f"Erased the memory of deleted account(s): {names}")
            )
        if run.pending:
            for username, reason in run.pending.items():
                self.stderr.write(f"{username}: still to erase ({reason})")
            raise SystemExit(1)
        if not run.erased and verbosity > 1:
            self.stdout.write("No deleted account's memory is waiting to be erased.")
