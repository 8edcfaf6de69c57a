"""The catalog's words, learnt from the enums of the `search_products` tool schema.

The offline model knows no catalog of its own: a category, colour, size, brand or material
is recognised only if the tool schema it was sent offers it, so it can only ask for what
exists. The word lists below are general language (British and American, casual and
formal), keyed by the word a catalog enum most likely carries; none is any shop's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from llm.shopper_words import CURRENCY_WORDS, LETTER_SIZE_WORDS
from llm.shopper_words import LETTER_SIZES as ALL_LETTER_SIZES

# Used only when a request offers no `search_products` enums (e.g. the judge's request):
# the letters the shop sells, XS to XXL.
LETTER_SIZES = tuple(size for size in ALL_LETTER_SIZES if size not in ("XXS", "XXXL"))
SHOE_SIZES = tuple(str(n) for n in range(35, 49))
COMMON_COLOURS = (
    "black", "white", "grey", "navy", "blue", "red", "green", "olive", "yellow", "pink",
    "beige", "brown", "orange", "purple", "cream", "khaki", "burgundy", "teal",
)  # fmt: skip

# Words shoppers use, keyed by the word a catalog enum most likely carries.
CATEGORY_WORDS: dict[str, tuple[str, ...]] = {
    "t-shirt": (
        "t-shirt", "t-shirts", "tshirt", "tshirts", "tee", "tees", "t shirt", "t shirts",
        "top", "tops", "tank", "tanks", "tank top", "tank tops", "vest top", "vest tops",
        "singlet", "singlets", "polo", "polos", "polo shirt", "polo shirts", "henley", "henleys",
    ),
    "shirt": (
        "shirt", "shirts", "blouse", "blouses", "button-down", "button-downs", "button down",
        "button downs", "button-up", "button-ups", "button up", "button ups", "oxford",
        "oxfords", "overshirt", "overshirts", "dress shirt", "dress shirts", "shacket",
    ),
    "knitwear": (
        "knitwear", "knit", "knits", "jumper", "jumpers", "sweater", "sweaters", "cardigan",
        "cardigans", "cardi", "cardis", "cardie", "cardies", "cardy", "sweatshirt", "sweatshirts", "pullover", "pullovers", "knitted", "roll-neck",
        "roll-necks", "roll neck", "roll necks", "rollneck", "turtleneck", "turtlenecks",
        "turtle neck", "polo neck", "polo necks", "polo-neck", "polo-necks", "crewneck",
    ),
    "jeans": ("jeans", "denims", "skinnies", "jeggings"),
    "trousers": (
        "trousers", "trouser", "pants", "chinos", "chino", "slacks", "khakis", "joggers",
        "jogger", "sweatpants", "trackpants", "track pants", "tracksuit bottoms", "cargos",
        "cords",
    ),
    "dress": (
        "dress", "dresses", "gown", "gowns", "frock", "frocks", "sundress", "sundresses",
        "ballgown", "ballgowns",
    ),
    "skirt": ("skirt", "skirts", "miniskirt", "miniskirts"),
    "jacket": (
        "jacket", "jackets", "coat", "coats", "blazer", "blazers", "parka", "parkas",
        "raincoat", "raincoats", "anorak", "anoraks", "overcoat", "overcoats", "windbreaker",
        "windbreakers", "windcheater", "windcheaters", "mac", "macs", "mackintosh", "trench",
        "trenches", "puffer", "puffers", "bomber", "bombers", "sport coat", "sports coat",
        "sport coats", "sports jacket", "peacoat", "peacoats", "pea coat", "outerwear",
        "puffa", "puffas", "gilet", "gilets", "body warmer", "bodywarmer",
    ),
    "sneaker": (
        "sneaker", "sneakers", "trainer", "trainers", "running shoes", "running shoe",
        "kicks", "sneaks", "tennis shoes", "gym shoes", "plimsoll", "plimsolls", "runners",
        "athletic shoes", "high-tops", "low-tops",
    ),
    "boot": ("boot", "boots", "wellies", "welly", "wellington", "wellingtons", "booties"),
    "sandal": (
        "sandal", "sandals", "flip-flops", "flip flops", "flip-flop", "flipflops", "sliders",
        "slides", "espadrille", "espadrilles",
    ),
    "shorts": ("shorts", "cut-offs", "bermudas", "board shorts"),
    "hoodie": ("hoodie", "hoodies", "hoody", "zip-up", "zip-ups", "sweatshirt", "sweatshirts"),
    "shoe": (
        "shoe", "shoes", "loafers", "loafer", "brogues", "brogue", "heels", "flats", "mules",
        "court shoes", "derbies", "oxford shoes", "boat shoes", "moccasins",
    ),
    "suit": ("suit", "suits", "tuxedo", "tuxedos", "tux", "two-piece", "three-piece"),
    "jumpsuit": ("jumpsuit", "jumpsuits", "playsuit", "playsuits", "romper", "rompers", "overalls", "dungarees"),
    "swimwear": (
        "swimwear", "swimsuit", "swimsuits", "swimming costume", "bikini", "bikinis",
        "trunks", "swim shorts", "bathing suit",
    ),
    "bag": ("bag", "bags", "handbag", "handbags", "purse", "purses", "tote", "totes", "backpack", "backpacks", "rucksack"),
    "hat": ("hat", "hats", "caps", "beanie", "beanies", "bobble hat", "baseball cap"),
    "scarf": ("scarf", "scarves", "scarfs", "shawl", "shawls"),
    "sock": ("sock", "socks"),
    "belt": ("belt", "belts"),
}  # fmt: skip
# Fabric words shoppers use, keyed by the base form a catalog's `material` enum carries.
# "jean" is the fabric in "a jean jacket"; "cords" are corduroy trousers.
MATERIAL_WORDS: dict[str, tuple[str, ...]] = {
    "linen": ("linen", "linens"), "cotton": ("cotton", "cottons"),
    "wool": ("wool", "wools", "woollen", "woolen", "woolly", "wooly", "lambswool"),
    "merino": ("merino",), "cashmere": ("cashmere",), "mohair": ("mohair",),
    "alpaca": ("alpaca",), "silk": ("silk", "silky", "silks"), "satin": ("satin", "satiny"),
    "velvet": ("velvet", "velvety"), "denim": ("denim", "jean"), "chambray": ("chambray",),
    "corduroy": ("corduroy", "cord", "cords"), "flannel": ("flannel",), "fleece": ("fleece",),
    "leather": ("leather", "leathers"), "suede": ("suede",), "canvas": ("canvas",),
    "jersey": ("jersey",), "poplin": ("poplin",), "seersucker": ("seersucker",),
    "tweed": ("tweed",), "nylon": ("nylon",), "polyester": ("polyester",),
    "rubber": ("rubber",), "hemp": ("hemp",), "bamboo": ("bamboo",),
    "viscose": ("viscose", "rayon"), "modal": ("modal",), "lyocell": ("lyocell", "tencel"),
    "acrylic": ("acrylic",), "down": ("down-filled", "goose down", "duck down"),
}  # fmt: skip
# A fabric that alone names a garment: "denim jeans" asks for no more than jeans.
MATERIAL_GARMENTS: dict[str, str] = {"denim": "jeans"}
COLOUR_WORDS: dict[str, tuple[str, ...]] = {
    "black": ("black", "jet black", "ebony"),
    "white": ("white", "snow white", "optic white", "bright white"),
    "grey": ("grey", "gray", "charcoal", "silver", "slate", "ash", "heather grey", "greys", "grays"),
    "navy": ("navy", "navy blue", "dark blue", "midnight blue", "midnight", "indigo"),
    "blue": (
        "blue", "light blue", "sky blue", "baby blue", "royal blue", "cobalt", "powder blue",
        "pale blue", "denim blue", "blues",
    ),
    "beige": (
        "beige", "cream", "off-white", "off white", "sand", "camel", "tan", "ivory", "stone",
        "ecru", "oatmeal", "taupe", "nude", "natural",
    ),
    "red": ("red", "burgundy", "maroon", "wine", "scarlet", "crimson", "cherry", "oxblood", "reds"),
    "green": (
        "green", "forest green", "bottle green", "emerald", "mint", "sage", "dark green",
        "greens",
    ),
    "olive": ("olive", "khaki", "olive green", "army green", "military green"),
    "yellow": ("yellow", "mustard", "lemon", "canary", "ochre", "yellows"),
    "pink": ("pink", "blush", "rose", "fuchsia", "hot pink", "salmon", "pinks"),
    "brown": ("brown", "chocolate", "chestnut", "cognac", "mocha", "coffee", "browns"),
    "purple": ("purple", "lilac", "lavender", "violet", "plum", "mauve", "aubergine"),
    "orange": ("orange", "rust", "burnt orange", "terracotta", "tangerine", "coral"),
}  # fmt: skip
FOOTWEAR_HINTS = ("sneaker", "boot", "sandal", "shoe", "trainer", "loafer", "heel", "footwear")


@dataclass
class Vocabulary:
    categories: list[str] = field(default_factory=list)
    colours: list[str] = field(default_factory=list)
    sizes: list[str] = field(default_factory=list)
    brands: list[str] = field(default_factory=list)
    materials: list[str] = field(default_factory=list)
    # Phrase (lower case) -> enum value, longest phrases matched first.
    category_phrases: dict[str, str] = field(default_factory=dict)
    colour_phrases: dict[str, str] = field(default_factory=dict)
    material_phrases: dict[str, str] = field(default_factory=dict)
    # Fabrics of general language this catalog names nowhere: said plainly, never searched.
    absent_material_phrases: dict[str, str] = field(default_factory=dict)
    # Euros for one unit of another currency, as the price filter's description gives them:
    # a budget in pounds is converted only at a rate the shop states.
    rates: dict[str, float] = field(default_factory=dict)

    def garment_of(self, material: str | None) -> str | None:
        """The category a material alone names in this catalog ("denim" -> "jeans")."""
        usual = MATERIAL_GARMENTS.get((material or "").lower())
        return self.category_phrases.get(usual) if usual else None

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
        materials=_enum_of(properties.get("material")),
        rates=_rates_of(properties.get("max_price")),
    )
    _phrases_build(vocabulary)
    return vocabulary


_RATE = re.compile(r"\b1 ([A-Z]{3}) = (\d+(?:\.\d+)?) EUR\b")


def _rates_of(schema: dict | None) -> dict[str, float]:
    """The rates the price filter's description states ("1 GBP = 1.17 EUR")."""
    description = (schema or {}).get("description") if isinstance(schema, dict) else None
    if not isinstance(description, str):
        return {}
    return {code: float(rate) for code, rate in _RATE.findall(description) if float(rate) > 0}


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
    for material in vocabulary.materials:
        for phrase in MATERIAL_WORDS.get(material.lower(), ()):
            vocabulary.material_phrases.setdefault(phrase, material)
    for material in vocabulary.materials:
        vocabulary.material_phrases[material.lower()] = material
    if vocabulary.materials:  # a schema without materials tells nothing of what is absent
        offered = {material.lower() for material in vocabulary.materials}
        for material, phrases in MATERIAL_WORDS.items():
            if material not in offered:
                for phrase in phrases:
                    if phrase not in vocabulary.material_phrases:
                        vocabulary.absent_material_phrases[phrase] = material


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


