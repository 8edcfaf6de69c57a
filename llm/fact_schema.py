"""The closed list of fact categories and slots, and the sentences facts are written in.

Shared by the judge prompt for real models, the offline judge and the memory policy (which
validates judge output against it and consolidates facts by slot). A fact is
(sentence, category, slot, value), and only a durable fact the shopper states about
themselves is one:

| category | slot | value |
|---|---|---|
| size | size/tops (also a size given for no garment), size/bottoms, size/dresses, size/outerwear, size/shoes, size/waist, size/inseam | letters for clothes ("M"), EU numbers for shoes, half sizes kept ("42.5"), inches for waist and inseam ("32"); "+1" / "-1" for "I've gone up/down a size" with no new size named |
| budget | budget | "<amount> <CUR>" (EUR, GBP, USD; no currency word is EUR), "tight", or "none" (lifted) |
| colour | colour/<colour> | like / dislike / neutral |
| brand | brand/<brand> | like / dislike / neutral |
| design | design/<term> (fit, cut, neck, width, pattern, style) | like / dislike / neutral |
| material | material/<material> | like / dislike / neutral |
| values | values/<value> (sustainable, vegan, fair-trade, ...) | like / dislike / neutral |
| occasion | occasion/<occasion> | the occasion, as in the slot |

The labelling rules (tests/data/README.md has them with examples):
- A size for a garment goes to that garment's slot (t-shirts, shirts, knitwear, hoodies ->
  tops; jeans, trousers, shorts, skirts -> bottoms; dresses, jumpsuits -> dresses; jackets,
  coats, blazers, parkas -> outerwear; any footwear -> shoes), and is stored in the shop's
  system (`llm.shopper_words` converts): UK shoe sizes to EU (UK 8 -> 42, UK 8.5 -> 42.5),
  US men's = UK + 1, US women's = UK + 2, a US size that says neither is men's; numbered
  clothing sizes to letters (UK 12 -> M, US = UK - 4, EU = UK + 28; a bare number is UK);
  centimetres to whole inches. The sentence keeps the shopper's own wording beside the
  converted size ("The shopper wears shoe size 42 (UK 8)."). A size relative to one brand
  ("I go up a size in Vela") or for one purchase is no fact.
- Keys are lowercase, hyphenated, base form; a brand is its name so ("fjord-and-pine").
  Design holds the neck and width shapes too (v-neck, crew-neck, turtleneck, wide-fit, ...),
  and any other style word the shop could act on in the same form (design/double-breasted).
- Changes of mind keep the newest state only ("I switched from Vela to Tern" dislikes Vela
  and likes Tern); lists give every item.
- Lifting a preference is a fact that replaces the old one: a named preference lifted is
  its slot with `neutral` ("yellow's fine now": colour/yellow = neutral); a whole category
  lifted is `<category>/any` = `neutral` ("any brand is fine": brand/any, which replaces
  every brand fact); the budget lifted is budget = `none`. None of them is a search filter.
- Nothing is kept for one-time exceptions ("just this once I'd spend 200"), prices quoted for
  a product, sarcasm, other people's sizes and tastes, hypotheticals, questions, past states,
  small talk, instructions, claims about the shop, and a size, colour or budget inside a
  plain request, except a waist measurement.

Every slot holds one value at a time: a newer fact of the same slot with another value
replaces the older one. Two different sizes for two kinds within one slot ("a 42 in running
shoes, a 43 in boots") are no fact, unless one is the usual one, since a search sends one
size per slot. The categories are the memory specification's five (size, brand, colour,
budget band, occasion) and design, material and values, as durable as those
(docs/memory.md says why); the list stays closed. A person the shopper buys for is not a
category: facts are only what the shopper says about themselves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from llm.fact_terms import (
    COLOUR_TERMS,
    DESIGN_TERMS,
    MATERIAL_TERMS,
    VALUE_TERMS,
)
from llm.shopper_words import (
    CURRENCY_WORDS,
    LETTER_SIZES,
    OCCASION_PHRASES,
    size_in_shop_system,
)

CATEGORIES = ("size", "budget", "colour", "brand", "design", "material", "values", "occasion")
PREFERENCE_CATEGORIES = ("colour", "brand", "design", "material", "values")
LIKE, DISLIKE, NEUTRAL = "like", "dislike", "neutral"
# The key of a whole category lifted ("any brand is fine": brand/any = neutral).
ANY_KEY = "any"
ANY_CATEGORIES = ("colour", "brand", "design", "material")
SIZE_SLOTS = (
    "size/tops",
    "size/bottoms",
    "size/dresses",
    "size/outerwear",
    "size/shoes",
    "size/waist",
    "size/inseam",
)
BUDGET_SLOT = "budget"
TIGHT_BUDGET = "tight"
NO_BUDGET = "none"

# Garment words a size can be given for, by slot; "I'm an M" alone counts as tops.
GARMENT_SLOTS: dict[str, tuple[str, ...]] = {
    "size/tops": (
        "tops", "top", "t-shirts", "t-shirt", "tshirts", "tees", "tee", "shirts", "shirt",
        "blouses", "blouse", "sweaters", "sweater", "jumpers", "jumper", "hoodies", "hoodie",
        "knitwear", "knits", "cardigans", "cardigan", "sweatshirts", "sweatshirt", "polos",
    ),
    "size/bottoms": (
        "bottoms", "jeans", "trousers", "pants", "chinos", "shorts", "skirts", "skirt",
        "leggings", "joggers",
    ),
    "size/dresses": ("dresses", "dress", "jumpsuits", "jumpsuit"),
    "size/outerwear": (
        "jackets", "jacket", "coats", "coat", "blazers", "blazer", "parkas", "parka",
        "outerwear", "raincoats", "raincoat",
    ),
    "size/shoes": (
        "shoes", "shoe", "sneakers", "sneaker", "trainers", "trainer", "boots", "boot",
        "sandals", "sandal", "heels", "loafers", "footwear", "feet", "foot",
    ),
}  # fmt: skip

_KEY = r"[a-z0-9]+(?:-[a-z0-9]+)*"
SLOT_RE = re.compile(rf"^(?:size/(?:tops|bottoms|dresses|outerwear|shoes|waist|inseam)|budget|"
                     rf"(?:colour|brand|design|material|values|occasion)/{_KEY})$")  # fmt: skip
MAX_SLOT_CHARS = 60
_RELATIVE = r"[+-][1-3]"
_SIZE_VALUE = {
    "size/shoes": re.compile(rf"^(?:(?:3\d|4\d|50)(?:\.5)?|{_RELATIVE})$"),
    "size/waist": re.compile(r"^\d{2}$"),
    "size/inseam": re.compile(r"^\d{2}$"),
}
_GARMENT_SIZE_VALUE = re.compile(rf"^(?:{'|'.join(LETTER_SIZES)}|{_RELATIVE})$")
_BUDGET_VALUE = re.compile(
    rf"^(?:\d{{1,5}} (?:{'|'.join(CURRENCY_WORDS)})|{TIGHT_BUDGET}|{NO_BUDGET})$"
)


@dataclass(frozen=True)
class FactSlot:
    """Where a fact belongs and what it says there."""

    category: str
    slot: str
    value: str

    @property
    def is_relative(self) -> bool:
        return self.category == "size" and bool(re.fullmatch(_RELATIVE, self.value))


def restatement_key(text: str) -> str:
    """What two fact sentences share when one restates the other: they differ only in case,
    spacing or a final full stop."""
    return re.sub(r"\s+", " ", text).strip().rstrip(".").lower()


def slot_valid(category: str, slot: str, value: str) -> bool:
    """True when slot and value are well-formed for the category (the closed list above)."""
    if category not in CATEGORIES or len(slot) > MAX_SLOT_CHARS or not SLOT_RE.match(slot):
        return False
    if slot.split("/", 1)[0] != category:
        return False
    if category == "size":
        return bool(_SIZE_VALUE.get(slot, _GARMENT_SIZE_VALUE).match(value))
    if category == "budget":
        return bool(_BUDGET_VALUE.match(value))
    if category == "occasion":
        return value == slot.split("/", 1)[1]
    if slot.split("/", 1)[1] == ANY_KEY:
        return category in ANY_CATEGORIES and value == NEUTRAL
    return value in (LIKE, DISLIKE, NEUTRAL)


def slot_key(name: str) -> str:
    """A slot key from a shopper's word: "Fjord & Pine" -> "fjord-and-pine", "Levi's" -> "levis"."""
    lowered = name.lower().replace("&", " and ")
    lowered = re.sub(r"['\u2019.]", "", lowered)
    return re.sub(r"[^a-z0-9]+", "-", lowered).strip("-")


