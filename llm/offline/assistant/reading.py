"""How a message reads before what it asks is planned: a follow-up on the list in view, a
passing remark, a clause that asks beside one that tells, or no shopping at all."""

from __future__ import annotations

import re

from llm.offline.assistant.acts import act_by_meaning, act_of
from llm.offline.assistant.statements import statement_read
from llm.offline.shopper import ShopperRequest, request_parse
from llm.offline.vocabulary import Vocabulary

# A follow-up on the list in view rather than a new request: a short fragment, a question,
# or an opening that builds on what was shown.
FOLLOW_UP = re.compile(
    r"^\s*(?:(?:and|or|but|ok|okay|hmm|so)[,\s]+|\w+[.,!]+\s+)?(?:what about|how about|anything|"
    r"something|"
    r"any|only|just|maybe|perhaps|more)\b"
    r"|^\W*(?:\S+\W+){0,3}\S+\W*\?\s*$|^\W*(?:\S+\W+){0,2}\S+\W*$"
)
# "What about ...", "fine. how about ...": a follow-up on what is in view.
ABOUT_LEAD = re.compile(r"^\W*(?:\w+[.,!]+\s+)?(?:(?:and|so|ok|okay)[,\s]+)?(?:what|how) about\b")

# How like the bank's out-of-scope examples a message must be to be answered as one when
# the slot readers found nothing but a colour or loose words in it ("write" reads "white").
OUT_OF_SCOPE_LIKENESS = 0.5


def out_of_scope(lowered: str, parsed: ShopperRequest) -> bool:
    """Whether the message asks for something that is no shopping at all."""
    if parsed.categories or parsed.brand or parsed.size or parsed.max_price is not None:
        return False
    if parsed.currency:  # a budget in pounds or dollars: shopping, if not in euros
        return False
    if parsed.material or parsed.excluded_colours or parsed.lifted:
        return False
    act = act_of(lowered)
    return act is not None and act.name == "out_of_scope" and act.likeness >= OUT_OF_SCOPE_LIKENESS


_CLAUSES = re.compile(r"[,.;!?]+|\s+(?:and|but|so)\s+")


def asks_in_a_clause(text: str, vocabulary: Vocabulary, *, footwear: bool) -> bool:
    """ "I'm a UK 5 in shoes and I'm after sandals": one clause tells, another names a
    category and tells nothing of the shopper, so it asks for it."""
    clauses = [c for c in _CLAUSES.split(text) if c.strip()]
    if len(clauses) < 2:
        return False
    for clause in clauses:
        read = request_parse(clause, vocabulary)
        # "... but sometimes S in knits" still tells a size: no request.
        if (
            read.categories
            and read.size is None
            and read.max_price is None
            and not statement_read(clause, vocabulary, footwear=footwear, occasions=False)
        ):
            return True
    return False


def passing(lowered: str) -> bool:
    """Thanks, a goodbye, a word about the assistant: no follow-up on the list ("cheers",
    "ta", "lol ok thanks" read as words would be searched)."""
    act = act_by_meaning(lowered)
    return act is not None and act.name in ("smalltalk", "out_of_scope")


# Asking the assistant to act outside the catalog: hold, wrap, deliver, track, write. It can
# find products, check sizes and stock and compare them; it says so rather than searching.
_CAN_YOU = re.compile(r"\b(can|could|would|will|do|does) (you|u|aisle|the shop)\b|\bplease\b")
_SERVICE = re.compile(
    r"\b(reserve|hold (one|it|a pair|them)|put (one|it) aside|gift[- ]?wrap\w*|wrap (it|them)|"
    r"deliver\w*|ship\w*|track\w*|my order|an order|return (it|them)|refund|exchange it|"
    r"click and collect|in store|in-store|book (me|a)|write (me )?(a |an )?(poem|song|story|"
    r"essay|text|letter|email)|recommend (a|an|some) (good )?(restaurant|bar|film|movie|book|"
    r"hotel))\b"
)


def service_asked(lowered: str) -> bool:
    """ "Can you reserve a pair in store?", "do you do gift wrapping?": a service, not a
    product; "write me a poem about t-shirts" names a category and is still no search."""
    return bool(_CAN_YOU.search(lowered) and _SERVICE.search(lowered))


# "I'm a large", "i wear an XS": a size and nothing besides, no word that sets it aside
# ("btw", "if that helps", "in jackets", "these days"), so it is for the list in view.
_SIZE_ALONE = re.compile(
    r"^\W*(?:(?:ok|okay|oh|and|so|well|hmm)\W+)?(?:i'?m|i am|i wear|i take)\s+(?:a |an )?"
    r"(?:size\s+)?(?:(?:uk|us|eu)\s*)?[a-z0-9.]+\W*$"
)


def size_for_the_list(lowered: str, parsed: ShopperRequest) -> bool:
    """A size said bare right after a list: the list again, in that size."""
    return parsed.size is not None and bool(_SIZE_ALONE.search(lowered))
