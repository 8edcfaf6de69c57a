"""Run the fact judge over exchanges from a JSON Lines file, one result per line."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoryapp.judge import facts_judge


def exchanges_read(stream: TextIO) -> list[tuple[int, str, str]]:
    """Read (line number, query, answer) from JSON Lines; blank lines are skipped.

    Raises ValueError naming the first bad line, before anything is judged.
    """
    rows = []
    for number, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"line {number}: not valid JSON: {exc.msg}") from None
        if not isinstance(data, dict):
            raise ValueError(f'line {number}: expected an object {{"query": ..., "answer": ...}}')
        query, answer = data.get("query"), data.get("answer", "")
        if not isinstance(query, str) or not query.strip():
            raise ValueError(f'line {number}: "query" must be a non-blank string')
        if not isinstance(answer, str):
            raise ValueError(f'line {number}: "answer" must be a string')
        rows.append((number, query, answer))
    return rows


async def facts_judge_many(rows: list[tuple[int, str, str]]) -> list[list[str]]:
    """Judge each exchange in order (one at a time: a real model has rate limits)."""
    return [await facts_judge(query=query, answer=answer) for _, query, answer in rows]


class Command(BaseCommand):
    help = (
        'Judge exchanges for durable facts: read JSON Lines {"query": ..., "answer": ...} and '
        "print one JSON array of fact sentences per input line, as the memory policy would keep."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--jsonl", required=True, metavar="FILE", help="JSON Lines file, or - for stdin"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        source = options["jsonl"]
        try:
            if source == "-":
                rows = exchanges_read(sys.stdin)
            else:
                with Path(source).open(encoding="utf-8") as stream:
                    rows = exchanges_read(stream)
        except OSError as exc:
            raise CommandError(f"cannot read {source}: {exc.strerror or exc}") from exc
        except ValueError as exc:
            raise CommandError(f"{'stdin' if source == '-' else source}: {exc}") from exc
        results = asyncio.run(facts_judge_many(rows))
        for facts in results:
            self.stdout.write(json.dumps(facts, ensure_ascii=False))
        if int(options["verbosity"]) >= 2:
            kept = sum(len(f) for f in results)
            self.stderr.write(
                self.style.SUCCESS(f"Judged {len(rows)} exchange(s); {kept} fact(s) kept.")
            )
