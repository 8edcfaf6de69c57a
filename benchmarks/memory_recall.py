"""Retrieval benchmark: does a later turn's search find the memories that answer it?

    .venv/bin/python -m benchmarks.memory_recall [--help]

The sets, the figures and the options are described in `benchmarks/recall/run.py`; each
generated set has its module in `benchmarks/recall/`.
"""

from __future__ import annotations

from benchmarks.recall.run import main

if __name__ == "__main__":
    main()
