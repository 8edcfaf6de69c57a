"""Mark the chat records of turns cut by a crash as interrupted (`make run` runs it first)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from assistant.records.chat_records import TURN_OPEN_BOUND, chat_turns_interrupted_mark


class Command(BaseCommand):
    help = (
        "Mark turn records that never finished (their process died mid-turn) as "
        f"interrupted: those open longer than {int(TURN_OPEN_BOUND.total_seconds() // 60)} "
        "minutes, or every open one with --at-start (only when no shop process is running)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--at-start",
            action="store_true",
            help="no turn can be running now (a single-process shop starting): mark every "
            "open record, however recent",
        )
        parser.add_argument(
            "--older-than",
            type=float,
            default=None,
            metavar="SECONDS",
            help="mark records open longer than this (default the bound above)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["at_start"]:
            older_than = None
        elif options["older_than"] is not None:
            older_than = timedelta(seconds=max(0.0, options["older_than"]))
        else:
            older_than = TURN_OPEN_BOUND
        marked = chat_turns_interrupted_mark(older_than=older_than)
        if options["verbosity"] > 0 and (marked or options["verbosity"] > 1):
            self.stdout.write(f"Chat records: {marked} turn(s) cut by a stop marked interrupted.")
