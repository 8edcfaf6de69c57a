"""Run the fact judge over exchanges from a JSON Lines file, one result per line.

With --score, each line also carries the facts it should yield and the command reports the
judge's precision and recall instead. With --score and no --jsonl it scores the labelled
parts apart: the tuning part (tests/data/judge_facts.jsonl with the tuning sets written
later for change, style and one-offs, all read while rules are written) and the frozen
evaluation parts (tests/data/judge_facts_eval.jsonl and judge_facts_eval2.jsonl, only ever
scored), and the gaps between them. The evaluation part is reported by kind and never line by line, so
that its misses cannot become rules.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoryapp.judge import JudgedFact, answer_question, exchange_judge
from memoryapp.prescreen import judging_needed

Slotted = tuple[str, str]  # (slot, value)
DATA = Path(__file__).resolve().parents[3] / "tests" / "data"
TUNING = DATA / "judge_facts.jsonl"
# Tuning sets written later, each on what the first lacked: changes of mind, lifts, style,
# one-offs. Read while rules are written, so they are scored with the tuning part.
TUNING_LATER = (
    DATA / "judge_facts_changes.jsonl",
    DATA / "judge_facts_more.jsonl",
    DATA / "judge_facts_fresh.jsonl",
    DATA / "judge_facts_fresh2.jsonl",
    DATA / "judge_facts_fresh3.jsonl",
)
EVALUATION = DATA / "judge_facts_eval.jsonl"
# A second frozen part, written later by another writer who never read the judge, on what
# the first lacked: changes of mind, lifts, lists, style, units, other people, one-offs.
EVALUATION_2 = DATA / "judge_facts_eval2.jsonl"


@dataclass(frozen=True)
class Exchange:
    line: int
    query: str
    answer: str
    expected: frozenset[Slotted] | None  # None when the line is not labelled
    kind: str = ""  # what a labelled line tests ("past-state", "material-discomfort"), if said
    source: str = ""  # the file's name, when a part is read from more than one file


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
        kind = data.get("kind", "")
        if not isinstance(kind, str):
            raise ValueError(f'line {number}: "kind" must be a string')
        rows.append(Exchange(number, query, answer, _expected_read(data, number), kind))
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


async def exchanges_judge(rows: list[Exchange]) -> list[list[JudgedFact]]:
    """Judge each exchange in order (one at a time: a real model has rate limits)."""
    return [await exchange_judge(query=row.query, answer=row.answer) for row in rows]


def judged_slots(facts: list[JudgedFact]) -> set[Slotted]:
    return {(fact.slot.slot, fact.slot.value) for fact in facts if fact.slot}


def facts_score_by_kind(rows: list[Exchange], results: list[list[JudgedFact]]) -> dict[str, Score]:
    """The score of each kind of line, kinds in alphabetical order ("" for lines with none)."""
    kinds = sorted({row.kind for row in rows})
    return {
        kind: facts_score(
            [row for row in rows if row.kind == kind],
            [facts for row, facts in zip(rows, results, strict=True) if row.kind == kind],
        )
        for kind in kinds
    }


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
            "--jsonl",
            metavar="FILE",
            help="JSON Lines file, or - for stdin (with --score and no file: the tuning and "
            "evaluation parts of the labelled data, apart)",
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
            "(-v 2 lists the lines that differ, never those of the evaluation part)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        source = options["jsonl"]
        verbosity = int(options["verbosity"])
        if source is None:
            if not options["score"]:
                raise CommandError("--jsonl FILE is needed, unless --score scores both parts")
            self._parts_score(verbosity=verbosity)
            return
        rows = self._rows_read(source, score=options["score"])
        results = asyncio.run(exchanges_judge(rows))
        if options["score"]:
            frozen = source != "-" and Path(source).resolve() == EVALUATION.resolve()
            self._score_write(rows, results, verbosity=min(verbosity, 1) if frozen else verbosity)
            return
        for facts in results:
            shown = [fact.as_dict() if options["slots"] else fact.text for fact in facts]
            self.stdout.write(json.dumps(shown, ensure_ascii=False))
        if verbosity >= 2:
            kept = sum(len(f) for f in results)
            self.stderr.write(
                self.style.SUCCESS(f"Judged {len(rows)} exchange(s); {kept} fact(s) kept.")
            )

    def _rows_read(self, source: str, *, score: bool) -> list[Exchange]:
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
        if score and any(row.expected is None for row in rows):
            missing = next(row.line for row in rows if row.expected is None)
            raise CommandError(f'--score needs "expected" on every line; line {missing} has none')
        return rows

    def _parts_score(self, *, verbosity: int) -> None:
        """Score the tuning part and each evaluation part apart, then the gaps between them."""
        scores = {}
        tuning_files = [TUNING, *(path for path in TUNING_LATER if path.exists())]
        parts = [("tuning", tuning_files), ("evaluation", [EVALUATION])]
        if EVALUATION_2.exists():
            parts.append(("second evaluation", [EVALUATION_2]))
        for name, paths in parts:
            rows = self._files_read(paths)
            results = asyncio.run(exchanges_judge(rows))
            shown = " + ".join(str(path.relative_to(DATA.parent.parent)) for path in paths)
            self.stdout.write(f"{name} part ({shown}):")
            if len(paths) > 1:
                self._files_write(rows, results, paths)
            # The evaluation parts' lines stay out of sight: only their figures are shown.
            listed = verbosity if name == "tuning" else min(verbosity, 1)
            scores[name] = self._score_write(rows, results, verbosity=listed)
            if name != "tuning":
                self._kinds_write(rows, results)
        tuning = scores.pop("tuning")
        for name, evaluation in scores.items():
            self.stdout.write(
                f"gap ({name} - tuning): precision {evaluation.precision - tuning.precision:+.3f}, "
                f"recall {evaluation.recall - tuning.recall:+.3f}"
            )

    def _files_read(self, paths: list[Path]) -> list[Exchange]:
        rows = []
        for path in paths:
            read = self._rows_read(str(path), score=True)
            rows += [replace(row, source=path.name) if len(paths) > 1 else row for row in read]
        return rows

    def _files_write(
        self, rows: list[Exchange], results: list[list[JudgedFact]], paths: list[Path]
    ) -> None:
        for path in paths:
            mine = [i for i, row in enumerate(rows) if row.source == path.name]
            score = facts_score([rows[i] for i in mine], [results[i] for i in mine])
            self.stdout.write(
                f"  {path.name}: {score.utterances} utterances, precision "
                f"{score.precision:.3f}, recall {score.recall:.3f}"
            )

    def _kinds_write(self, rows: list[Exchange], results: list[list[JudgedFact]]) -> None:
        by_kind = facts_score_by_kind(rows, results)
        if set(by_kind) == {""}:
            return
        self.stdout.write("  by kind: lines, facts expected / judged / correct")
        for kind, score in by_kind.items():
            self.stdout.write(
                f"  {kind or '(none)'}: {score.utterances}, "
                f"{score.expected} / {score.judged} / {score.correct}"
            )

    def _score_write(
        self, rows: list[Exchange], results: list[list[JudgedFact]], *, verbosity: int
    ) -> Score:
        if verbosity >= 2:
            for row, facts in zip(rows, results, strict=True):
                found, wanted = judged_slots(facts), row.expected or frozenset()
                if found != wanted or len(facts) != len(found):
                    where = f"{row.source} line" if row.source else "line"
                    self.stdout.write(
                        f"{where} {row.line}: {row.query!r}\n"
                        f"  missed {sorted(wanted - found)}; wrong {sorted(found - wanted)}"
                    )
        score = facts_score(rows, results)
        self.stdout.write(
            f"{score.utterances} utterances ({score.without_facts} without facts); "
            f"{score.expected} facts expected, {score.judged} judged, {score.correct} correct\n"
            f"precision {score.precision:.3f}, recall {score.recall:.3f}"
        )
        self.stdout.write(screen_report(rows, results))
        return score


def screen_report(rows: list[Exchange], results: list[list[JudgedFact]]) -> str:
    """What the local screen in front of a hosted judge costs and saves on these lines.

    A line the screen holds back is not judged: its facts are lost whatever the judge. So
    the recall with the screen counts only the facts judged on lines it lets through; and
    the facts expected on lines it holds back are the loss even a perfect judge would see.
    """
    passed = [judging_needed(row.query, answer_question(row.answer)) for row in rows]
    kept = [facts if ok else [] for facts, ok in zip(results, passed, strict=True)]
    screened = facts_score(rows, kept)
    held_back = sum(len(row.expected or ()) for row, ok in zip(rows, passed, strict=True) if not ok)
    expected = sum(len(row.expected or ()) for row in rows)
    called = sum(passed)
    share = called / len(rows) if rows else 0.0
    return (
        f"local screen: the judge is called on {called} of {len(rows)} turns ({share:.1%}); "
        f"recall {screened.recall:.3f} with it; {held_back} of {expected} expected facts are "
        "on lines it holds back"
    )
