"""What a write tells a user's index of a block, what a search asks of it, and a hit."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from memoryserver.index.windows import TimeWindows

_INF = math.inf


@dataclass
class IndexRow:
    """What the index needs to know about one block."""

    pk: int
    block_id: str
    session_id: str
    vector: np.ndarray
    ingested_at: datetime
    created_at: datetime | None
    expires_at: datetime | None
    status: str
    annotations: dict[str, str] | None
    prompt_id: str | None
    prompt_vid: int | None
    text: str = ""  # what lexical search matches: the block's content, summary and contexts
    sentences: np.ndarray | None = None  # its sentences' vectors, for two sentences or more
    # Whether the block's own text (not its summary or contexts) asks: `context.asks`; None
    # reads it from `text`.
    asks: bool | None = None
    # How many terms the block's own text holds (`context.own_terms`); None: all of `text`
    # is its own.
    own_terms: int | None = None
    # Whether the block's own text says when (`when.tells_time`); None reads it from `text`.
    tells_time: bool | None = None


@dataclass
class Query:
    """Search criteria, already validated and resolved to epochs."""

    now: float
    # A query ranks by the vector (dense), the terms (lexical), or both fused (hybrid);
    # with neither, the search lists the matching blocks newest first.
    vector: np.ndarray | None = None
    terms: list[str] | None = None
    # Terms query feedback adds to the lexical side, with their weights (a term's is 1).
    extra_terms: dict[str, float] | None = None
    # The times the query names ("in May", "last week"): blocks dated then rank higher.
    times: TimeWindows | None = None
    # The share of each hit's score its session neighbours gain (0 = none).
    neighbour_credit: float = 0.0
    # Whether near-copies of a higher hit give way in the top k (`index.spread`); None:
    # as the server is set (AGENT_MEMORY_SEARCH_SPREAD).
    spread: bool | None = None
    # How much of the user's common direction leaves the query vector in a fused search
    # (`index.common`); None: as the server is set (AGENT_MEMORY_SEARCH_COMMON_WEIGHT).
    common_weight: float | None = None
    # Whether a second stage ranks the fused top again by its sentences (`index.rerank`);
    # None: as the server is set (AGENT_MEMORY_SEARCH_RERANK).
    rerank: bool | None = None
    session_ids: list[str] | None = None  # None = every session of the user
    # Whether the query asks when something happened (`when.asks_when`).
    asks_when: bool = False
    # The session the search is made from: "last time" is the latest session before it.
    session_id: str | None = None
    block_ids: list[str] | None = None
    annotations: dict[str, str] | None = None
    annotation_mode: str = "pre"
    ingested_range: tuple[float, float] = (-_INF, _INF)
    created_range: tuple[float, float] | None = None
    prompt_id: str | None = None
    prompt_vid: int | None = None
    relevant_k: int = 10
    order_by: str = "ingested_at"
    include_not_ready: bool = True


@dataclass
class Hit:
    block_id: str
    score: float | None
