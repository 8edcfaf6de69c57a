"""The catalog by meaning: how close each product's text is to a shopper's words.

Words find what a product says; meaning ranks what it is about: "a warm coat for the rain"
should put the waxed field jacket and the rain shell before a denim jacket that merely says
"warm". Meaning orders, it never admits: which products are results stays the words' and the
filters' decision (`shop.search`), because a sentence embedder finds every query somewhat
like something (swimwear scores as close to a denim jacket as "quilted" does to the quilted
jacket), so a similarity floor could not say "the shop has none" honestly.

The encoder is named by the setting CATALOG_MEANING_ENCODER (a dotted path to a function
from texts to L2-normalised float32 rows; empty turns meaning off). The shop imports nothing
of the project, so the configuration wires it in, as Django wires its own backends. A
failing encoder turns meaning off for the process, with one warning: a search never fails
for it.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

import numpy as np
from django.conf import settings
from django.db import DatabaseError
from django.db.models import Count, Max
from django.utils.module_loading import import_string

from shop.models import Product, ProductMeaning

logger = logging.getLogger(__name__)

Encoder = Callable[[list[str]], np.ndarray]
# Products a search encodes itself when they have no vector yet (a fixture load, a bulk
# import); past this the rest rank by words alone until `catalog_meaning` fills them.
ENCODED_PER_SEARCH = 64
QUERIES_CACHED = 512

_lock = threading.Lock()
_encoder: Encoder | None = None
_encoder_path: str | None = None
_failed: set[str] = set()
_queries: OrderedDict[str, np.ndarray] = OrderedDict()
# How long the vectors read are trusted before the table is asked whether it changed:
# another process's edit shows within this, and a search at 10k products does not pay a
# count of the table each time.
FRESH_SECONDS = 2.0

# Every stored vector as one matrix, its rows in the order of `_ids` (sorted product ids),
# with the (count, latest update) of the table it was read at, and when that was asked.
_ids = np.zeros(0, dtype=np.int64)
_matrix = np.zeros((0, 0), dtype=np.float32)
_stamp: tuple[object, ...] | None = None
_checked = 0.0


def product_text(name: str, description: str) -> str:
    return f"{name}. {description}"


def _text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def encoder() -> Encoder | None:
    """The configured encoder, or None when meaning is off or its encoder cannot run."""
    global _encoder, _encoder_path
    path = getattr(settings, "CATALOG_MEANING_ENCODER", "")
    if not path or path in _failed:
        return None
    with _lock:
        if _encoder_path != path:
            try:
                _encoder, _encoder_path = import_string(path), path
            except ImportError as exc:
                return _off(path, exc)
        return _encoder


def _off(path: str, exc: BaseException) -> None:
    _failed.add(path)
    logger.warning("Catalog search ranks by words only: its encoder %s failed (%s)", path, exc)
    return None


def _encode(texts: list[str]) -> np.ndarray | None:
    encode = encoder()
    if encode is None or not texts:
        return None
    try:
        return np.asarray(encode(texts), dtype=np.float32)
    except Exception as exc:  # any failure of the model (memory, a broken package): words
        return _off(str(_encoder_path), exc)


def vectors_store(products: Iterable[Product]) -> int:
    """Compute and keep the vectors of these products whose text has none or a stale one;
    how many were written (0 when meaning is off)."""
    products = list(products)
    if not products or encoder() is None:
        return 0
    known = dict(
        ProductMeaning.objects.filter(product__in=products).values_list("product_id", "text_hash")
    )
    texts = {p.id: product_text(p.name, p.description) for p in products}
    stale = [p for p in products if known.get(p.id) != _text_hash(texts[p.id])]
    if not stale:
        return 0
    matrix = _encode([texts[p.id] for p in stale])
    if matrix is None:
        return 0
    rows = [
        ProductMeaning(product=p, text_hash=_text_hash(texts[p.id]), vector=row.tobytes())
        for p, row in zip(stale, matrix, strict=True)
    ]
    ProductMeaning.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["product"],
        update_fields=["text_hash", "vector", "updated_at"],
    )
    return len(rows)


def _loaded(*, now: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Every stored vector, read again only when the table changed (another process may
    write it: the admin, a second daphne, `catalog_meaning`); `now` asks it at once."""
    global _ids, _matrix, _stamp, _checked
    with _lock:
        if not now and _stamp is not None and time.monotonic() - _checked < FRESH_SECONDS:
            return _ids, _matrix
    stamp = tuple(ProductMeaning.objects.aggregate(n=Count("pk"), at=Max("updated_at")).values())
    with _lock:
        if stamp == _stamp:
            _checked = time.monotonic()
            return _ids, _matrix
    stored = list(ProductMeaning.objects.order_by("product_id").values_list("product_id", "vector"))
    ids = np.array([pid for pid, _blob in stored], dtype=np.int64)
    matrix = (
        np.stack([np.frombuffer(bytes(blob), dtype=np.float32) for _pid, blob in stored])
        if stored
        else np.zeros((0, 0), dtype=np.float32)
    )
    with _lock:
        _ids, _matrix, _stamp, _checked = ids, matrix, stamp, time.monotonic()
    return ids, matrix


