"""The embedded server's knobs: one typed class, read from the environment and `.env`.

Every setting of the server process lives here and nowhere else, so it is plain which
knobs belong to which process. A malformed value stops the server at start with a message
naming the variable: a memory server that silently ran on a default it was told not to use
would be harder to debug than one that refuses to start.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

BASE_DIR = Path(__file__).resolve().parent.parent


class ServerSettings(BaseSettings):
    """Field names are the environment variables, exactly as `.env.example` lists them."""

    model_config = SettingsConfigDict(
        env_file=BASE_DIR / ".env", extra="ignore", case_sensitive=True, frozen=True
    )

    AISLE_VAR_DIR: Path = BASE_DIR / "var"
    AGENT_MEMORY_SERVER_DB: Path | None = None  # default: <AISLE_VAR_DIR>/agentmemory.sqlite3
    AGENT_MEMORY_SERVER_TOKEN: str = ""
    # `python -m memoryserver` refuses to start without a token unless this (or --no-token)
    # says an open server is wanted.
    AGENT_MEMORY_SERVER_ALLOW_NO_TOKEN: bool = False
    # Host names the server answers to besides 127.0.0.1, localhost and [::1], comma-separated
    # (a leading dot allows subdomains). A request naming any other host is refused, so a web
    # page that rebinds its own name to 127.0.0.1 cannot reach the server.
    AGENT_MEMORY_SERVER_ALLOWED_HOSTS: Annotated[list[str], NoDecode] = []
    AGENT_MEMORY_EMBEDDER: str = "minilm"
    AGENT_MEMORY_DEFAULT_BLOCK_TTL: int = Field(0, ge=0)
    AGENT_MEMORY_MAX_FAIL_COUNT: int = Field(3, ge=1)
    AGENT_MEMORY_EXTRACT_SEMANTIC: bool = True
    AGENT_MEMORY_SEARCH_INCLUDE_NOT_READY: bool = True
    # How a search with a query ranks: "hybrid" fuses the dense (cosine) and lexical (BM25)
    # rankings; "dense" or "lexical" ranks by one of them alone. Unset, it follows the
    # embedder (`search_mode_for`).
    AGENT_MEMORY_SEARCH_MODE: Literal["", "hybrid", "dense", "lexical"] = ""
    # The share of a hit's score each of its session neighbours (the blocks just before and
    # after it in its session) gains; 0 = none. Off: on the recall benchmark's long chats
    # (tuning half, MiniLM, with near-copies giving way) 0.03 to 0.2 found at most a point
    # more at 10 but less at 1 and 5 (recall@5 .720 -> .708-.718), and less on the
    # conversations at every rank.
    AGENT_MEMORY_SEARCH_NEIGHBOUR_CREDIT: float = Field(0.0, ge=0.0, le=1.0)
    # Whether near-copies of a higher hit give way in a search's top k, so an answer told
    # in several places has room there (`memoryserver.index.spread`).
    AGENT_MEMORY_SEARCH_SPREAD: bool = True
    # How much of what all of a user's blocks share leaves the query vector before a fused
    # search ranks (`memoryserver.index.common`); unset, it follows the embedder
    # (`common_weight_for`).
    AGENT_MEMORY_SEARCH_COMMON_WEIGHT: float | None = Field(None, ge=0.0, le=2.0)
    # Whether a second stage ranks a fused search's top 50 again by each candidate's best
    # sentence (`memoryserver.index.rerank`, where the figures are); unset, it follows the
    # embedder (`rerank_for`).
    AGENT_MEMORY_SEARCH_RERANK: bool | None = None
    AGENT_MEMORY_SWEEP_INTERVAL_SECONDS: float = Field(30.0, ge=0.1)
    AGENT_MEMORY_QUEUE_MAX_SIZE: int = Field(10_000, ge=1)
    AGENT_MEMORY_PER_REQUEST_TOKEN_LIMIT: int = Field(4096, ge=1)
    # "model" asks the chat model for summary and contexts; "extractive" builds them from the
    # text; a dotted path names another extractor class (tests use this).
    AGENT_MEMORY_EXTRACTOR: str = "model"
    # Vectors kept in memory across all loaded users (384 floats each, ~1.5 KB).
    AGENT_MEMORY_INDEX_MAX_BLOCKS: int = Field(400_000, ge=1000)
    # A user with this many live blocks or more loads in a low-priority process of its own,
    # so the load does not slow other shoppers' searches; 0 loads every user in process.
    AGENT_MEMORY_INDEX_LOAD_APART_BLOCKS: int = Field(20_000, ge=0)
    AGENT_MEMORY_EXTRACTION_RETRY_SECONDS: float = Field(2.0, ge=0.0)
    # Threads that embed the writes (block adds and updates), apart from the reads' pool, so
    # a burst of writes queues behind itself and never ahead of a search; the writes waiting
    # for them are embedded together (`write_batch`). 0 = one per core (`write_threads`).
    AGENT_MEMORY_WRITE_THREADS: int = Field(0, ge=0, le=64)
    LOG_LEVEL: str = "INFO"

    # The extraction model and the openai embedder reach a model through llm.factory, which
    # reads these names.
    OPENAI_API_KEY: str = ""
    OPENAI_BASE_URL: str = ""
    EXTRACTION_MODEL: str = "gpt-4o-mini"
    JUDGE_MODEL: str = "gpt-4o-mini"
    EMBEDDING_MODEL: str = "text-embedding-3-small"
    MODEL_TIMEOUT_SECONDS: float = Field(60.0, ge=1.0)

    @field_validator("AGENT_MEMORY_SERVER_ALLOW_NO_TOKEN", mode="before")
    @classmethod
    def _blank_is_no(cls, value: Any) -> Any:
        return False if isinstance(value, str) and not value.strip() else value

    @field_validator("AGENT_MEMORY_SERVER_ALLOWED_HOSTS", mode="before")
    @classmethod
    def _host_names(cls, value: Any) -> Any:
        names = value.split(",") if isinstance(value, str) else value
        if not isinstance(names, list):
            return names
        names = [str(n).strip().lower() for n in names if str(n).strip()]
        for name in names:
            if name == "*" or any(c in name for c in "/ @"):
                raise ValueError(
                    f"{name!r} is not a host name; list names such as memory.internal "
                    "(a wildcard would let any web page's rebound name in)"
                )
        return names

    @property
    def database_path(self) -> Path:
        return self.AGENT_MEMORY_SERVER_DB or self.AISLE_VAR_DIR / "agentmemory.sqlite3"

    def knobs(self) -> dict[str, object]:
        """The values the server's code reads from `django.conf.settings`."""
        values = self.model_dump(
            exclude={
                "AISLE_VAR_DIR",
                "AGENT_MEMORY_SERVER_DB",
                "AGENT_MEMORY_SERVER_ALLOW_NO_TOKEN",
                "LOG_LEVEL",
            }
        )
        values["AGENT_MEMORY_SEARCH_MODE"] = self.AGENT_MEMORY_SEARCH_MODE or search_mode_for(
            self.AGENT_MEMORY_EMBEDDER
        )
        if self.AGENT_MEMORY_SEARCH_COMMON_WEIGHT is None:
            values["AGENT_MEMORY_SEARCH_COMMON_WEIGHT"] = common_weight_for(
                self.AGENT_MEMORY_EMBEDDER
            )
        if self.AGENT_MEMORY_SEARCH_RERANK is None:
            values["AGENT_MEMORY_SEARCH_RERANK"] = rerank_for(self.AGENT_MEMORY_EMBEDDER)
        values["AGENT_MEMORY_SERVER_TOKEN"] = self.AGENT_MEMORY_SERVER_TOKEN or None
        values["OPENAI_API_KEY"] = self.OPENAI_API_KEY or None
        values["OPENAI_BASE_URL"] = self.OPENAI_BASE_URL or None
        return values


