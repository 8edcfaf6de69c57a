"""Part "index": one user's index searched per mode, and a write's embedding, in process."""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime, timedelta

from benchmarks.memory_server.common import (
    block_text,
    child_run,
    fmt,
)


def index_in_process(blocks: int, searches: int) -> None:
    """Time `UserIndex.search` per mode over a synthetic user, and a write's embedding."""
    import numpy as np

    from benchmarks.recall.dialogues import dialogues_generate
    from memoryserver.blas import single_threaded_blas
    from memoryserver.embedders import get_embedder
    from memoryserver.index.rows import IndexRow, Query
    from memoryserver.index.slot import UserIndex
    from memoryserver.terms import query_terms

    single_threaded_blas()
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(blocks, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    words = "sofa teal velvet friday lisbon trip puppy pepper kitten boots size rain".split()
    index = UserIndex(dimensions=384)
    start = datetime(2023, 1, 1, tzinfo=UTC)
    for n in range(blocks):
        at = start + timedelta(hours=n)
        text = " ".join(rng.choice(words, 8))
        row = IndexRow(n, f"b{n}", f"s{n // 25}", vectors[n], at, at, None, "ready", None,
                       None, None, text)  # fmt: skip
        index.upsert(row)
    queries = rng.normal(size=(searches, 384)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    dated: dict[str, object] = {}
    try:  # a query naming a month, where the index reads the times a query names
        from memoryserver.index.when import query_times

        dated["times"] = query_times("the teal sofa in May 2023", datetime.now(UTC))
    except ImportError:
        pass
    terms = query_terms("the teal sofa in May 2023")
    for mode in ("dense", "lexical", "hybrid"):
        timings = []
        for vector in queries:
            query = Query(now=time.time(), vector=vector if mode != "lexical" else None,
                          terms=terms if mode != "dense" else None, relevant_k=10, **dated)  # fmt: skip
            t = time.perf_counter()
            index.search(query)
            timings.append((time.perf_counter() - t) * 1000)
        print(f"index: {mode:7} search at {blocks} blocks, in process  {fmt(timings[10:])}")
    texts = [t.block for d in dialogues_generate(conversations=1) for c in d.chats for t in c.turns]
    texts = texts[:200] + [block_text(n) for n in range(100)]
    embedder = get_embedder()
    embedder.embed(texts[:8])  # warm up
    try:
        from memoryserver.index.sentences import blocks_embedded
    except ImportError:
        blocks_embedded = None
    alone, with_sentences = [], []
    for n, text in enumerate(texts):
        text = f"{text} ({n})"  # distinct, past the embedder's cache
        t = time.perf_counter()
        embedder.embed([text])
        alone.append((time.perf_counter() - t) * 1000)
        if blocks_embedded is not None:
            t = time.perf_counter()
            blocks_embedded(embedder, [f"{text}."])
            with_sentences.append((time.perf_counter() - t) * 1000)
    print(f"index: embed a block alone            {fmt(alone)}")
    if with_sentences:
        print(f"index: embed a block and its sentences {fmt(with_sentences)}")


def run_index(embedder: str, args: argparse.Namespace) -> None:
    print(f"\n== embedder {embedder}: index and embedding in process")
    child_run(
        ["--index-in-process", str(args.index_blocks), "--searches", str(args.searches)],
        AGENT_MEMORY_EMBEDDER=embedder,
    )