# Words of asking, not of what is asked for: never a search word. General language only; a
# word the catalog might hold ("warm", "waterproof", "slim") is never one of them.
PLAIN_WORDS = frozenset(
    """
    a about actually after again all also am an and another any anything are around as at
    available back be been best bit both but buy by can cheap cheaper cheapest could
    colour colours color colors compare cost costs dear did do does doing don't else euro
    euros even ever expensive few fine find for from get give go going good got great have
    having hello help here hey hi how i i'd i'll i'm i've if in instead is it it's its just
    kind know like looking lot love lovely many matter maybe me mind more most much my need
    new nice no not now of off ok okay on one ones only or other others our out over pair
    pairs perhaps please price priced pricey pricier prices quite rather really recommend
    recommendations search searching see sell selling sells shop shopping should show size
    sized sizes so some something sort stock stocked suggest sure tell than thank thanks
    that that's the their them then there these they thing things this those to too try
    under up us very want wanted was way we wear wearing were what what's when where which
    while who why will with without would yes you you've your yours
    cool cute pretty stylish first second third fourth fifth last next
    waist inch inches uk us eu shoe shoes length leg
    similar alike same style styles type types vibe look looks alternative alternatives
    option options item items idea ideas pick picks result results suggestion suggestions
    below beneath less lower within max maximum minimum budget spend spending between
    cents range
    brand brands label labels make makes come comes came day days job time times
    anymore longer though either still yet today tonight already
    everything whatever stuff everyone anyway lol haha tbh btw pls thx ugh hmm
    """.split()
) | {word for words in CURRENCY_WORDS.values() for word in words if word.isalpha()}
# The words of letter sizes ("extra large", "medium"): the size reader's, never a search's.
_SIZE_TOKENS = frozenset(
    token for phrase in LETTER_SIZE_WORDS for token in re.findall(r"[a-z0-9]+", phrase)
)


