"""The notes' token budget: what goes first when the notes would exceed it, and what never goes."""

from __future__ import annotations

from memoryapp.render import notes_budgeted, notes_message, recall_items, tokens_estimate
from tests.support.memory_blocks import episode, fact, turn

FILLER = "with a long tail of words about fabrics, fits and colours " * 3


def _at(minute: int, day: str) -> str:
    return f"{day}T10:{minute:02d}:00+00:00"


def recalled():
    here = [
        turn(f"q{i}", f"a{i}", at=_at(i, "2026-06-01"), summary=f"this visit {i} {FILLER}")
        for i in range(1, 7)
    ]
    visits = [
        turn(
            f"old q{i}",
            "old a",
            at=_at(i, "2026-05-01"),
            session="session2",
            summary=f"earlier visit {i} {FILLER}",
        )
        for i in range(1, 4)
    ]
    facts = [
        fact("The shopper wears size M.", at=_at(1, "2026-04-01"), session="session3"),
        fact("The shopper dislikes yellow.", at=_at(2, "2026-04-01"), session="session3"),
    ]
    episodes = [
        episode(f"Resolved visit {FILLER}", at=_at(1, "2026-03-01"), session="s4", resolved=True),
        episode(f"Open visit {FILLER}", at=_at(1, "2026-02-01"), session="s5", resolved=False),
    ]
    return recall_items(
        session_blocks=here,
        fact_blocks=facts,
        turn_blocks=visits,
        episode_blocks=episodes,
        current_session_id="session1",
        window_turns=3,
        max_chars=500,
    )


def label(line: str) -> str:
    for name in ("this visit 1", "this visit 2", "this visit 3"):
        if name in line:
            return name
    for name in ("earlier visit 1", "earlier visit 2", "earlier visit 3"):
        if name in line:
            return name
    return "resolved" if "Resolved visit" in line else "open" if "Open visit" in line else line


def test_the_least_valuable_lines_go_first_and_the_facts_and_window_never():
    items = recalled()
    full = tokens_estimate(notes_message([i.line for i in items]) or "")
    kept_always = [i.line for i in items if i.scope == "fact" or i.line.startswith("[this visit] ")]
    assert len(kept_always) == 5
    gone: list[str] = []
    for budget in range(full, 0, -5):
        lines = [i.line for i in notes_budgeted(items, max_tokens=budget)]
        assert all(line in lines for line in kept_always)
        if len(lines) > len(kept_always):
            assert tokens_estimate(notes_message(lines) or "") <= budget
        gone += [label(i.line) for i in items if i.line not in lines and label(i.line) not in gone]
    assert gone == [
        "this visit 1",
        "this visit 2",
        "this visit 3",
        "earlier visit 1",
        "earlier visit 2",
        "earlier visit 3",
        "resolved",
        "open",
    ]


def test_notes_within_the_budget_are_left_whole():
    items = recalled()
    full = tokens_estimate(notes_message([i.line for i in items]) or "")
    assert notes_budgeted(items, max_tokens=full) == items
    # One token over: only the least valuable line goes.
    fewer = notes_budgeted(items, max_tokens=full - 1)
    assert [label(i.line) for i in items if i not in fewer] == ["this visit 1"]


def test_the_estimate_counts_words_digit_groups_and_punctuation_as_cl100k_splits_them():
    assert tokens_estimate("") == 0
    assert tokens_estimate("The shopper wears size M.") == 6
    # A date is six pieces (202 6 - 03 - 01), as cl100k splits it, not two words.
    assert tokens_estimate("2026-03-01") == 6
    assert tokens_estimate("hello world\n\nfoo") == 4
