"""Text embedders that run on this machine: word hashing and all-MiniLM-L6-v2.

Every embedder returns L2-normalised float32 rows, so cosine similarity is a dot product.
They read no settings: the memory server chooses one by AGENT_MEMORY_EMBEDDER, and the
offline model and the catalog use the same MiniLM for meaning.
"""

from __future__ import annotations

from llm.embedding.base import (
    DIMENSIONS,
    MINILM_INSTALL,
    Embedder,
    EmbedderUnavailable,
    normalise,
)
from llm.embedding.hashing import HashingEmbedder
from llm.embedding.minilm import (
    MiniLMEmbedder,
    MiniLMEncoder,
    MiniLMRuntime,
    NumpyMiniLM,
    minilm_dir,
    passes_planned,
    shared_minilm,
)

__all__ = [
    "DIMENSIONS",
    "MINILM_INSTALL",
    "Embedder",
    "EmbedderUnavailable",
    "HashingEmbedder",
    "MiniLMEmbedder",
    "MiniLMEncoder",
    "MiniLMRuntime",
    "NumpyMiniLM",
    "meaning_vectors",
    "minilm_dir",
    "normalise",
    "passes_planned",
    "shared_minilm",
]


def meaning_vectors(texts: list[str]):
    """Texts as MiniLM vectors, for whoever ranks by meaning outside the memory server
    (the catalog's search names this function in its settings)."""
    return shared_minilm().embed(texts)
