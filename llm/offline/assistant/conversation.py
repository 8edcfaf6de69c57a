"""What a conversation has established so far: the state every reader of a turn shares,
what a message needs (`Plan`), and how a message narrows the search in force (`refine`).

Its own module, so the readers (plan, compare, references) and the state's builder
(`state.py`, which runs them) do not import each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from llm.offline.assistant.words import union
from llm.offline.shopper import ShopperRequest
from llm.transcript import ShownProduct

# A product a comparison is about: one in view, or a name to look up in the catalog.
Target = ShownProduct | str


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
    # The newest answer compared two products: "and price wise?" asks it again of them.
    compared: bool = False


@dataclass
class Plan:
    """What a message needs: a plain answer, or a tool call and how to answer its result."""

    kind: str  # "text" | "memory" | "search" | "product" | "compare"
    text: str = ""
    topic: str | None = None
    request: ShopperRequest = field(default_factory=ShopperRequest)
    query: str = ""
    offset: int = 0
    more: bool = False
    # "Show more" shows only what this visit has not shown yet: products another search
    # showed are skipped, not shown again.
    seen: frozenset[str] = frozenset()
    below: ShownProduct | None = None  # "cheaper" than this product
    like: ShownProduct | None = None  # "similar" to this product
    on_page: bool = False  # the product compared with is the page's
    # Filled when the call is made: remembered defaults set aside ("every brand, not only
    # Vela"), and colours the shopper dislikes, which an answer never counts or offers.
    dropped: list[str] = field(default_factory=list)
    avoid: list[str] = field(default_factory=list)
    compared: list[Target] = field(default_factory=list)  # the two products compared
    said: str = ""  # the message, lower case, for answers that depend on its wording
    product: ShownProduct | None = None
    asked_size: str | None = None
    asked_colour: str | None = None
    by_colour: bool = False  # "the black one": the colour picked the product
    colour_said: bool = False  # the message named the colour (else the card's, kept to)
    asks: frozenset[str] = frozenset()
    noted: str = ""  # what the shopper said about themselves, said back before the answer
    lifted: frozenset[str] = frozenset()  # defaults this message lifts for the visit
    sort: str | None = None  # "price_asc" | "price_desc": the cheapest, the dearest
    carried: list[str] = field(default_factory=list)  # the shop's categories


def refine(context: ShopperRequest, parsed: ShopperRequest) -> ShopperRequest:
    """Apply a follow-up's criteria on top of the search in force ("in navy?", "size L?")."""
    refined = replace(
        context,
        categories=list(context.categories),
        excluded_categories=union(context.excluded_categories, parsed.excluded_categories),
        # "any colour is fine": the colour chosen before goes too.
        colours=list(
            parsed.colours
            or (
                []
                if "colour" in parsed.lifted
                else [c for c in context.colours if c not in parsed.excluded_colours]
            )
        ),
        excluded_colours=union(
            [c for c in context.excluded_colours if c not in parsed.colours],
            parsed.excluded_colours,
        ),
        occasions=union(context.occasions, parsed.occasions),
        # A new style or feature asked for replaces the fabric asked before, as new words
        # replace old ones: "quilted?" after "any wool ones?" asks for quilted jackets.
        material=parsed.material or (None if parsed.words else context.material),
        absent_material=parsed.absent_material,
        words=list(parsed.words or context.words),
        size_said=parsed.size_said or (context.size_said if parsed.size is None else None),
        currency=parsed.currency if parsed.max_price is not None else context.currency,
        excluded_brands=list(parsed.excluded_brands),
        lifted=parsed.lifted,
    )
    for name in ("size", "max_price", "brand", "limit"):
        if getattr(parsed, name) is not None:
            setattr(refined, name, getattr(parsed, name))
    return refined