# "Morning! need a linen shirt", "evening all, ...": a greeting before the message says
# nothing of what is wanted ("an evening dress" keeps its word: no mark follows it).
GREETING_LEAD = re.compile(
    r"^\s*(?:good\s+)?(?:morning|afternoon|evening|hi|hello|hey|hiya)(?:\s+(?:all|there))?"
    r"\s*[!,.]+\s*"
    # "Right. how about midi?": a word said before turning to what is in view.
    r"|^\s*\w+[!,.]+\s+(?=(?:what|how) about\b)"
)


# Chat shorthand, read as the words it stands for: "do u sell swimwear", "jeans w/o rips".
_SHORTHAND = {
    "u": "you", "ya": "you", "ur": "your", "pls": "please", "plz": "please", "thx": "thanks",
    "ty": "thank you", "wanna": "want to", "gonna": "going to", "gimme": "give me",
    "w/o": "without", "w/": "with", "b/c": "because", "cuz": "because",
}  # fmt: skip
_SHORTHAND_WORD = re.compile(
    r"(?<![\w/])("
    + "|".join(map(re.escape, sorted(_SHORTHAND, key=len, reverse=True)))
    + r")(?![\w/])",
    re.I,
)


def shorthand_spelt(text: str) -> str:
    return _SHORTHAND_WORD.sub(lambda match: _SHORTHAND[match.group(1).lower()], text)


