"""What reaches memory from the chat, made safe at its edge: session ids and text.

Both helpers are pure, so the websocket's frame validation can call them too; the memory
policy calls them again itself, so nothing a client sends can make the SDK raise instead of
starting a session, or make a write lose the exchange.
"""

from __future__ import annotations

import re

# The ids the policy mints (session{n}) and the SDK's id characters: letters, digits, "-"
# and "_". The SDK refuses "/", "?", "#", "%", "." and ".." (they change the route a
# request reaches), and httpx refuses control characters in a URL (InvalidURL).
SESSION_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,100}$")
MINTED_SESSION_ID_RE = re.compile(r"^session(\d+)$")
_NUL = "\x00"


def session_id_clean(raw: object) -> str | None:
    """The client's session id if it is one memory can look up, else None (mint a new one)."""
    if isinstance(raw, str) and SESSION_ID_RE.fullmatch(raw):
        return raw
    return None


def session_number(session_id: str) -> int | None:
    """n of a minted session{n}; None for any other id."""
    match = MINTED_SESSION_ID_RE.fullmatch(session_id)
    return int(match.group(1)) if match else None


def session_number_highest(session_ids: list[str] | None) -> int:
    """The highest session{n} stored, 0 for none: a count would reuse a deleted id."""
    numbers = [n for s in session_ids or [] if (n := session_number(s)) is not None]
    return max(numbers, default=0)


def text_clean(raw: str) -> str:
    """Drop lone surrogates and NUL, which no memory write survives; keep everything else.

    A lone surrogate cannot be encoded as UTF-8, so the request could not even be sent; a
    NUL is refused by the store. A valid surrogate pair is joined into its character.
    """
    if raw.isascii():
        return raw.replace(_NUL, "")
    joined = raw.encode("utf-16", "surrogatepass").decode("utf-16", "ignore")
    return joined.replace(_NUL, "")
