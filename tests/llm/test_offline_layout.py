"""The offline assistant's package: one module per stage, each small enough to read whole."""

from __future__ import annotations

from pathlib import Path

import llm.offline.assistant

STAGE_MAX_LINES = 450


def test_each_stage_of_the_offline_assistant_is_at_most_450_lines() -> None:
    package = Path(llm.offline.assistant.__file__).parent
    sizes = {path.name: len(path.read_text().splitlines()) for path in package.glob("*.py")}
    assert {"state.py", "plan.py", "answer.py"} <= set(sizes)
    assert {name: size for name, size in sizes.items() if size > STAGE_MAX_LINES} == {}