# The search mode each embedder ranks best with when none is set (docs/benchmarks-history.md,
# "Retrieval"): an embedder not listed gets hybrid. Hashing stays hybrid although lexical
# alone finds more on long dialogues: on the shop's own memory hybrid finds more, and
# lexical returns nothing that shares no word with the message, so a shopper's standing
# facts ("wears size M") would drop out of a recall for "a dress for the wedding".
SEARCH_MODE_BY_EMBEDDER = {"hashing": "hybrid", "minilm": "hybrid", "openai": "hybrid"}


# How much of a user's common direction leaves a fused search's query vector, by embedder
# (`memoryserver.index.common`, where the figures are): measured for MiniLM and hashing on
# the recall benchmark; an embedder not listed, not measured, gets none.
COMMON_WEIGHT_BY_EMBEDDER = {"minilm": 0.5, "hashing": 0.0}


def common_weight_for(embedder: str) -> float:
    return COMMON_WEIGHT_BY_EMBEDDER.get(embedder, 0.0)


# Whether the second stage ranks a fused search's top again, by embedder
# (`memoryserver.index.rerank`): MiniLM's sentence cosines order the candidates better than
# the fusion alone; the hashing embedder's, which count shared hashed words, only repeat the
# lexical side's evidence, and with them it lost 1 to 6 points at rank 1 on every set.
RERANK_BY_EMBEDDER = {"minilm": True, "hashing": False}


def rerank_for(embedder: str) -> bool:
    return RERANK_BY_EMBEDDER.get(embedder, False)


def write_threads(configured: int, cores: int | None) -> int:
    """Threads for the writes that embed: one per core unless configured.

    One per core, not fewer: one thread on two cores gives a burst of writes half the
    machine (in a loaded run, 20 shoppers' writes on one thread were acknowledged for 46
    of 60 turns, on two for all 60: docs/benchmarks.md, "Under load"); not more, or the
    embeddings fight each other for the cores (eight at once on two cores took 716 ms a
    call against 154 ms). The reads never wait for these threads, only share the cores.
    """
    return configured or max(1, cores or 1)


def search_mode_for(embedder: str) -> str:
    return SEARCH_MODE_BY_EMBEDDER.get(embedder, "hybrid")


def sqlite_database(path: Path | str) -> dict[str, object]:
    """The server's SQLite store, in WAL mode so searches read while a write commits."""
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(path),
        "OPTIONS": {"init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"},
    }
