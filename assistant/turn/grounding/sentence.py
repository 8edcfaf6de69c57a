"""One sentence's claims, each held to the product it is about.

A claim is about one product: the nearest product the sentence names before it, else the
first it names after it, else the product the answer was last about. A price is backed
only by that product's price; a difference of two prices only where a comparison ties it to
two named products; a limit ("under €45", "your €60 budget") only by a figure the shopper
gave. Stock and availability are read per product, colour and size, from the whole
sentence. What the data can correct is corrected; otherwise the sentence is dropped, and so
is a sentence that states a figure about a product that nothing here can read.

Figures written in words are read as digits (`llm.shopper_words.numbers_in_digits`): a
sentence that needs no change is returned as the model wrote it, one that is corrected in
its digit form.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from assistant.turn.grounding import reading as r
from assistant.turn.grounding.evidence import Evidence, Product, name_plain
from llm.claims import offer_stated
from llm.shopper_words import SHOP_CURRENCY, amounts_of_money, numbers_in_digits

Kind = Literal[
    "price", "stock", "availability", "sizes", "colours", "name", "offer", "policy", "figure"
]
Verdict = Literal["backed", "corrected", "dropped"]
KINDS: tuple[Kind, ...] = (
    "price",
    "stock",
    "availability",
    "sizes",
    "colours",
    "name",
    "offer",
    "policy",
    "figure",
)
_PRONOUN = re.compile(r"\b(?:it|its|it's|they|them|their|this one|that one|both)\b", re.I)


@dataclass(frozen=True)
class Claim:
    kind: Kind
    verdict: Verdict


@dataclass
class Checked:
    """One sentence after the check: what the shopper reads, and each claim's verdict."""

    text: str
    claims: list[Claim]
    dropped: Kind | None = None


def _about(position: int, named: list[tuple[int, Product]], context: Product | None):
    """The product a claim at `position` is about."""
    before = [product for at, product in named if at <= position]
    if before:
        return before[-1]
    return named[0][1] if named else context


_FOR_THE = re.compile(r"\s*(?:for|on)\s+(?:the\s+)?(?:\*\*|\[)?", re.I)


def _named_next(end: int, text: str, named: list[tuple[int, Product]]) -> Product | None:
    lead = _FOR_THE.match(text, end)
    if lead is None:
        return None
    return next((p for at, p in named if at == lead.end()), None)


def _distinct(named: list[tuple[int, Product]]) -> list[Product]:
    return list({p.sku: p for _, p in named}.values())


def _spans_of_names(text: str, named: list[tuple[int, Product]]) -> list[tuple[int, int]]:
    return [(at, at + len(p.name)) for at, p in named]


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in spans)


def _sizes_sorted(sizes, evidence: Evidence) -> list[str]:
    order = {size: i for i, size in enumerate(evidence.sizes)}
    return sorted(set(sizes), key=lambda s: order.get(s, len(order)))


def availability_line(
    product: Product, evidence: Evidence, *, size: str | None, colour: str | None
) -> str:
    """What the data says of one product in a size and colour, as one sentence."""
    name = f"**{product.name}**"
    sizes = _sizes_sorted(product.sizes_in(colour) or [], evidence)
    if colour and colour not in product.colours:
        others = r.and_join(sorted(product.colours)) or "no colour at the moment"
        return f"The {name} isn't in stock in {colour} right now; it comes in {others}."
    in_colour = f" in {colour}" if colour else ""
    if size and size not in sizes:
        other = f"sizes {r.and_join(sizes)}" if sizes else "no size at the moment"
        return f"The {name} isn't in stock in size {size}{in_colour}; it comes in {other}."
    if size:
        left = product.stock_of(size=size, colour=colour)
        count = f" ({left} left)" if left else ""
        return f"The {name} is in stock in size {size}{in_colour}{count}."
    if not sizes:
        return f"The {name} isn't in stock{in_colour} right now."
    return f"The {name} is in stock{in_colour} in sizes {r.and_join(sizes)}."


def _drop(claims: list[Claim], kind: Kind) -> Checked:
    return Checked(text="", claims=[*claims, Claim(kind, "dropped")], dropped=kind)


def _trailing(sentence: str) -> str:
    return sentence[len(sentence.rstrip()) :]


def _name_backed(label: str, evidence: Evidence) -> bool:
    """A bold name or link label is exactly a product's name, or that name with only its
    colour, size or price beside it ("Crew Tee (navy)", "Crew Tee — €19.99")."""
    if evidence.by_name(label) is not None:
        return True
    plain = name_plain(label)
    for product in evidence.products.values():
        name = name_plain(product.name)
        if not plain.startswith(name):
            continue
        rest = plain[len(name) :]
        rest = re.sub(r"[€£$]?\s?\d+(?:[.,]\d{1,2})?", " ", rest)
        rest = re.sub(r"\b(?:in|size|sizes|eur|euros?)\b|[\s,;:()\-\u2013\u2014/]+", " ", rest)
        words = rest.split()
        if all(w in evidence.colours or w.upper() in evidence.sizes for w in words):
            return True
    return False


