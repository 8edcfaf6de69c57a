"""Figures and tables."""

from __future__ import annotations

from dataclasses import dataclass

from benchmarks.recall.dialogues import TYPES
from benchmarks.recall.longchat import KINDS as LONGCHAT_KINDS
from benchmarks.recall.store import Answered
from benchmarks.recall.words import KINDS

# --- figures ---------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


@dataclass(frozen=True)
class Figures:
    questions: int
    recall1: float
    recall5: float
    recall10: float
    hit5: float
    hit10: float
    p50: float | None
    p95: float | None


def figures_of(answered: list[Answered]) -> Figures:
    def recall(a: Answered, k: int) -> float:
        answers = set(a.question.answers)
        return len(answers & set(a.ranked[:k])) / len(answers)

    def hit(a: Answered, k: int) -> float:
        return 1.0 if set(a.question.answers) & set(a.ranked[:k]) else 0.0

    n = max(1, len(answered))
    times = [a.ms for a in answered if a.ms is not None]
    return Figures(
        questions=len(answered),
        recall1=sum(recall(a, 1) for a in answered) / n,
        recall5=sum(recall(a, 5) for a in answered) / n,
        recall10=sum(recall(a, 10) for a in answered) / n,
        hit5=sum(hit(a, 5) for a in answered) / n,
        hit10=sum(hit(a, 10) for a in answered) / n,
        p50=pct(times, 50) if times else None,
        p95=pct(times, 95) if times else None,
    )


def table(rows: list[tuple[str, str, list[Answered]]]) -> str:
    """The main table, then recall@10 by kind of question."""
    head = (
        "| ranking | embedder | recall@1 | recall@5 | recall@10 | hit@5 | hit@10 | search p50 "
        "| search p95 |"
    )
    lines = [head, "|---|---|---|---|---|---|---|---|---|"]
    for mode, embedder, answered in rows:
        f = figures_of(answered)
        timing = f"{f.p50:.1f} ms | {f.p95:.1f} ms" if f.p50 is not None else "— | —"
        lines.append(
            f"| {mode} | {embedder} | {f.recall1:.3f} | {f.recall5:.3f} | {f.recall10:.3f} | {f.hit5:.3f} | "
            f"{f.hit10:.3f} | {timing} |"
        )
    lines += ["", "recall@5 / recall@10 by kind of question:", ""]
    lines.append("| ranking | embedder | " + " | ".join(KINDS) + " |")
    lines.append("|---|---|" + "---|" * len(KINDS))
    for mode, embedder, answered in rows:
        cells = []
        for kind in KINDS:
            f = figures_of([a for a in answered if a.question.kind == kind])
            cells.append(f"{f.recall5:.3f} / {f.recall10:.3f}")
        lines.append(f"| {mode} | {embedder} | " + " | ".join(cells) + " |")
    types = sorted({a.question.type for _, _, answered in rows for a in answered} - {""})
    if types:
        types = [t for t in dict.fromkeys((*TYPES, *LONGCHAT_KINDS)) if t in types]
        lines += ["", "recall@1 / recall@5 / recall@10 by type of question:", ""]
        lines += _split(rows, types, lambda a: a.question.type)
    spreads = {_evidence(a) for _, _, answered in rows for a in answered}
    if len(spreads) > 1:
        lines += ["", "recall@1 / recall@5 / recall@10 by number of evidence turns:", ""]
        lines += _split(rows, [s for s in ("1", "2", "3+") if s in spreads], _evidence)
    return "\n".join(lines)


def _evidence(answered: Answered) -> str:
    count = len(answered.question.answers)
    return str(count) if count < 3 else "3+"


def _split(rows, columns: list[str], column_of) -> list[str]:
    """A table of recall@1 / @5 / @10 with a column per value of `column_of`."""
    lines = ["| ranking | embedder | " + " | ".join(columns) + " |"]
    lines.append("|---|---|" + "---|" * len(columns))
    for mode, embedder, answered in rows:
        cells = []
        for column in columns:
            f = figures_of([a for a in answered if column_of(a) == column])
            cells.append(f"{f.recall1:.3f} / {f.recall5:.3f} / {f.recall10:.3f}")
        lines.append(f"| {mode} | {embedder} | " + " | ".join(cells) + " |")
    return lines