def _rows_of(ids: np.ndarray, wanted: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The wanted product ids that have a vector, and their rows in the matrix."""
    wanted_ids = np.asarray(wanted, dtype=np.int64)
    if not len(ids):
        return wanted_ids[:0], wanted_ids[:0]
    rows = np.minimum(np.searchsorted(ids, wanted_ids), len(ids) - 1)
    present = ids[rows] == wanted_ids
    return wanted_ids[present], rows[present]


def _query_vector(query: str) -> np.ndarray | None:
    with _lock:
        hit = _queries.get(query)
        if hit is not None:
            _queries.move_to_end(query)
            return hit
    matrix = _encode([query])
    if matrix is None:
        return None
    with _lock:
        _queries[query] = matrix[0]
        while len(_queries) > QUERIES_CACHED:
            _queries.popitem(last=False)
    return matrix[0]


def similarities(query: str, ids: Sequence[int]) -> dict[int, float]:
    """Cosine of the query to each product of `ids` that has a vector; empty when meaning
    is off, the query is empty, or nothing could be encoded."""
    if not query.strip() or not ids or encoder() is None:
        return {}
    try:
        return _similarities(query, ids)
    except DatabaseError as exc:
        # A database without the vectors' table (a migration not yet applied) ranks by
        # words, as with meaning off; the search itself still answers.
        _off(str(_encoder_path), exc)
        return {}


def _similarities(query: str, ids: Sequence[int]) -> dict[int, float]:
    stored, matrix = _loaded()
    known, rows = _rows_of(stored, ids)
    if len(known) < len(ids):
        missing = sorted(set(ids) - set(known.tolist()))[:ENCODED_PER_SEARCH]
        if vectors_store(Product.objects.filter(id__in=missing)):
            stored, matrix = _loaded(now=True)
            known, rows = _rows_of(stored, ids)
    query_vector = _query_vector(query)
    if query_vector is None or not len(known) or matrix.shape[1] != query_vector.shape[0]:
        return {}
    # einsum, not `@`: a matrix-vector product through a multi-threaded BLAS took 10-20 ms
    # at 10k products on a busy two-core machine (its threads fight the server's), einsum's
    # single loop about 1 ms; and the whole matrix at once is cheaper than gathering rows.
    scores = np.einsum("ij,j->i", matrix, query_vector)[rows]
    return dict(zip(known.tolist(), scores.tolist(), strict=True))


def meaning_warm() -> None:
    """Load the encoder and the stored vectors before the first search needs them."""
    if encoder() is None:
        return
    try:
        _loaded(now=True)
    except DatabaseError as exc:
        _off(str(_encoder_path), exc)
        return
    _query_vector("a warm coat for the rain")


def meaning_reset() -> None:
    """Forget the process's vectors, queries and encoder (tests change the setting)."""
    global _encoder, _encoder_path, _stamp
    with _lock:
        _encoder = _encoder_path = _stamp = None
        _queries.clear()
        _failed.clear()
