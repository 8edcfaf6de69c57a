"""A burst of writes' embeddings: one encoder call per write against the write batcher.

    .venv/bin/python -m benchmarks.write_burst [--writes 100] [--repeats 2]
        [--batch-texts 24] [--threads 0] [--sentences 3,9]

In process, MiniLM on ONNX Runtime (one intra-op thread, as the server runs it). Each
round puts --writes turn blocks (shopper turns of --sentences sentences) on the encoder at
once, as a hundred shoppers' turns arrive together, and times how it drains:

- `per write`: the old write path, --threads threads (0 = one per core, the server's
  default) each taking the next write and embedding its block and sentences in one call;
- `batched`: one thread per write (as the server's write pool), each through the
  `WriteBatcher` on --threads embedding threads.

Printed per round: the process's CPU per block (every thread's, from `time.process_time`),
the drain time (burst start to the last write's vectors), a write's wait p50/p95, the
batches made, and how many queries embedded meanwhile on another thread took (a search's
query vector, which never goes through the batcher). The two ways alternate, so a change in
the machine's load shows in both. The vectors of both ways are compared (cosine).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from harness.shopper_texts import shopper_queries, shopper_turns
from memoryserver.blas import single_threaded_blas
from memoryserver.conf import write_threads
from memoryserver.embedders import MiniLMEmbedder
from memoryserver.index.sentences import blocks_embedded
from memoryserver.write_batch import BATCH_TEXTS, GATHERING_THREADS, WriteBatcher

QUERY_EVERY = 0.05


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))] if ordered else 0.0


class QueryProbe:
    """Embed a distinct query every QUERY_EVERY seconds until stopped; their latencies."""

    def __init__(self, embedder: MiniLMEmbedder, queries: list[str]) -> None:
        self.embedder, self.queries = embedder, iter(queries)
        self.latencies: list[float] = []
        self.cpu = 0.0  # this thread's own, taken off the burst's
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        cpu = time.thread_time()
        while not self.stop.wait(QUERY_EVERY):
            started = time.perf_counter()
            self.embedder.embed([next(self.queries)])
            self.latencies.append((time.perf_counter() - started) * 1000)
        self.cpu = time.thread_time() - cpu

    def __enter__(self) -> QueryProbe:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join()


def burst(embed_one, texts: list[str], threads: int) -> tuple[float, float, list[float], list]:
    """Embed every text as its own write on `threads` threads: CPU, wall, waits, results."""
    cpu, started = time.process_time(), time.perf_counter()
    waits: list[float] = [0.0] * len(texts)

    def write(n: int):
        result = embed_one(texts[n])
        waits[n] = (time.perf_counter() - started) * 1000
        return result

    with ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(write, range(len(texts))))
    return time.process_time() - cpu, time.perf_counter() - started, waits, results


def line(label: str, cpu: float, wall: float, waits: list[float], blocks: int, extra: str) -> str:
    return (
        f"  {label:10s} CPU {cpu * 1000 / blocks:6.1f} ms a block  drain {wall:6.2f} s  "
        f"wait p50 {pct(waits, 50) / 1000:5.2f} s p95 {pct(waits, 95) / 1000:5.2f} s  {extra}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--writes", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--batch-texts", type=int, default=BATCH_TEXTS)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--sentences", default="3,9")
    args = parser.parse_args()
    if not 1 <= args.writes <= 150 or not 1 <= args.repeats <= 10:
        parser.error("--writes 1..150 (distinct turns) and --repeats 1..10 keep the run bounded")
    low, high = (int(n) for n in args.sentences.split(","))
    threads = write_threads(args.threads, os.cpu_count())

    single_threaded_blas()
    embedder = MiniLMEmbedder(runtime="onnxruntime", threads=1)
    embedder.embed(shopper_queries(8, seed=98))  # warm-up
    # Distinct within a round; the rounds repeat them (the embedder here has no cache).
    texts = shopper_turns(args.writes * 2, seed=11, sentences=(low, high))
    tokens = [len(e.ids) for e in embedder.tokenizer.encode_batch(texts[:200])]
    # The probe's embedder has no cache, so repeating the queries costs the same each time.
    queries = itertools.cycle(shopper_queries(2000, seed=12))
    print(
        f"Machine: {os.cpu_count()} cores; Python {sys.version.split()[0]}; load average "
        f"{os.getloadavg()[0]:.2f} at start\n{args.writes} writes a burst, turns of "
        f"{low}-{high} sentences (mean {np.mean(tokens):.0f} tokens), {threads} embedding "
        f"thread(s), batches of at most {args.batch_texts} texts"
    )
    agreement: list[float] = []
    for repeat in range(args.repeats):
        own, other = texts[: args.writes], texts[args.writes :]
        if repeat % 2:
            own, other = other, own
        print(f"round {repeat + 1}:")
        # Each way embeds its own distinct texts in the timed burst, and the other's
        # afterwards (untimed) for the comparison.
        for label, way_texts in (("per write", own), ("batched", other)):
            probe_queries = [next(queries) for _ in range(2000)]
            if label == "per write":
                with QueryProbe(embedder, probe_queries) as probe:
                    cpu, wall, waits, _ = burst(
                        lambda t: blocks_embedded(embedder, [t]), way_texts, threads
                    )
                extra = f"{args.writes} calls"
            else:
                batcher = WriteBatcher(
                    lambda: embedder, threads=threads, batch_texts=args.batch_texts
                )
                with QueryProbe(embedder, probe_queries) as probe:
                    cpu, wall, waits, batched = burst(
                        lambda t, batcher=batcher: blocks_embedded(batcher, [t]),
                        way_texts,
                        min(args.writes, GATHERING_THREADS),
                    )
                batcher.close()
                extra = f"{batcher.stats.batches} batches"
                alone = [blocks_embedded(embedder, [t])[0] for t in way_texts[:20]]
                for (v1, s1), (v2, s2) in zip(alone, (b[0] for b in batched[:20]), strict=True):
                    agreement.append(float(v1 @ v2))
                    if s1 is not None:
                        agreement.extend((s1 * s2).sum(axis=1).tolist())
            queried = probe.latencies
            print(
                line(label, cpu - probe.cpu, wall, waits, args.writes, extra)
                + f"  query p50 {pct(queried, 50):5.1f} ms p95 {pct(queried, 95):5.1f} ms"
            )
    print(
        f"batched vectors against one call per write: cosine min {min(agreement):.7f} "
        f"over {len(agreement)} vectors\nload average {os.getloadavg()[0]:.2f} at the end"
    )


if __name__ == "__main__":
    main()