def is_content_word(token: str) -> bool:
    # Hyphenated words are the catalog's too: "a-line", "slip-on", "wide-leg"; but "X-free"
    # asks for no X, which no product says of itself.
    return (
        len(token) > 2
        and token.replace("-", "").isalpha()
        and not token.endswith("-free")
        and token not in PLAIN_WORDS
        and token not in _SIZE_TOKENS
        and token not in LETTER_SIZE_WORDS
    )


# Garment words that name a kind within a category, not the category itself: "a puffer" is
# a jacket, and a puffer is what the shopper wants, so the word is searched for as well.
# General language; a word the catalog never uses just finds nothing and is let go.
STYLE_WORDS: dict[str, str] = {
    "blazer": "blazer", "blazers": "blazer", "parka": "parka", "parkas": "parka",
    "trench": "trench", "trenches": "trench", "bomber": "bomber", "bombers": "bomber",
    "puffer": "puffer", "puffers": "puffer", "puffa": "puffer", "raincoat": "rain",
    "raincoats": "rain", "anorak": "anorak", "overcoat": "overcoat", "overcoats": "overcoat",
    "peacoat": "peacoat", "windbreaker": "windbreaker", "gilet": "gilet", "gilets": "gilet",
    "cardigan": "cardigan", "cardigans": "cardigan", "cardi": "cardigan",
    "cardie": "cardigan", "roll-neck": "roll-neck", "rollneck": "roll-neck",
    "turtleneck": "roll-neck", "polo neck": "roll-neck", "overshirt": "overshirt",
    "overshirts": "overshirt", "blouse": "blouse", "blouses": "blouse", "oxford": "oxford",
    "chinos": "chino", "chino": "chino", "joggers": "jogger", "cargos": "cargo",
    "sundress": "sundress", "miniskirt": "mini", "wellies": "rain", "wellingtons": "rain",
    "espadrille": "espadrille", "espadrilles": "espadrille", "slides": "slide",
    "sliders": "slide", "high-tops": "high-top", "low-tops": "low-top", "henley": "henley",
    "henleys": "henley", "polo": "polo", "polos": "polo",
}  # fmt: skip
