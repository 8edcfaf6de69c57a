"""Retrieval benchmark: does a later turn's search find the memories that answer it?

    .venv/bin/python benchmarks/memory_recall.py [--help]

The sets, the figures and the options are described in `benchmarks/recall/run.py`; each
generated set has its module in `benchmarks/recall/`.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.recall.run import main  # noqa: E402

if __name__ == "__main__":
    main()
