"""How many product cards stand under one answer.

One number for the protocol (`assistant.protocol.events` cuts a `done` to it), the agent loop's
choice of cards, the search tool's default page and the offline model's answer, which
offers "show more" past it.
"""

from __future__ import annotations

MAX_CARDS = 4
