"""The inspector's words for what a turn saved, run in Node on the shipped module itself."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
INSPECTOR = ROOT / "static" / "js" / "chat" / "inspector.js"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")


def saved_text(added: dict) -> dict:
    script = (
        f"import {{ savedText }} from {json.dumps(INSPECTOR.as_uri())};\n"
        f"console.log(JSON.stringify(savedText({json.dumps(added)})));"
    )
    result = subprocess.run(
        ["node", "--experimental-default-type=module", "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return json.loads(result.stdout)


def test_failed_writes_read_not_saved_never_none():
    text = saved_text(
        {"block_ids": {"turn": [], "fact": []}, "facts": [], "failed": ["turn", "facts"]}
    )
    assert text["turn"] == "Turn block: not saved — memory unavailable"
    assert text["facts"] == "Fact blocks: not saved — memory unavailable"
    assert text["noFacts"] is None  # not "No new facts": the facts were lost, not absent


def test_a_turn_saved_with_one_fact_lost_names_both():
    text = saved_text(
        {"block_ids": {"turn": ["b1"], "fact": ["b2"]}, "facts": ["x"], "failed": ["facts"]}
    )
    assert text["turn"] == "Turn block: b1"
    assert text["facts"] == "Fact blocks: b2; not saved — memory unavailable"


def test_a_turn_with_nothing_to_save_still_says_none():
    text = saved_text({"block_ids": {"turn": ["b1"], "fact": []}, "facts": [], "failed": []})
    assert text == {
        "turn": "Turn block: b1",
        "facts": "Fact blocks: none",
        "noFacts": "No new facts in this turn.",
        "failed": False,
    }
