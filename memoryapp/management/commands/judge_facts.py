"""Run the fact judge over exchanges from a JSON Lines file, one result per line.

With --score, each line also carries the facts it should yield and the command reports the
judge's precision and recall instead (tests/data/judge_facts.jsonl is the labelled set).
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoryapp.judge import JudgedFact, facts_judge

Slotted = tuple[str, str]  # (slot, value)


@dataclass(frozen=True)
class Exchange:
    line: int
    query: str
    answer: str
    expected: frozenset[Slotted] | None  # None when the line is not labelled


@dataclass(frozen=True)
class Score:
    utterances: int
    without_facts: int
    expected: int
    judged: int
    correct: int

    @property
    def precision(self) -> float:
        return self.correct / self.judged if self.judged else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.expected if self.expected else 1.0


def exchanges_read(stream: TextIO) -> list[Exchange]:
    """Read exchanges from JSON Lines; blank lines are skipped.

    Each line is {"query": ..., "answer": ... (optional), "expected": [{"slot": ...,
    "value": ...}, ...] (optional)}. Raises ValueError naming the first bad line, before
    anything is judged.
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
        rows.append(Exchange(number, query, answer, _expected_read(data, number)))
    return rows


def _expected_read(data: dict[str, Any], number: int) -> frozenset[Slotted] | None:
    if "expected" not in data:
        return None
    expected = data["expected"]
    problem = f'line {number}: "expected" must be a list of {{"slot": ..., "value": ...}}'
    if not isinstance(expected, list):
        raise ValueError(problem)
    pairs = set()
    for item in expected:
        if not (
            isinstance(item, dict)
            and isinstance(item.get("slot"), str)
            and isinstance(item.get("value"), str)
        ):
            raise ValueError(problem)
        pairs.add((item["slot"], item["value"]))
    return frozenset(pairs)


async def facts_judge_many(rows: list[Exchange]) -> list[list[JudgedFact]]:
    """Judge each exchange in order (one at a time: a real model has rate limits)."""
    return [await facts_judge(query=row.query, answer=row.answer) for row in rows]


def judged_slots(facts: list[JudgedFact]) -> set[Slotted]:
    return {(fact.slot.slot, fact.slot.value) for fact in facts if fact.slot}


def facts_score(rows: list[Exchange], results: list[list[JudgedFact]]) -> Score:
    """Precision and recall over (slot, value) pairs; a fact without a slot counts as wrong."""
    expected = judged = correct = 0
    for row, facts in zip(rows, results, strict=True):
        wanted = row.expected or frozenset()
        found = judged_slots(facts)
        expected += len(wanted)
        judged += len(facts)
        correct += len(found & wanted)
    return Score(
        utterances=len(rows),
        without_facts=sum(1 for row in rows if not row.expected),
        expected=expected,
        judged=judged,
        correct=correct,
    )


class Command(BaseCommand):
    help = (
        'Judge exchanges for durable facts: read JSON Lines {"query": ..., "answer": ...} and '
        "print one JSON array of fact sentences per input line, as the memory policy would keep. "
        'With --score, lines also carry "expected" facts and the precision and recall are printed.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--jsonl", required=True, metavar="FILE", help="JSON Lines file, or - for stdin"
        )
        output = parser.add_mutually_exclusive_group()
        output.add_argument(
            "--slots",
            action="store_true",
            help="print each fact as {fact, category, slot, value} instead of its sentence",
        )
        output.add_argument(
            "--score",
            action="store_true",
            help='compare with each line\'s "expected" facts and print precision and recall '
            "(-v 2 lists the lines that differ)",
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
        if options["score"] and any(row.expected is None for row in rows):
            missing = next(row.line for row in rows if row.expected is None)
            raise CommandError(f'--score needs "expected" on every line; line {missing} has none')
        results = asyncio.run(facts_judge_many(rows))
        verbosity = int(options["verbosity"])
        if options["score"]:
            self._score_write(rows, results, verbosity=verbosity)
            return
        for facts in results:
            shown = [fact.as_dict() if options["slots"] else fact.text for fact in facts]
            self.stdout.write(json.dumps(shown, ensure_ascii=False))
        if verbosity >= 2:
            kept = sum(len(f) for f in results)
            self.stderr.write(
                self.style.SUCCESS(f"Judged {len(rows)} exchange(s); {kept} fact(s) kept.")
            )

    def _score_write(
        self, rows: list[Exchange], results: list[list[JudgedFact]], *, verbosity: int
    ) -> None:
        if verbosity >= 2:
            for row, facts in zip(rows, results, strict=True):
                found, wanted = judged_slots(facts), row.expected or frozenset()
                if found != wanted or len(facts) != len(found):
                    self.stdout.write(
                        f"line {row.line}: {row.query!r}\n"
                        f"  missed {sorted(wanted - found)}; wrong {sorted(found - wanted)}"
                    )
        score = facts_score(rows, results)
        self.stdout.write(
            f"{score.utterances} utterances ({score.without_facts} without facts); "
            f"{score.expected} facts expected, {score.judged} judged, {score.correct} correct\n"
            f"precision {score.precision:.3f}, recall {score.recall:.3f}"
        )
