"""A scenario: past visits of shoppers, as a JSON file `seed_sessions` writes into memory.

    [{"username": "ann", "display_name": "Ann",
      "sessions": [{"date": "2026-04-12", "retention": null, "close": true,
                    "exchanges": [{"query": "...", "answer": "..."}]}]}]

The file is validated whole before anything is written, by these pydantic models (strict:
"yes" is not true, 7 is not a string); each problem is reported with the path of the value
at fault, e.g. `[1].sessions[0].date: ...`.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
)
from pydantic_core import PydanticCustomError

from memoryapp.public import RETENTION
from shop.services import username_folded, username_valid

MAX_QUERY_CHARS = 4000
MAX_DISPLAY_NAME_CHARS = 60

# The presets are named once, in memoryapp.conf.
Retention = Literal[tuple(p.name for p in RETENTION)]  # type: ignore[valid-type]


def _not_blank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("blank", "is blank")
    return value


def _username(value: str) -> str:
    # Names ignore case, as at the sign-in: "Ann" is the shopper "ann".
    folded = username_folded(value)
    if not username_valid(folded):
        raise PydanticCustomError(
            "username", "is not a username (3 to 30 letters, digits, '-' and '_')"
        )
    return folded


Text = Annotated[str, AfterValidator(_not_blank)]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class Exchange(_Strict):
    query: Annotated[Text, Field(max_length=MAX_QUERY_CHARS)]
    answer: Text


class Visit(_Strict):
    """One past chat session: its day (None: today), retention preset, exchanges, and
    whether it ended (then its episode is written, as when a shopper closes the panel)."""

    date: dt.date | None = None
    retention: Retention | None = None
    exchanges: Annotated[list[Exchange], Field(min_length=1)]
    close: bool = False


class ShopperVisits(_Strict):
    username: Annotated[str, AfterValidator(_username)]
    display_name: Annotated[Text, Field(max_length=MAX_DISPLAY_NAME_CHARS)] | None = None
    sessions: Annotated[list[Visit], Field(min_length=1)]


_SCENARIO = TypeAdapter(Annotated[list[ShopperVisits], Field(min_length=1)])


class ScenarioInvalid(Exception):
    """The scenario cannot be used; `errors` are "path: problem" lines, one per problem."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


def _path(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _problem(error: dict[str, Any]) -> str:
    """One pydantic error as a line that says where and what, in the file's own terms."""
    loc, kind = tuple(error["loc"]), error["type"]
    if kind == "json_invalid":
        return f"not valid JSON: {error['ctx']['error']}"
    if kind == "extra_forbidden":
        return f"{_path(loc)}: unknown key {loc[-1]!r}"
    if kind == "missing":
        return f"{_path(loc[:-1])}: missing {loc[-1]!r}"
    if kind == "literal_error" and loc[-1] == "retention":
        presets = ", ".join(p.name for p in RETENTION)
        return f"{_path(loc)}: {error['input']!r} is not a retention preset ({presets} or null)"
    if kind == "too_short":
        what = {"sessions": "session", "exchanges": "exchange"}.get(str(loc[-1]) if loc else "")
        return f"{_path(loc)}: expected at least one {what or 'shopper'}"
    if kind == "list_type" and not loc:
        return "(top level): expected a list of shoppers"
    if kind in ("blank", "username"):
        return f"{_path(loc)}: {error['input']!r} {error['msg']}"
    shown = error.get("input")
    value = "" if isinstance(shown, dict | list) else f" (got {shown!r})"
    return f"{_path(loc)}: {error['msg']}{value}"


def scenario_load(text: str | bytes) -> list[ShopperVisits]:
    """Validate a whole scenario before anything is written. Raises ScenarioInvalid."""
    try:
        return _SCENARIO.validate_json(text)
    except ValidationError as exc:
        # The same problem is reported once per union branch for an optional value.
        problems = list(dict.fromkeys(_problem(e) for e in exc.errors(include_url=False)))
        raise ScenarioInvalid(problems) from None
