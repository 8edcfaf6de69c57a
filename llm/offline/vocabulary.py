"""The catalog's words, learnt from the enums of the `search_products` tool schema.

The offline model knows no catalog of its own: a category, colour, size or brand is
recognised only if the tool schema it was sent offers it, so it can only ask for what exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Used only when a request offers no `search_products` enums (e.g. the judge's request).
LETTER_SIZES = ("XS", "S", "M", "L", "XL", "XXL")
SHOE_SIZES = tuple(str(n) for n in range(35, 49))
COMMON_COLOURS = (
    "black", "white", "grey", "navy", "blue", "red", "green", "olive", "yellow", "pink",
    "beige", "brown", "orange", "purple", "cream", "khaki", "burgundy", "teal",
)  # fmt: skip

# Words shoppers use, keyed by the word a catalog enum most likely carries.
CATEGORY_WORDS: dict[str, tuple[str, ...]] = {
    "t-shirt": ("t-shirt", "t-shirts", "tshirt", "tshirts", "tee", "tees", "t shirt", "t shirts"),
    "shirt": ("shirt", "shirts", "blouse", "blouses", "button-down", "button-downs", "oxford"),
    "knitwear": (
        "knitwear", "knit", "knits", "jumper", "jumpers", "sweater", "sweaters",
        "cardigan", "cardigans", "pullover", "pullovers", "knitted",
    ),
    "jeans": ("jeans", "denim", "denims"),
    "trousers": ("trousers", "trouser", "pants", "chinos", "chino", "slacks"),
    "dress": ("dress", "dresses", "gown", "gowns"),
    "skirt": ("skirt", "skirts"),
    "jacket": (
        "jacket", "jackets", "coat", "coats", "blazer", "blazers", "parka", "parkas",
        "raincoat", "raincoats", "anorak",
    ),
    "sneaker": ("sneaker", "sneakers", "trainer", "trainers", "running shoes", "kicks"),
    "boot": ("boot", "boots"),
    "sandal": ("sandal", "sandals", "flip-flops", "flip flops"),
    "shorts": ("shorts",),
    "hoodie": ("hoodie", "hoodies"),
}  # fmt: skip
COLOUR_WORDS: dict[str, tuple[str, ...]] = {
    "grey": ("grey", "gray", "charcoal"),
    "navy": ("navy", "navy blue", "dark blue"),
    "beige": ("beige", "cream", "off-white", "sand", "camel", "tan"),
    "red": ("red", "burgundy", "maroon", "wine"),
    "olive": ("olive", "khaki", "olive green"),
    "brown": ("brown", "chocolate"),
}
FOOTWEAR_HINTS = ("sneaker", "boot", "sandal", "shoe", "trainer", "loafer", "heel", "footwear")


@dataclass
class Vocabulary:
    categories: list[str] = field(default_factory=list)
    colours: list[str] = field(default_factory=list)
    sizes: list[str] = field(default_factory=list)
    brands: list[str] = field(default_factory=list)
    # Phrase (lower case) -> enum value, longest phrases matched first.
    category_phrases: dict[str, str] = field(default_factory=dict)
    colour_phrases: dict[str, str] = field(default_factory=dict)

    def is_footwear(self, category: str | None) -> bool:
        return bool(category) and any(hint in category.lower() for hint in FOOTWEAR_HINTS)


def vocabulary_from_tools(tools: list[dict] | None) -> Vocabulary:
    """Read category, colour, size and brand enums off the `search_products` schema."""
    properties = _search_properties(tools or [])
    if not properties:
        return default_vocabulary()
    vocabulary = Vocabulary(
        categories=_enum_of(properties.get("category")),
        colours=_enum_of(properties.get("colour") or properties.get("color"))
        or _enum_of(properties.get("exclude_colours")),
        sizes=_enum_of(properties.get("size")),
        brands=_enum_of(properties.get("brand")),
    )
    _phrases_build(vocabulary)
    return vocabulary


def default_vocabulary() -> Vocabulary:
    """Generic clothing words, for roles that are sent no tool schema."""
    vocabulary = Vocabulary(
        categories=[],
        colours=list(COMMON_COLOURS),
        sizes=list(LETTER_SIZES + SHOE_SIZES),
        brands=[],
    )
    _phrases_build(vocabulary)
    return vocabulary


def _search_properties(tools: list[dict]) -> dict:
    for tool in tools:
        function = tool.get("function") or {}
        if function.get("name") == "search_products":
            return (function.get("parameters") or {}).get("properties") or {}
    return {}


def _enum_of(schema: dict | None) -> list[str]:
    if not isinstance(schema, dict):
        return []
    values = schema.get("enum")
    if values is None and isinstance(schema.get("items"), dict):
        values = schema["items"].get("enum")
    if values is None and isinstance(schema.get("anyOf"), list):
        values = next((part.get("enum") for part in schema["anyOf"] if part.get("enum")), None)
    return [str(value) for value in values or [] if value is not None]


def _phrases_build(vocabulary: Vocabulary) -> None:
    for category in vocabulary.categories:
        for phrase in _category_phrases(category):
            vocabulary.category_phrases.setdefault(phrase, category)
    # Enum words beat synonyms: a catalog with both "coats" and "jackets" keeps them apart.
    for category in vocabulary.categories:
        for phrase in (category.lower(), _singular(category.lower())):
            vocabulary.category_phrases[phrase] = category
            vocabulary.category_phrases[phrase + "s"] = category
    for colour in vocabulary.colours:
        for phrase in COLOUR_WORDS.get(colour.lower(), ()):
            vocabulary.colour_phrases.setdefault(phrase, colour)
    for colour in vocabulary.colours:
        vocabulary.colour_phrases[colour.lower()] = colour
        if colour.lower() == "grey":
            vocabulary.colour_phrases["gray"] = colour


def _category_phrases(category: str) -> tuple[str, ...]:
    key = _singular(category.lower())
    for concept, words in CATEGORY_WORDS.items():
        if key in (concept, _singular(concept)) or key in words:
            return words
    return ()


def _singular(word: str) -> str:
    if word.endswith("sses") or word.endswith("shes"):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and word not in ("jeans", "trousers"):
        return word[:-1]
    return word
