"""Retrieval benchmark: does a later turn's search find the memories that answer it?

    .venv/bin/python -m benchmarks.memory_recall [--shoppers 40] [--conversations 10]
        [--longchat 10] [--longchat-half both|tuning|held-out] [--seed 7]
        [--embedders hashing,minilm] [--modes dense,lexical,hybrid] [--in-process] [--quick]

Four generated sets, one table each, the long chats' two halves apart (the dialogues are
described in `benchmarks/recall/dialogues.py`, the long chats in
`benchmarks/recall/longchat.py`).

Shoppers. A deterministic set of shopper histories from the shop's catalog fixture: each
shopper visits 5-15 times and states sizes per garment type, brands, colours liked and
disliked, a budget, dated occasions and the people they buy for; they look at products (one
jacket on their last visit) and chat about delivery, returns and other products in between.
Every visit is one Agent Memory session, and every exchange is stored by the memory policy's
own recording code (`benchmarks/recall/policy.py`: `memoryapp.recording`'s `turn_record` and
`facts_record`, a turn block per exchange and the facts a judge would keep, consolidated:
a fact said again is stored once, a changed one retires the older value into history). The histories are then asked the questions a later turn would ask ("what's my
shoe size?", "is the jacket from last time still there?"), each labelled with the blocks that
answer it, from a fresh session searching all of the shopper's sessions like the app's
recall.

Conversations (the regime of public long-conversation sets): two friends chatting over 12-20
dated sessions, every turn stored as one block ("Name: what they said", the first speaker's
turns as user content, the other's as assistant content, context required). Each tells the
other about a class they tried, a pet, a trip, a relative moving in, a promotion, an
instrument, a book, a race and an old friend met again, some kinds twice, among reactions,
follow-ups, later talk naming the same pet, place or person, and small talk. Each question
("When did Gina go to Tbilisi?") is about one thing one speaker said and is answered by that
one turn.

Long chats (`benchmarks/recall/longchat.py`): the shape of the public long-conversation
sets, questions of their four kinds (single-hop, multi-hop, temporal, open-domain) with
their evidence turns, many with two or more; tables by kind and by number of evidence
turns. Its first half of conversations is for trying rules on, the second half is
reported apart and never tuned on.

Questions come in three kinds, measured on their words rather than assumed: `exact` shares
the rare word (brand, size, date, name, product, place) with its answer, `topic` shares only
common words, `paraphrase` shares no content word at all.

For each embedder the sets are stored once; the server then restarts on the same data once
per search mode (AGENT_MEMORY_SEARCH_MODE). Figures: recall@5 / recall@10 (the share of a
question's answering blocks in the top 5 / 10, averaged over questions), hit@5 / hit@10 (the
share of questions with at least one answering block there) and the search time over HTTP
through the SDK. A plain BM25 ranking over the same texts, computed here in-process, is the
reference line. Every query text is distinct (the server caches query vectors), and the
figures other than timings are the same on every run with the same seed.

`--in-process` ranks with the server's own code (embedder, extractive extractor, terms,
index, fusion) in this process instead of through a server: the same recall figures (a test
checks it against a live server), no timings, for trying a change to the ranking on the
whole set. The shoppers' visits are still written by the memory policy, once per run, to a
scratch server with the hashing embedder, and read back: the in-process ranking indexes
exactly the blocks the policy left (a few minutes on a loaded machine; the rest, seconds
with hashing).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace

from agentmemory import AgentMemoryClient

from benchmarks.recall.conversations import conversations_generate, describe_conversations
from benchmarks.recall.dialogues import describe_dialogues, dialogues_generate
from benchmarks.recall.inprocess import ask_in_process
from benchmarks.recall.longchat import describe_longchat, halves, longchat_generate
from benchmarks.recall.report import figures_of, table
from benchmarks.recall.shoppers import dataset_generate, describe
from benchmarks.recall.store import (
    Answered,
    History,
    extraction_wait,
    history_store,
    shoppers_ask,
    shoppers_ask_bm25,
)
from benchmarks.recall.words import DEFAULT_SEED, RELEVANT_K

# --- running it ------------------------------------------------------------------------------


Rows = list[tuple[str, str, list[Answered]]]


def run_embedder(
    embedder: str, modes: list[str], sets: dict[str, list[History]], log: Callable[[str], None]
) -> dict[str, Rows]:
    """Store every set in one server, then ask each set's questions once per search mode."""
    from harness.memoryserver import start_agentmemory_server

    env = {"AGENT_MEMORY_EMBEDDER": embedder, "AGENT_MEMORY_EXTRACTOR": "extractive"}
    histories = [h for chosen in sets.values() for h in chosen]
    rows: dict[str, Rows] = {name: [] for name in sets}
    with tempfile.TemporaryDirectory(prefix=f"recall-{embedder}-") as tmp:
        base_url, stop = start_agentmemory_server(tmp, **env)
        started = time.monotonic()
        try:
            with AgentMemoryClient(base_url=base_url, max_retries=0, timeout=120) as client:
                ids: dict[str, str] = {}
                for history in histories:
                    ids.update(history_store(client, history))
                extraction_wait(client, histories)
        finally:
            stop()
        log(f"{embedder}: stored {len(ids)} blocks in {time.monotonic() - started:.0f} s")
        # One server per mode on the same data: a fresh process, so no query vector is cached.
        for mode in modes:
            base_url, stop = start_agentmemory_server(tmp, AGENT_MEMORY_SEARCH_MODE=mode, **env)
            try:
                with AgentMemoryClient(base_url=base_url, max_retries=0, timeout=120) as client:
                    for name, chosen in sets.items():
                        answered = shoppers_ask(client, chosen, ids)
                        rows[name].append((mode, embedder, answered))
                        figures = figures_of(answered)
                        log(
                            f"{embedder} {mode} {name}: recall@5 {figures.recall5:.3f} "
                            f"recall@10 {figures.recall10:.3f}"
                        )
            finally:
                stop()
    return rows


