"""docs/protocol.md and the code cannot drift: every documented field exists, and the reverse."""

from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path

import pytest

from assistant.protocol import events
from assistant.protocol.validation import TurnRequest

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
_ROW = re.compile(r"^\|\s*`(?P<name>[^`]+)`\s*\|(?P<rest>.*)\|\s*$")


def _without_parentheses(text: str) -> str:
    """Drop every (...) group, nested ones included: they describe a field, not name one."""
    out, depth = [], 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(char)
    return "".join(out)


def _tables(header: str) -> list[list[str]]:
    """The rows of every table whose header line starts with `header`."""
    tables, current = [], None
    for line in DOC.splitlines():
        if line.startswith(header):
            current = []
            tables.append(current)
        elif current is not None and line.startswith("|"):
            if not line.startswith("|---"):
                current.append(line)
        else:
            current = None
    return tables


def documented_events() -> dict[str, list[str]]:
    """Event type -> the fields its table row names (before any " — " remark)."""
    documented: dict[str, list[str]] = {}
    for table in _tables("| event | fields |"):
        for row in table:
            match = _ROW.match(row)
            assert match, f"unreadable event row: {row}"
            listed = _without_parentheses(match.group("rest")).split("—")[0]
            documented[match.group("name")] = re.findall(r"`([a-z_]+)`", listed)
    return documented


def test_the_document_has_the_event_tables():
    documented = documented_events()
    assert {"session", "done", "stopped", "welcome", "memory.changed"} <= set(documented)
    assert documented["done"] == [
        "text",
        "products",
        "more",
        "turn_id",
        "model",
        "spans",
        "grounding",
    ]


@pytest.mark.parametrize("event_type", sorted(events.EVENT_TYPES))
def test_every_event_is_documented_with_exactly_its_fields(event_type):
    documented = documented_events()
    assert event_type in documented, f"{event_type} is missing from docs/protocol.md"
    assert documented[event_type] == events.event_fields(event_type)


def test_every_documented_event_exists():
    assert set(documented_events()) == set(events.EVENT_TYPES)


def test_the_message_frame_fields_match_the_parser():
    (table,) = _tables("| field | type | rule |")
    documented = [_ROW.match(row).group("name") for row in table]
    assert documented == [f.name for f in fields(TurnRequest)]


def test_modes_and_error_codes_match():
    modes = re.findall(r"`mode` \(([^)]*)\)", DOC)[0]  # in the session row
    assert tuple(re.findall(r"`([a-z_]+)`", modes)) == events.MODES
    codes = re.search(r"Error codes:(.*?)\n\n", DOC, re.S).group(1)
    assert tuple(int(c) for c in re.findall(r"`(\d{3})`", codes)) == events.ERROR_CODES


def test_json_examples_carry_exactly_the_documented_fields():
    examples = [
        json.loads(block)
        for block in re.findall(r"```json\n(.*?)```", DOC, re.S)
        if block.lstrip().startswith("{")
    ]
    checked = 0
    for example in examples:
        kind = example["type"]
        if kind in events.EVENT_TYPES:
            assert set(example) - {"type"} == set(events.event_fields(kind))
            checked += 1
        elif kind == "message":
            assert set(example) - {"type"} <= {f.name for f in fields(TurnRequest)}
            checked += 1
    assert checked >= 2
