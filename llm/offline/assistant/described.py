"""A product pointed at by what it is, though this visit has not shown it: "the smock one -
in M?", "and the hiking boots", "is the linen one good for a wedding?".

The shopper speaks of one product, as of one they saw; it is looked up in the catalog (one
search for the words that describe it, within the category the conversation is on), then
answered about as any product pointed at. The search in force stays what it was: "do any
come in red?" next narrows the list, not the one product looked up.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from llm.offline.assistant.conversation import Plan
from llm.offline.shopper import ShopperRequest, request_parse
from llm.offline.vocabulary import Vocabulary

if TYPE_CHECKING:
    from llm.offline.assistant.conversation import State

# Words that may open the message before "the ...": a follow-up, or a question of it.
_LEAD = (
    r"(?:and|ok|okay|so|also|then|hmm|what about|how about|tell me (?:more )?about|what's|whats|"
    r"how's|hows|is|are|does|do|was|were|how much (?:is|are|for))"
)
# "the <what it is> one", "the <what it is> boots": the phrase ends where the message goes
# on to ask of it (a size, a colour, "is it any good", a clause).
_POINTED = re.compile(
    rf"^\W*(?:{_LEAD}\W+){{0,3}}(?:the|that)\s+(?P<phrase>[a-z][a-z' -]*?)\s*"
    r"(?=$|[?,.!:;]|\s-|\s+(?:in|by|from|for|is|are|look|looks|do|does|come|comes|any|good|"
    r"please|pls|then|again|still|available|at)\b)"
)
_HEADS = frozenset("one ones pair pairs".split())
# Words that point by place, price or turn, never by what a product is.
_NOT_WHAT_IT_IS = frozenset(
    "first second third fourth fifth last other others cheaper cheapest pricier priciest dearer "
    "dearest same new next top bottom right left best rest whole usual previous earlier "
    "former latter one ones pair pairs".split()
)


def described_plan(
    lowered: str,
    parsed: ShopperRequest,
    state: State,
    context_category: str | None,
    vocabulary: Vocabulary,
) -> Plan | None:
    """A product plan that looks the described product up, or None when the message points
    at no product by what it is."""
    pointed = _POINTED.search(lowered)
    if not pointed:
        return None
    words = pointed["phrase"].split()
    head = words[-1] in _HEADS
    read = request_parse(pointed["phrase"], vocabulary)
    if not head and not read.categories:
        return None  # "the budget", "the price": no product
    if any(w in _NOT_WHAT_IT_IS or re.fullmatch(r"\d+(st|nd|rd|th)?", w) for w in words[:-1]):
        return None
    if any(w.endswith("est") for w in words):
        return None  # "the warmest ones": an order asked, no product
    described = [*read.occasions, *(w for w in read.words if w not in _HEADS)]
    # The garment word the phrase ends on is its category: "the running tee" is a t-shirt
    # described by "running"; "the oxford one" is described by "oxford", a kind of shirt.
    phrases = vocabulary.category_phrases
    described = [w for w in described if not (w == words[-1] and w in phrases)]
    if not (described or read.material or read.colours or read.brand):
        return None
    category = read.category or context_category
    # Looked up as the shopper saw it: in the size of the list in force, if it is of that kind.
    in_force = state.search if state.search and state.search.category == category else None
    lookup = ShopperRequest(
        size=in_force.size if in_force else None,
        categories=[category] if category else [],
        colours=list(read.colours),
        brand=read.brand or parsed.brand,
        material=read.material,
        words=described,
    )
    colour = parsed.colour
    return Plan(
        kind="product",
        request=lookup,
        query=" ".join(described),
        asked_size=parsed.size,
        asked_colour=colour,
        colour_said=colour is not None,
        by_colour=bool(read.colours),
    )


def lookup_arguments(plan: Plan, usual_size: str | None = None) -> dict:
    """The search that finds the described product: its words and what else was said of it,
    in the size the shopper wears, one product."""
    request = plan.request
    arguments: dict = {}
    if plan.query:
        arguments["query"] = plan.query
    if request.category:
        arguments["category"] = request.category
    if request.colour:
        arguments["colour"] = request.colour
    if request.material:
        arguments["material"] = request.material
    if request.brand:
        arguments["brand"] = request.brand
    if request.size or usual_size:
        arguments["size"] = request.size or usual_size
    arguments["limit"] = 1
    return arguments


def looked_up(plan: Plan) -> bool:
    """The plan points at a product the conversation has not shown: a search finds it."""
    request = plan.request
    said = plan.query or request.colours or request.material or request.brand
    return plan.kind == "product" and plan.product is None and bool(said)


def not_found_text(arguments: dict) -> str:
    """The described product is not in the catalog: said, with what can be asked instead."""
    what = " ".join(
        str(arguments[key]) for key in ("colour", "brand", "material", "query") if key in arguments
    )
    category = arguments.get("category")
    kind = f" {category}" if category else ""
    return (
        f"I couldn't find{kind} matching “{what}” in the catalog. Tell me its name as the shop "
        "lists it, or ask me to show you what there is."
    )