def _names(text: str, evidence: Evidence) -> list[Claim] | None:
    """Verdicts on the names given as results; None when one is no product of this turn."""
    claims = []
    for match in list(r.BOLD.finditer(text)) + list(r.LINK_LABEL.finditer(text)):
        label = match.group("label").strip()
        if r.NOT_A_NAME.search(label) or label.lower() in evidence.colours:
            continue
        if label in evidence.sizes or not re.search(r"[A-Z]", label):
            continue
        if not _name_backed(label, evidence):
            return None
        claims.append(Claim("name", "backed"))
    return claims


def sentence_check(sentence: str, evidence: Evidence, *, context: Product | None) -> Checked:
    """Check one sentence's claims; correct what the data can correct, else drop it."""
    text = numbers_in_digits(sentence)
    claims = _names(text, evidence)
    if claims is None:
        return _drop([], "name")
    if r.POLICY.search(text) and r.PROMISE.search(text):
        return _drop(claims, "policy")
    if offer_stated(text):
        return _drop(claims, "offer")

    named = evidence.named(text)
    products = _distinct(named)

    # Money amounts, last first so that a correction leaves earlier positions in place.
    for money in reversed(amounts_of_money(text)):
        before, after = text[: money.start], text[money.end :]
        if r.LIMIT_BEFORE.search(before) or r.LIMIT_AFTER.match(after):
            verdict = "backed" if evidence.figure_backs(money.amount) else None
        elif r.COMPARISON_AFTER.match(after) or r.COMPARISON_BEFORE.search(before):
            gaps = [
                abs(a.price - b.price)
                for i, a in enumerate(products)
                for b in products[i + 1 :]
                if a.price is not None and b.price is not None
            ]
            verdict = "backed" if any(abs(money.amount - g) < 0.005 for g in gaps) else None
        elif r.SUM.search(text) and products:
            # A sum is never corrected to one price: it stands only if it is one.
            product = _about(money.start, named, context)
            one = product is not None and product.price_backs(money.amount, rounded=False)
            verdict = "backed" if one and len(products) <= 1 else None
        else:
            # "€23.00 for the **Crew Tee**": the product named just after is the one.
            product = _named_next(money.end, text, named) or _about(money.start, named, context)
            if product is None:
                # Tied to no product of this turn: a shopper's figure, a price the turn saw,
                # or either rounded to whole euros.
                seen = [p.price for p in evidence.products.values() if p.price is not None]
                known = [*seen, *evidence.figures]
                backed = any(
                    abs(money.amount - value) < 0.005 or money.amount == math.floor(value + 0.5)
                    for value in known
                )
                verdict = "backed" if backed else None
            elif money.currency == SHOP_CURRENCY and product.price_backs(
                money.amount, rounded=not re.search(r"[.,]\d", text[money.start : money.end])
            ):
                verdict = "backed"
            elif product.price is not None:
                fixed = f"€{product.price:.2f}"
                text = text[: money.start] + fixed + text[money.end :]
                named = evidence.named(text)  # names after it have moved
                verdict = "corrected"
            else:
                verdict = None
        if verdict is None:
            return _drop(claims, "price")
        claims.append(Claim("price", verdict))
    named = evidence.named(text)
    names = _spans_of_names(text, named)

    colours = [
        (m.start(), m.group(0).lower())
        for m in r.colour_pattern(tuple(evidence.colours)).finditer(text)
        if not _inside(m.start(), names)
    ]
    one_colour = colours[0][1] if len({c for _, c in colours}) == 1 else None
    sizes_said = [
        m
        for m in r.SIZE_MENTION.finditer(text)
        if m.group("size") in evidence.sizes and not _inside(m.start("size"), names)
    ]
    one_size = sizes_said[0].group("size") if len({m["size"] for m in sizes_said}) == 1 else None
    negative = bool(r.NEGATIVE.search(text))

    # Stock counts.
    for match in reversed(list(r.COUNT.finditer(text))):
        if _inside(match.start(), names):
            continue
        pinned = (match.group("in") or "").lower()
        colour, size = one_colour, one_size
        if pinned in evidence.colours:
            colour = pinned
        elif pinned.upper() in evidence.sizes or pinned in evidence.sizes:
            size = pinned.upper() if pinned.upper() in evidence.sizes else pinned
        elif pinned:
            continue  # "2 in the sale": no colour or size, no count of pieces
        claimed = int(match.group("n"))
        product = _about(match.start(), named, context)
        ambiguous = (colour is None and len(colours) > 1) or (size is None and len(sizes_said) > 1)
        truth = product.stock_of(size=size, colour=colour) if product else None
        if truth is None or (ambiguous and truth != claimed):
            return _drop(claims, "stock")
        if truth == claimed:
            claims.append(Claim("stock", "backed"))
            continue
        claims.append(Claim("stock", "corrected"))
        if truth == 0:
            line = availability_line(product, evidence, size=size, colour=colour)
            return Checked(text=line + _trailing(sentence), claims=claims)
        text = text[: match.start("n")] + str(truth) + text[match.end("n") :]

    # "In every size": the sizes in stock instead.
    if r.EVERY_SIZE.search(text) and not negative:
        product = _about(r.EVERY_SIZE.search(text).start(), named, context)
        if product is None:
            return _drop(claims, "sizes")
        claims.append(Claim("sizes", "corrected"))
        line = availability_line(product, evidence, size=None, colour=one_colour)
        return Checked(text=line + _trailing(sentence), claims=claims)

    # Lists of sizes in stock.
    listed = next(
        (
            m
            for m in r.SIZE_RUN.finditer(text)
            if not _inside(m.start(), names)
            and all(s in evidence.sizes for s in re.findall(r.SIZE_ITEM, m.group("list")))
        ),
        None,
    )
    if listed is not None and not negative:
        product = _about(listed.start(), named, context)
        said = re.findall(r.SIZE_ITEM, listed.group("list"))
        truth = product.sizes_in(one_colour) if product else None
        if truth is None:
            return _drop(claims, "sizes")
        if all(s in truth for s in said):
            claims.append(Claim("sizes", "backed"))
        elif truth:
            start, end = listed.span("list")
            text = text[:start] + r.and_join(_sizes_sorted(truth, evidence)) + text[end:]
            claims.append(Claim("sizes", "corrected"))
        else:
            claims.append(Claim("sizes", "corrected"))
            line = availability_line(product, evidence, size=None, colour=one_colour)
            return Checked(text=line + _trailing(sentence), claims=claims)

    # Lists of colours.
    colour_list = r.colour_list_pattern(tuple(evidence.colours)).search(text)
    if colour_list is not None:
        product = _about(colour_list.start(), named, context)
        said = [c.lower() for c in r.colour_pattern(tuple(evidence.colours)).findall(
            colour_list.group("list")
        )]  # fmt: skip
        if product is None or not product.colours:
            return _drop(claims, "colours")
        if all(c in product.colours for c in said):
            claims.append(Claim("colours", "backed"))
        else:
            start, end = colour_list.span("list")
            text = text[:start] + r.and_join(sorted(product.colours)) + text[end:]
            claims.append(Claim("colours", "corrected"))

    # Availability of a product in a size and/or colour, said positively.
    elif listed is None and (one_size or one_colour) and r.AVAILABLE.search(text) and not negative:
        at = sizes_said[0].start() if one_size else colours[0][0]
        product = _about(at, named, context)
        if product is not None:
            if one_colour and one_colour not in product.colours:
                backed = False
            elif one_size:
                sizes = product.sizes_in(one_colour)
                backed = sizes is not None and one_size in sizes
            else:
                backed = True
            if not backed:
                claims.append(Claim("availability", "corrected"))
                line = availability_line(product, evidence, size=one_size, colour=one_colour)
                return Checked(text=line + _trailing(sentence), claims=claims)
            claims.append(Claim("availability", "backed"))

    # How many colours or sizes it comes in.
    for match in r.HOW_MANY.finditer(text):
        product = _about(match.start(), named, context)
        kind: Kind = "colours" if match.group("colours") else "sizes"
        have = (product.colours if kind == "colours" else product.sizes) if product else None
        if not have or len(have) != int(match.group("n")):
            return _drop(claims, kind)
        claims.append(Claim(kind, "backed"))

    if _unread_figure(text, evidence, named, context):
        return _drop(claims, "figure")
    return Checked(text=sentence if text == numbers_in_digits(sentence) else text, claims=claims)


def _unread_figure(
    text: str, evidence: Evidence, named: list[tuple[int, Product]], context: Product | None
) -> bool:
    """Whether a sentence about a product states a figure no reader above accounts for."""
    if not named and not (context is not None and _PRONOUN.search(text)):
        return False
    read = _spans_of_names(text, named)
    read += [(m.start, m.end) for m in amounts_of_money(text)]
    readers = (r.COUNT, r.SIZE_MENTION, r.SIZE_RUN, r.HOW_MANY, r.HARMLESS_NUMBER, r.LINK_TARGET)
    for pattern in readers:
        read += [m.span() for m in pattern.finditer(text)]
    described = set().union(*(p.described for _, p in named)) if named else set()
    if context is not None:
        described |= context.described
    for figure in re.finditer(r"\d+", text):
        if _inside(figure.start(), read) or figure.group(0) in described:
            continue
        return True
    return False