def garment_slot(word: str) -> str | None:
    lowered = word.lower()
    return next((slot for slot, words in GARMENT_SLOTS.items() if lowered in words), None)


def size_step(value: str, change: str) -> str | None:
    """Apply a relative change ("+1") to a size; None when the size has no next step."""
    steps = int(change)
    if value in LETTER_SIZES:
        index = LETTER_SIZES.index(value) + steps
        return LETTER_SIZES[index] if 0 <= index < len(LETTER_SIZES) else None
    match = re.fullmatch(r"((?:EU|UK|US) )?(\d{1,2}(?:\.5)?)", value)
    if not match:
        return None
    number = float(match.group(2)) + steps
    shown = str(int(number)) if number.is_integer() else str(number)
    return (match.group(1) or "") + shown if 0 < number < 100 else None


# --- Sentences ---------------------------------------------------------------------------


def size_sentence(
    slot: str, value: str, garment: str | None = None, *, said: str | None = None
) -> str:
    """The size in the shop's system, with the shopper's own wording beside it when that
    differs ("The shopper wears shoe size 42 (UK 8).")."""
    aside = f" ({said})" if said and said.lower() != value.lower() else ""
    if slot == "size/shoes":
        return f"The shopper wears shoe size {value}{aside}."
    if slot == "size/waist":
        return f"The shopper's waist size is {value}{aside}."
    if slot == "size/inseam":
        return f"The shopper's inseam length is {value}{aside}."
    if garment is None and slot != "size/tops":
        garment = GARMENT_SLOTS[slot][0]
    where = f" in {garment}" if garment else ""
    return f"The shopper wears size {value}{where}{aside}."


