"""The fault suite's figures: counted per test, printed once after the run.

Under pytest-xdist a test runs in a worker process while the run's summary is printed by
the controller, so each test's figures travel with its report (`user_properties`) and the
controller adds them up; without xdist the same path runs in one process.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.support.chat import Outcome

PROPERTY = "memory-server fault figures"


class Figures:
    """Per-scenario counts and timings, printed after the run (never asserted on time)."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self.seconds: dict[str, list[float]] = defaultdict(list)

    def turn(self, scenario: str, outcome: Outcome) -> None:
        row = self.rows[scenario]
        row["turns"] += 1
        row["answered"] += bool(outcome.answer)
        row["remembering"] += outcome.session["mode"] == "remembering"
        row["acknowledged"] += len(outcome.written)
        self.seconds[scenario].append(outcome.seconds)

    def kept(self, scenario: str, *, acknowledged: int, found: int, unacknowledged: int) -> None:
        self.rows[scenario]["acknowledged blocks checked"] += acknowledged
        self.rows[scenario]["found after restart"] += found
        # Written by the server, but the shop never heard so (the answer to the write died).
        self.rows[scenario]["kept unacknowledged"] += unacknowledged

    def as_property(self) -> tuple[str, str]:
        return PROPERTY, json.dumps({"rows": self.rows, "seconds": self.seconds})

    def merge_property(self, value: str) -> None:
        figures = json.loads(value)
        for scenario, row in figures["rows"].items():
            for name, count in row.items():
                self.rows[scenario][name] += count
        for scenario, values in figures["seconds"].items():
            self.seconds[scenario].extend(values)


RUN = Figures()


def report_collect(report) -> None:
    for name, value in report.user_properties:
        if name == PROPERTY:
            RUN.merge_property(value)


def summary_write(terminalreporter) -> None:
    if not RUN.rows:
        return
    write = terminalreporter.write_line
    terminalreporter.section(PROPERTY)
    write(
        f"{'scenario':<34} {'turns':>5} {'answered':>8} {'remembered':>10} "
        f"{'acked':>5} {'checked':>7} {'kept':>4} {'unacked kept':>12} {'slowest turn':>12}"
    )
    for scenario, row in RUN.rows.items():
        slowest = max(RUN.seconds[scenario], default=0.0)
        write(
            f"{scenario:<34} {row['turns']:>5.0f} {row['answered']:>8.0f} "
            f"{row['remembering']:>10.0f} {row['acknowledged']:>5.0f} "
            f"{row['acknowledged blocks checked']:>7.0f} {row['found after restart']:>4.0f} "
            f"{row['kept unacknowledged']:>12.0f} {slowest:>11.2f}s"
        )
