"""Benchmark the MiniLM embedder: numpy against ONNX Runtime, in one run.

    .venv/bin/python -m benchmarks.embedder [--queries 300] [--batch 256] [--threads 1,2]
        [--writes 60] [--parts query,two,batch,write,agreement]

For the numpy encoder and for ONNX Runtime with each --threads value (intra-op threads per
embedding; the server uses 1), prints:
- one query: p50/p95 of embedding a single distinct shopper query, the search path's cost
  (every text is distinct across the whole run: the server caches query vectors, so a
  repeated text would measure the cache); the runtimes take turns query by query, so
  background load hits them alike;
- two at once: two threads each embedding distinct queries, as two concurrent searches do;
  p50 per query and queries per second in all;
- batch: texts per second embedding --batch distinct facts and conversation turns of mixed
  length (up to past the 256-token limit) in one call, as writes do;
- a write: CPU per turn block with its sentence vectors (`index.sentences.blocks_embedded`,
  what an add embeds), over --writes distinct turns, ONNX Runtime on one thread, with the
  forward passes planned by length (`llm.embedding.passes_planned`) and with the plan before
  it (`filled_in_length_order`: one pass filled in length order up to 32 texts and 2,048
  tokens with padding), block by block in turn; thread CPU time, so other tenants of the
  machine slow it less than they would a wall-clock figure; and the largest cosine
  distance between the two plans' vectors;
- agreement with numpy: cosine per text over queries, facts and turns, and identical top-10
  neighbours for 50 queries over 500 facts.
BLAS runs on one thread, as in the server.
"""

from __future__ import annotations

import argparse
import os
import platform
import threading
import time
from pathlib import Path

import numpy as np

