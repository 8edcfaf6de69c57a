"""The notes' token budget: what goes first when the notes would exceed it, and what never goes."""

from __future__ import annotations

import re

from memoryapp.fence import notes_message
from memoryapp.notes_budget import CUT_LINE_CHARS, line_cut, notes_budgeted
from memoryapp.render import recall_items, tokens_estimate
from tests.support.memory_blocks import episode, fact, turn

FILLER = "with a long tail of words about fabrics, fits and colours " * 3


def _at(minute: int, day: str) -> str:
    return f"{day}T10:{minute:02d}:00+00:00"


# Earlier visits' exchanges as the all-sessions search scored them, oldest first.
VISIT_SCORES = [0.9, 0.2, 0.5, 0.7, 0.1, 0.3]


def context_lines(i: int) -> list[str]:
    """What the server's extraction writes for an exchange: what was asked, what was shown."""
    return [
        f"Shopper asked: earlier visit {i}, linen shirts",
        "Shown: Linen Shirt (€39.00), Oxford Shirt (€45.00), Camp Collar Shirt (€35.00)",
        "Colours: white/navy, stone/blue, olive",
        f"Sizes in stock: XS/S/M/L/XL {FILLER}",
    ]


def recalled(*, contexts: bool = False):
    here = [
        turn(f"q{i}", f"a{i}", at=_at(i, "2026-06-01"), summary=f"this visit {i} {FILLER}")
        for i in range(1, 8)
    ]
    visits = [
        turn(
            f"old q{i}",
            "old a",
            at=_at(i, "2026-05-01"),
            session="session2",
            summary=None if contexts else f"earlier visit {i} {FILLER}",
            contexts=context_lines(i) if contexts else None,
            score=score,
        )
        for i, score in enumerate(VISIT_SCORES, start=1)
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
    for kind in ("this visit", "earlier visit"):
        for i in range(1, 8):
            if re.search(rf"\b{kind} {i}\b", line.split("] ", 1)[1]):
                return f"{kind} {i}"
    return "resolved" if "Resolved visit" in line else "open" if "Open visit" in line else line


def size(lines) -> int:
    return tokens_estimate(notes_message(list(lines)) or "")


def test_the_rest_goes_least_relevant_first_and_every_search_keeps_its_best():
    items = recalled()
    full = size(i.line for i in items)
    kept_always = [i.line for i in items if i.scope == "fact" or i.line.startswith("[this visit] ")]
    assert len(kept_always) == 5
    gone: list[str] = []
    for budget in range(full, 0, -5):
        kept = notes_budgeted(items, max_tokens=budget)
        lines = [i.line for i in kept]
        assert all(line in lines for line in kept_always)
        gone += [label(i.line) for i in items if i.line not in lines and label(i.line) not in gone]
    # This visit's older exchanges are listed without a score: they go first, oldest first,
    # then earlier visits' by their score; each search's best stay.
    assert gone == [
        "this visit 1",
        "this visit 2",
        "earlier visit 5",
        "earlier visit 2",
        "resolved",
    ]
    floor = [label(i.line) for i in notes_budgeted(items, max_tokens=1)]
    assert [name for name in floor if name.split()[-1].isdigit() or name == "open"] == [
        "open",  # the best past-visit summary: unresolved
        "earlier visit 1",  # the four best scored: 0.9, 0.5, 0.7 and 0.3
        "earlier visit 3",
        "earlier visit 4",
        "earlier visit 6",
        "this visit 3",  # this visit's two newest older exchanges
        "this visit 4",
    ]


def test_over_budget_with_only_the_floors_left_their_longest_lines_are_cut_at_a_context():
    items = recalled(contexts=True)
    floors = notes_budgeted(items, max_tokens=1)
    whole = {label(i.line): i.line for i in items}
    cut = {label(i.line): i.line for i in floors}
    for i in (1, 3, 4, 6):
        name = f"earlier visit {i}"
        assert len(whole[name]) > CUT_LINE_CHARS
        # Cut after its last whole context within the limit: what was asked, what was shown.
        assert cut[name] == "[earlier visit · 2026-05-01] " + "; ".join(context_lines(i)[:3]) + "…"
    # Facts and the verbatim window are never cut.
    assert [i.line for i in floors if i.scope == "fact" or i.line.startswith("[this visit] ")] == [
        i.line for i in items if i.scope == "fact" or i.line.startswith("[this visit] ")
    ]
    # Cutting stops once the notes fit: with room for one whole line more, one stays whole.
    budget = size(i.line for i in floors) + 60
    some = notes_budgeted(items, max_tokens=budget)
    assert size(i.line for i in some) <= budget
    assert [i.line for i in some].count(whole["earlier visit 6"]) == 1
    assert [i.line == whole[label(i.line)] for i in some if i.scope == "turn"].count(False) == 3


def test_notes_within_the_budget_are_left_whole():
    items = recalled()
    full = size(i.line for i in items)
    assert notes_budgeted(items, max_tokens=full) == items
    # One token over: only the least valuable line goes.
    fewer = notes_budgeted(items, max_tokens=full - 1)
    assert [label(i.line) for i in items if i not in fewer] == ["this visit 1"]


def test_a_cut_line_ends_after_a_context_or_a_sentence_or_else_a_word():
    line = "[earlier visit · 2026-05-01] Shopper asked: boots; Shown: Oxford Boot (€90.00)"
    assert line_cut(line, max_chars=70) == "[earlier visit · 2026-05-01] Shopper asked: boots…"
    assert line_cut(line, max_chars=len(line)) == line
    sentences = "[past visit summary · 2026-05-01 · resolved] Boots were shown. The shopper left."
    assert line_cut(sentences, max_chars=70) == (
        "[past visit summary · 2026-05-01 · resolved] Boots were shown.…"
    )
    words = "[earlier visit · 2026-05-01] " + "word " * 20
    assert (
        line_cut(words, max_chars=60)
        == "[earlier visit · 2026-05-01] word word word word word word…"
    )


def test_the_estimate_counts_words_digit_groups_and_punctuation_as_cl100k_splits_them():
    assert tokens_estimate("") == 0
    assert tokens_estimate("The shopper wears size M.") == 6
    # A date is six pieces (202 6 - 03 - 01), as cl100k splits it, not two words.
    assert tokens_estimate("2026-03-01") == 6
    assert tokens_estimate("hello world\n\nfoo") == 4
