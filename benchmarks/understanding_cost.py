"""Benchmark what reading by meaning costs an offline turn: the catalog ranked by meaning and
a message's act read with MiniLM, against words alone.

    .venv/bin/python -m benchmarks.understanding_cost [--rounds 2]

Replays the tuning conversations (`tests/data/conversations.jsonl`) turn by turn as
`score_conversations` does (the offline model, the real catalog tools, the fact judge after
each turn), timing each turn from its messages to its answer. Each round runs every
conversation twice in turn, once by words alone (`CATALOG_MEANING_ENCODER` empty, acts by
word likeness) and once with the defaults, so a drift of the machine's speed falls on both;
MiniLM is loaded before the first timing. Prints p50 and p95 per turn of each, and the
difference of the p95s. SQLite on a temporary database.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from benchmarks.support.catalog_timing import catalog_ready, figures, shop_ready

TUNING = Path(__file__).resolve().parents[1] / "tests" / "data" / "conversations.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    shop_ready(prefix="aisle-bench-understanding-")
    catalog_ready()
    from django.conf import settings
    from django.core.management import call_command

    from assistant.management.commands import score_conversations as scorer
    from llm.offline.assistant import acts
    from shop import meaning
    from shop.selectors import catalog_vocabulary

    call_command("catalog_meaning", verbosity=0)
    vocabulary = catalog_vocabulary()
    conversations = scorer.conversations_load(TUNING)
    encoder = settings.CATALOG_MEANING_ENCODER
    samples: dict[str, list[float]] = {"words": [], "meaning": []}
    replay = scorer._turn_replay

    async def timed_replay(messages, tools, vocab):
        started = time.perf_counter()
        replayed = await replay(messages, tools, vocab)
        samples[mode].append((time.perf_counter() - started) * 1000)
        return replayed

    scorer._turn_replay = timed_replay
    acts.act_by_meaning("warm up")  # MiniLM's load is a start-up cost, not a turn's
    for _ in range(args.rounds):
        for conversation in conversations:
            for mode in ("words", "meaning"):
                settings.CATALOG_MEANING_ENCODER = encoder if mode == "meaning" else ""
                meaning.meaning_reset()
                acts.act_by_meaning.cache_clear()
                acts._bank_vectors.cache_clear()
                acts._model[:] = [None] if mode == "words" else []
                scorer.conversation_score(conversation, vocabulary=vocabulary)
    for mode, values in samples.items():
        print(f"  {mode:<8} {len(values)} turns  {figures(values)}")
    p95 = {mode: sorted(v)[int(0.95 * (len(v) - 1))] for mode, v in samples.items()}
    print(f"  p95 meaning - words: {p95['meaning'] - p95['words']:+.1f} ms")


if __name__ == "__main__":
    main()