from harness.shopper_texts import shopper_facts, shopper_queries, shopper_turns
from llm.embedding import MiniLMEmbedder
from memoryserver.blas import single_threaded_blas
from memoryserver.index.sentences import blocks_embedded, sentences_of


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def one_query(embedders: dict[str, MiniLMEmbedder], queries: list[str]) -> dict[str, list[float]]:
    timings: dict[str, list[float]] = {label: [] for label in embedders}
    turns = iter(queries)
    for _ in range(len(queries) // len(embedders)):
        for label, embedder in embedders.items():
            text = next(turns)
            started = time.perf_counter()
            embedder.embed([text])
            timings[label].append((time.perf_counter() - started) * 1000)
    return timings


def two_at_once(embedder: MiniLMEmbedder, queries: list[str]) -> tuple[list[float], float]:
    timings: list[float] = []
    halves = [queries[0::2], queries[1::2]]
    barrier = threading.Barrier(2)

    def run(texts: list[str]) -> None:
        barrier.wait()
        for text in texts:
            started = time.perf_counter()
            embedder.embed([text])
            timings.append((time.perf_counter() - started) * 1000)

    threads = [threading.Thread(target=run, args=(half,)) for half in halves]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return timings, len(queries) / (time.perf_counter() - started)


def filled_in_length_order(token_ids: list[list[int]]) -> list[list[int]]:
    """The passes before they were planned by cost: each filled in length order until full."""
    batches: list[list[int]] = [[]]
    for i in sorted(range(len(token_ids)), key=lambda i: len(token_ids[i])):
        rows = batches[-1]
        if rows and (
            len(rows) == MiniLMEmbedder.batch_size
            or (len(rows) + 1) * len(token_ids[i]) > MiniLMEmbedder.batch_tokens
        ):
            batches.append(rows := [])
        rows.append(i)
    return batches


def one_write(embedder: MiniLMEmbedder, turns: list[str]) -> None:
    """CPU per turn block with its sentences, planned by cost against the earlier plan."""
    planned = embedder._batches
    plans = {"by cost (now)": planned, "in length order (before)": filled_in_length_order}
    cpu: dict[str, list[float]] = {label: [] for label in plans}
    vectors: dict[str, list[np.ndarray]] = {label: [] for label in plans}
    for turn in turns:
        for label, plan in plans.items():
            embedder._batches = plan  # type: ignore[method-assign]
            started = time.thread_time()
            embedded = blocks_embedded(embedder, [turn])
            cpu[label].append((time.thread_time() - started) * 1000)
            vectors[label].append(
                np.vstack([embedded[0][0], *(() if embedded[0][1] is None else embedded[0][1])])
            )
    embedder._batches = planned  # type: ignore[method-assign]
    rows = [len(sentences_of(t)) + 1 for t in turns]
    print(
        f"\na write: one turn block with its sentences ({len(turns)} distinct turns, "
        f"{min(rows)}-{max(rows)} vectors each), CPU per block:"
    )
    for label, values in cpu.items():
        print(
            f"  {label:26s} p50 {pct(values, 50):6.1f} ms  p95 {pct(values, 95):6.1f} ms"
            f"  mean {sum(values) / len(values):6.1f} ms"
        )
    now, before = (np.vstack(v) for v in vectors.values())
    cosines = (now * before).sum(axis=1)
    print(f"  same vectors: cosine between the plans min {cosines.min():.7f} over {len(now)}")


def top10(vectors: np.ndarray, corpus: np.ndarray) -> list[list[int]]:
    return [list(np.argsort(-(corpus @ v), kind="stable")[:10]) for v in vectors]


def cpu_model() -> str:
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return platform.machine()
    names = [line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")]
    return names[0] if names else platform.machine()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=300, help="single queries per runtime")
    parser.add_argument("--batch", type=int, default=256, help="texts in the batch figure")
    parser.add_argument("--threads", default="1,2", help="ONNX Runtime intra-op threads to try")
    parser.add_argument("--writes", type=int, default=60, help="turn blocks in the write figure")
    parser.add_argument("--parts", default="query,two,batch,write,agreement")
    args = parser.parse_args()
    parts = set(args.parts.split(","))

    single_threaded_blas()
    print(
        f"machine: {os.cpu_count()} cores, {cpu_model()}, "
        f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f} at start"
    )
    embedders: dict[str, MiniLMEmbedder] = {}
    runtimes = [("numpy", 1)] if parts & {"query", "two", "batch", "agreement"} else []
    for runtime, threads in runtimes + [("onnxruntime", int(t)) for t in args.threads.split(",")]:
        label = "numpy" if runtime == "numpy" else f"onnxruntime x{threads}"
        started = time.perf_counter()
        embedders[label] = MiniLMEmbedder(runtime=runtime, threads=threads)
        print(f"{label:16s} ready in {time.perf_counter() - started:.2f} s")
    embedders_list = list(embedders.items())
    for _label, embedder in embedders_list:
        embedder.embed(shopper_queries(5, seed=99))  # warm-up, outside the distinct pool

    # One pool of distinct queries, split so that no text is embedded twice in the run.
    pool = shopper_queries(args.queries * len(embedders) + 200 * len(embedders), seed=1)
    single, concurrent = (
        pool[: args.queries * len(embedders)],
        pool[args.queries * len(embedders) :],
    )
    if "query" in parts:
        print(f"\none query (distinct shopper queries, {args.queries} per runtime):")
        for label, values in one_query(embedders, single).items():
            print(f"  {label:16s} p50 {pct(values, 50):6.2f} ms  p95 {pct(values, 95):6.2f} ms")

    if "write" in parts:
        single_thread = next(e for label, e in embedders_list if label == "onnxruntime x1")
        one_write(single_thread, shopper_turns(args.writes, seed=6))

    if "two" in parts:
        print("\ntwo at once (two threads, 100 distinct queries each):")
    for n, (label, embedder) in enumerate(embedders_list if "two" in parts else []):
        timings, rate = two_at_once(embedder, concurrent[n * 200 : (n + 1) * 200])
        print(
            f"  {label:16s} p50 {pct(timings, 50):6.2f} ms  p95 {pct(timings, 95):6.2f} ms"
            f"  {rate:6.1f} queries/s"
        )

    batch = shopper_facts(args.batch // 2, seed=2) + shopper_turns(args.batch // 2, seed=2)
    if "batch" in parts:
        print(f"\nbatch ({len(batch)} facts and turns of mixed length, one call):")
    for label, embedder in embedders_list if "batch" in parts else []:
        started = time.perf_counter()
        embedder.embed(batch)
        seconds = time.perf_counter() - started
        print(f"  {label:16s} {len(batch) / seconds:7.1f} texts/s  ({seconds:.2f} s)")

    if "agreement" in parts:
        agreement(embedders, embedders_list)
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")


def agreement(
    embedders: dict[str, MiniLMEmbedder], embedders_list: list[tuple[str, MiniLMEmbedder]]
) -> None:
    texts = (
        shopper_queries(100, seed=3)
        + shopper_facts(100, seed=3)
        + shopper_turns(40, seed=3, sentences=(2, 40))
    )
    facts = shopper_facts(500, seed=4)
    queries = shopper_queries(50, seed=4)
    reference = embedders["numpy"]
    ref_texts, ref_facts, ref_queries = (reference.embed(t) for t in (texts, facts, queries))
    ref_top = top10(ref_queries, ref_facts)
    print("\nagreement with numpy (cosine per text; top-10 neighbours of 50 queries in 500 facts):")
    for label, embedder in embedders_list[1:]:
        cosines = (embedder.embed(texts) * ref_texts).sum(axis=1)
        top = top10(embedder.embed(queries), embedder.embed(facts))
        same_order = sum(a == b for a, b in zip(top, ref_top, strict=True))
        same_set = sum(set(a) == set(b) for a, b in zip(top, ref_top, strict=True))
        print(
            f"  {label:16s} cosine min {cosines.min():.7f} mean {cosines.mean():.7f} over "
            f"{len(texts)} texts; top-10 identical {same_order}/50 (as sets {same_set}/50)"
        )


if __name__ == "__main__":
    main()