def run_in_process(
    embedder: str,
    modes: list[str],
    sets: dict[str, list[History]],
    log: Callable[[str], None],
    neighbour_credit: float | None = None,
) -> dict[str, Rows]:
    rows: dict[str, Rows] = {}
    for name, chosen in sets.items():
        started = time.monotonic()
        answered = ask_in_process(chosen, embedder, modes, neighbour_credit)
        log(f"{embedder} {name}: ranked in process in {time.monotonic() - started:.0f} s")
        rows[name] = [(mode, embedder, answered[mode]) for mode in modes]
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shoppers", type=int, default=40)
    parser.add_argument(
        "--conversations", type=int, default=10, help="the conversational set; 0 leaves it out"
    )
    parser.add_argument(
        "--dialogues", type=int, default=10, help="the dialogue set; 0 leaves it out"
    )
    parser.add_argument(
        "--longchat",
        type=int,
        default=10,
        help="the long-chat set (both halves, reported apart); 0 leaves it out",
    )
    parser.add_argument(
        "--longchat-half",
        choices=("both", "tuning", "held-out"),
        default="both",
        help="only one half of the long-chat set: try rules on the tuning half alone",
    )
    parser.add_argument(
        "--dialogue-extraction",
        action="store_true",
        help="store the dialogues' turns with the server's summary and contexts extraction",
    )
    parser.add_argument(
        "--neighbour-credit",
        type=float,
        default=None,
        help="in process: the share of a hit's score its session neighbours gain",
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--embedders", default="hashing,minilm")
    parser.add_argument("--modes", default="dense,lexical,hybrid")
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="rank with the server's code in this process: the same recall, no timings, seconds",
    )
    parser.add_argument(
        "--quick", action="store_true", help="a smoke run: 6 shoppers, hashing embedder only"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.shoppers, args.conversations, args.embedders = 6, 2, "hashing"
        args.longchat = 2
    sets: dict[str, list[History]] = {}
    if args.shoppers:
        sets["shoppers"] = dataset_generate(shoppers=args.shoppers, seed=args.seed)
    if args.dialogues:
        sets["dialogues"] = [
            replace(d, context_required=args.dialogue_extraction)
            for d in dialogues_generate(conversations=args.dialogues, seed=args.seed)
        ]
    if args.conversations:
        sets["conversations"] = conversations_generate(
            conversations=args.conversations, seed=args.seed
        )

    if args.longchat:
        tuning, held_out = halves(longchat_generate(conversations=args.longchat, seed=args.seed))
        if args.longchat_half != "held-out":
            sets["longchat (tuning half)"] = tuning  # type: ignore[assignment]
        if args.longchat_half != "tuning":
            sets["longchat (held-out half)"] = held_out  # type: ignore[assignment]

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    modes = args.modes.split(",")
    where = "in process" if args.in_process else "SDK over HTTP on 127.0.0.1"
    print(f"Memory recall benchmark, seed {args.seed}")
    if "shoppers" in sets:
        print(f"Shoppers: {describe(sets['shoppers'])}")  # type: ignore[arg-type]
    if "dialogues" in sets:
        extraction = "with" if args.dialogue_extraction else "without"
        print(f"Dialogues ({extraction} extraction): {describe_dialogues(sets['dialogues'])}")  # type: ignore[arg-type]
    if "conversations" in sets:
        print(f"Conversations: {describe_conversations(sets['conversations'])}")  # type: ignore[arg-type]
    for name in sets:
        if name.startswith("longchat"):
            print(f"Long chats, {name.removeprefix('longchat ')}: {describe_longchat(sets[name])}")  # type: ignore[arg-type]
    print(f"Search: top {RELEVANT_K} over all of a user's sessions, {where}")
    rows = {
        name: [("bm25 (reference, in-process)", "—", shoppers_ask_bm25(chosen))]
        for name, chosen in sets.items()
    }
    for embedder in args.embedders.split(","):
        if args.in_process:
            found_sets = run_in_process(embedder, modes, sets, log, args.neighbour_credit)
        else:
            found_sets = run_embedder(embedder, modes, sets, log)
        for name, found in found_sets.items():
            rows[name] += found
    for name in sets:
        print()
        print(f"{name}:")
        print()
        print(table(rows[name]))


if __name__ == "__main__":
    main()