def relative_size_sentence(slot: str, change: str) -> str:
    """A change of size before the policy resolves it ("+1" from the current size)."""
    direction = "up" if change.startswith("+") else "down"
    steps = abs(int(change))
    noun = "shoe size" if slot == "size/shoes" else "size"
    amount = f"a {noun}" if steps == 1 else f"{steps} {noun}s"
    where = "" if slot in ("size/tops", "size/shoes") else f" in {GARMENT_SLOTS[slot][0]}"
    return f"The shopper went {direction} {amount}{where}."


def budget_sentence(value: str) -> str:
    if value == TIGHT_BUDGET:
        return "The shopper is on a tight budget."
    if value == NO_BUDGET:
        return "The shopper has no budget limit any more."
    return f"The shopper's budget is up to {value}."


# What "any" lifts, as the sentence names it.
_ANY_NOUNS = {"colour": "colour", "brand": "brand", "design": "fit or style", "material": "fabric"}


def preference_sentence(category: str, value: str, phrase: str) -> str:
    if value == NEUTRAL:
        if phrase == ANY_KEY:
            return f"The shopper does not mind which {_ANY_NOUNS[category]}."
        brand = "the brand " if category == "brand" else ""
        return f"The shopper no longer minds {brand}{phrase}."
    if category == "colour":
        return f"The shopper {'likes' if value == LIKE else 'dislikes'} {phrase}."
    if category == "brand":
        return f"The shopper {'prefers' if value == LIKE else 'dislikes'} the brand {phrase}."
    return f"The shopper {'prefers' if value == LIKE else 'dislikes'} {phrase}."


def occasion_sentence(phrase: str) -> str:
    return f"The shopper is shopping for {phrase}."


# --- Reading the sentences back ----------------------------------------------------------

_PHRASE_SLOTS: dict[str, tuple[str, str]] = {}
for _category, _terms in (
    ("colour", COLOUR_TERMS),
    ("design", DESIGN_TERMS),
    ("values", VALUE_TERMS),
    ("material", MATERIAL_TERMS),
):
    for _key, _phrase in _terms.values():
        _PHRASE_SLOTS[_phrase.lower()] = (_category, f"{_category}/{_key}")
