"""What a conversation has established so far: the state every reader of a turn shares.

Its own module, so the readers (plan, compare, references) and the state's builder
(`state.py`, which runs them) do not import each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from llm.offline.shopper import ShopperRequest
from llm.transcript import ShownProduct


@dataclass
class State:
    """What this conversation has established by the shopper's newest message."""

    search: ShopperRequest | None = None  # the search in force
    listed: int = 0  # how many products of that search were shown so far
    shown: list[ShownProduct] = field(default_factory=list)  # the newest answer's products
    # The newest search's list: what "the first", "the second" count in, though an answer
    # about one of them has shown that one alone since.
    listing: list[ShownProduct] = field(default_factory=list)
    # The shopper's last message asked what is known of them: "and colours?" asks it again.
    asked_about_me: bool = False
    # Every product this visit showed, newest first: what "the mohair one" can point back to.
    seen: list[ShownProduct] = field(default_factory=list)
    # Colour and size the shopper picked on a product ("the black one", "in M?"): what
    # "cheaper" then keeps to.
    picked: ShopperRequest = field(default_factory=ShopperRequest)
    picked_sku: str | None = None  # the product the picked colour and size are about
    # A search the newest answer offered ("Shall I look for other t-shirts in blue?"): what a
    # plain "yes" accepts.
    offer: ShopperRequest | None = None
    # Remembered defaults the shopper lifted this visit ("any brand is fine", "red is fine
    # again"): no search of the visit applies them again.
    lifted: frozenset[str] = frozenset()
    # The newest answer was about one product the shopper pointed at ("the black one", "is
    # it in stock?"), not a search's list, however short: "in blue?" asks about that product
    # then, and refines the search after a list, even a list of one.
    about_one: bool = False