_OCCASION_SLOTS = {phrase.lower(): f"occasion/{key}" for key, phrase in OCCASION_PHRASES.items()}
_ASIDE = r"(?: \([^()]{1,20}\))?"
_SENTENCES = (
    (re.compile(rf"^The shopper wears shoe size ((?:(?:EU|UK|US) )?\d{{1,2}}(?:\.5)?){_ASIDE}\.?$"), "shoe"),
    (re.compile(rf"^The shopper wears size (\S+) in ([a-z-]+){_ASIDE}\.?$"), "garment"),
    (re.compile(rf"^The shopper wears size (\S+?){_ASIDE}\.?$"), "size"),
    (re.compile(rf"^The shopper's waist size is (\d{{2}}){_ASIDE}\.?$"), "waist"),
    (re.compile(rf"^The shopper's inseam length is (\d{{2}}){_ASIDE}\.?$"), "inseam"),
    (re.compile(r"^The shopper's budget is up to (\d{1,5} (?:EUR|GBP|USD))\.?$"), "budget"),
    (re.compile(r"^The shopper is on a tight budget\.?$"), "tight"),
    (re.compile(r"^The shopper has no budget limit(?: any more)?\.?$"), "no budget"),
    (re.compile(r"^The shopper does not mind which (colour|brand|fit or style|fabric)\.?$"), "any"),
    (re.compile(r"^The shopper no longer minds the brand (.{1,40}?)\.?$"), "brand neutral"),
    (re.compile(r"^The shopper no longer minds (.{1,40}?)\.?$"), "neutral"),
    (re.compile(r"^The shopper (prefers|dislikes) the brand (.{1,40}?)\.?$"), "brand"),
    (re.compile(r"^The shopper is shopping for (.{1,40}?)\.?$"), "occasion"),
    (re.compile(r"^The shopper (likes|prefers|dislikes) (.{1,40}?)\.?$"), "preference"),
)  # fmt: skip


def slot_from_sentence(sentence: str) -> FactSlot | None:
    """Read category, slot and value back off a fact written in one of the sentences above.

    Facts stored before slots were annotated, and bare sentences from a model that ignored
    the slot fields, are consolidated this way; any other wording gets no slot.
    """
    text = " ".join(sentence.split())
    for pattern, kind in _SENTENCES:
        match = pattern.match(text)
        if match:
            return _slot_of(kind, match)
    return None


def _slot_of(kind: str, match: re.Match) -> FactSlot | None:
    if kind == "shoe":
        value = size_in_shop_system(match.group(1), shoes=True)
        return FactSlot("size", "size/shoes", value) if value else None
    if kind in ("waist", "inseam"):
        return FactSlot("size", f"size/{kind}", match.group(1))
    if kind in ("garment", "size"):
        slot = garment_slot(match.group(2)) if kind == "garment" else "size/tops"
        said = match.group(1)
        value = said if re.fullmatch(_RELATIVE, said) else size_in_shop_system(said, shoes=False)
        fact = FactSlot("size", slot or "", value or "")
        return fact if slot and slot_valid("size", slot, fact.value) else None
    if kind == "budget":
        return FactSlot("budget", BUDGET_SLOT, match.group(1))
    if kind == "tight":
        return FactSlot("budget", BUDGET_SLOT, TIGHT_BUDGET)
    if kind == "no budget":
        return FactSlot("budget", BUDGET_SLOT, NO_BUDGET)
    if kind == "any":
        category = next(c for c, noun in _ANY_NOUNS.items() if noun == match.group(1))
        return FactSlot(category, f"{category}/{ANY_KEY}", NEUTRAL)
    if kind == "brand neutral":
        key = slot_key(match.group(1))
        return FactSlot("brand", f"brand/{key}", NEUTRAL) if key else None
    if kind == "neutral":
        phrase = match.group(1).lower()
        if phrase not in _PHRASE_SLOTS:
            return None
        category, slot = _PHRASE_SLOTS[phrase]
        return FactSlot(category, slot, NEUTRAL)
    if kind == "brand":
        key = slot_key(match.group(2))
        value = LIKE if match.group(1) == "prefers" else DISLIKE
        return FactSlot("brand", f"brand/{key}", value) if key else None
    if kind == "occasion":
        slot = _OCCASION_SLOTS.get(match.group(1).lower())
        return FactSlot("occasion", slot, slot.split("/", 1)[1]) if slot else None
    value = DISLIKE if match.group(1) == "dislikes" else LIKE
    phrase = match.group(2).lower()
    if phrase not in _PHRASE_SLOTS:
        return None
    category, slot = _PHRASE_SLOTS[phrase]
    # Colours are liked, everything else is preferred: another verb is another wording.
    if match.group(1) == ("prefers" if category == "colour" else "likes"):
        return None
    return FactSlot(category, slot, value)
