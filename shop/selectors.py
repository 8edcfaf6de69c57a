"""Catalog reads: the only source of prices, SKUs and sizes for pages and the assistant."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from decimal import Decimal

from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.db.models import Q, QuerySet

from shop.models import ALL_SIZES, Category, Colour, DemoShopper, Product, Variant

_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
# Words that say nothing about which product is meant.
_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "any",
        "are",
        "can",
        "for",
        "from",
        "have",
        "i",
        "im",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "please",
        "show",
        "some",
        "something",
        "that",
        "the",
        "them",
        "to",
        "want",
        "with",
        "you",
        "your",
        "looking",
        "need",
        "find",
    ]
)


# Fabric and material words, by the base form the assistant's `material` argument carries:
# a product is of a material when its name or description uses one of the words. General
# language, not any catalog's names: the catalog's own words decide which of these it offers.
# (The offline model keeps its own list of the words shoppers use for each: `llm` imports
# nothing of the shop, and learns which materials exist from the tool schema's enum.)
MATERIAL_WORDS: dict[str, tuple[str, ...]] = {
    "linen": ("linen",), "cotton": ("cotton",), "wool": ("wool", "woollen", "woolen", "lambswool", "merino"),
    "merino": ("merino",), "cashmere": ("cashmere",), "mohair": ("mohair",), "alpaca": ("alpaca",),
    "silk": ("silk",), "satin": ("satin",), "velvet": ("velvet",), "denim": ("denim",),
    "chambray": ("chambray",), "corduroy": ("corduroy",), "flannel": ("flannel",),
    "fleece": ("fleece",), "leather": ("leather",), "suede": ("suede",), "canvas": ("canvas",),
    "jersey": ("jersey",), "poplin": ("poplin",), "seersucker": ("seersucker",),
    "tweed": ("tweed",), "nylon": ("nylon",), "polyester": ("polyester",), "rubber": ("rubber",),
    "hemp": ("hemp",), "bamboo": ("bamboo",), "viscose": ("viscose", "rayon"), "modal": ("modal",),
    "lyocell": ("lyocell", "tencel"), "acrylic": ("acrylic",),
}  # fmt: skip
_MATERIAL_PATTERNS = {
    material: re.compile(r"\b(?:" + "|".join(map(re.escape, words)) + r")\b", re.I)
    for material, words in MATERIAL_WORDS.items()
}


def materials_of(text: str) -> list[str]:
    """The materials a product's name or description names, in MATERIAL_WORDS order."""
    return [material for material, pattern in _MATERIAL_PATTERNS.items() if pattern.search(text)]


@dataclass(frozen=True)
class ProductHit:
    sku: str
    name: str
    brand: str
    category: str
    price_eur: float
    colours: list[str]
    sizes_in_stock: list[str]
    url: str
    blurb: str

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ProductPage:
    """One page of search results and how many products matched in all."""

    hits: list[ProductHit]
    total: int
    offset: int


@dataclass(frozen=True)
class VariantInfo:
    sku: str
    colour: str
    size: str
    stock: int


@dataclass(frozen=True)
class ProductDetail:
    sku: str
    name: str
    brand: str
    category: str
    description: str
    price_eur: float
    colours: list[str]
    sizes_in_stock: list[str]
    url: str
    blurb: str
    variants: list[VariantInfo]

    def as_dict(self) -> dict:
        return asdict(self)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def product_blurb(*, description: str, brand: str) -> str:
    """One line on what sets a product apart, taken from its description.

    A description opens with the name, brand and colours ("Crew Tee by Vela, in black."),
    which a product card already shows; the sentences after it say what the product is for
    and how it fits.
    """
    sentences = [s.strip() for s in _SENTENCE_END.split(description.strip()) if s.strip()]
    telling = [s for s in sentences if brand.lower() not in s.lower()]
    return " ".join(telling)


def sizes_sorted(sizes: Iterable[str]) -> list[str]:
    order = {size: i for i, size in enumerate(ALL_SIZES)}
    return sorted(set(sizes), key=lambda s: order.get(s, len(order)))


def query_words(text: str) -> list[str]:
    """Lower-case content words of a free-text query, singular where a plural is obvious."""
    words = []
    for word in _WORD.findall(text.lower()):
        if word in _STOP_WORDS or len(word) < 2:
            continue
        words.append(word)
    return words


def _word_matches(word: str, haystack: str) -> bool:
    if word in haystack:
        return True
    # "shirts" should find "shirt"; "dresses" should find "dress".
    for suffix in ("es", "s"):
        if (
            word.endswith(suffix)
            and len(word) - len(suffix) >= 3
            and word[: -len(suffix)] in haystack
        ):
            return True
    return False


@dataclass(frozen=True)
class CatalogFilters:
    """What a catalog search may be narrowed by: the one list of the filters' names, read
    by the catalog page, the assistant's search tool and the search itself."""

    query: str = ""
    category: str | None = None
    exclude_categories: Sequence[str] = ()
    colour: str | None = None
    exclude_colours: Sequence[str] = ()
    size: str | None = None
    brand: str | None = None
    max_price: float | Decimal | None = None
    material: str | None = None


CATALOG_FILTER_NAMES = frozenset(field.name for field in fields(CatalogFilters))


def products_ranked(filters: CatalogFilters) -> list[Product]:
    """Active products with an in-stock variant matching every filter, best match first.

    A material keeps the products whose name or description names it (MATERIAL_WORDS).
    Query words rank rather than filter: a product must match at least one of them, and
    products matching more words come first, then cheaper ones. Call `in_stock_attach` on
    the products actually shown: ranking needs no variants, so none are loaded here.
    """
    colour = filters.colour.lower() if filters.colour else None
    size = filters.size.upper() if filters.size else None
    excluded = {c.lower() for c in filters.exclude_colours}
    matching = Q(stock__gt=0)
    if colour:
        matching &= Q(colour=colour)
    if excluded:
        matching &= ~Q(colour__in=excluded)
    if size:
        matching &= Q(size=size)

    products = Product.objects.active().filter(
        id__in=Variant.objects.filter(matching).values("product_id")
    )
    if filters.category:
        products = products.filter(category=filters.category.lower())
    if filters.exclude_categories:
        products = products.exclude(category__in=[c.lower() for c in filters.exclude_categories])
    if filters.brand:
        products = products.filter(brand__iexact=filters.brand)
    if filters.max_price is not None:
        products = products.filter(price__lte=Decimal(str(filters.max_price)))

    products = products.only(
        "id", "sku", "name", "slug", "category", "brand", "description", "colour", "price"
    )
    words = query_words(filters.query)
    fabric = _MATERIAL_PATTERNS.get(filters.material.lower()) if filters.material else None
    scored: list[tuple[int, Product]] = []
    for product in products:
        if fabric is not None and not fabric.search(f"{product.name} {product.description}"):
            continue
        score = 0
        if words:
            haystack = " ".join(
                [product.name, product.brand, product.category, product.description, product.colour]
            ).lower()
            score = sum(1 for word in words if _word_matches(word, haystack))
            if score == 0:
                continue
        scored.append((score, product))
    scored.sort(key=lambda pair: (-pair[0], pair[1].price, pair[1].name))
    return [product for _, product in scored]


def in_stock_attach(
    products: Sequence[Product], *, colour: str | None = None, exclude_colours: Sequence[str] = ()
) -> None:
    """Give each product `in_stock`: its in-stock variants that survive the colour filters."""
    shown = Q(stock__gt=0, product_id__in=[p.id for p in products])
    if colour:
        shown &= Q(colour=colour.lower())
    if exclude_colours:
        shown &= ~Q(colour__in={c.lower() for c in exclude_colours})
    by_product: dict[int, list[Variant]] = {p.id: [] for p in products}
    for variant in Variant.objects.filter(shown).only("product_id", "colour", "size", "stock"):
        by_product[variant.product_id].append(variant)
    for product in products:
        product.in_stock = by_product[product.id]


def products_page(*, filters: CatalogFilters, offset: int = 0, limit: int = 10) -> ProductPage:
    """Search the catalog for the assistant: one page of in-stock, active products."""
    limit = max(1, min(int(limit), 50))
    offset = max(0, int(offset))
    ranked = products_ranked(filters)
    products = ranked[offset : offset + limit]
    in_stock_attach(products, colour=filters.colour, exclude_colours=filters.exclude_colours)
    hits = [
        ProductHit(
            sku=product.sku,
            name=product.name,
            brand=product.brand,
            category=product.category,
            price_eur=float(product.price),
            colours=sorted({v.colour for v in product.in_stock}),
            sizes_in_stock=sizes_sorted(v.size for v in product.in_stock),
            url=product.get_absolute_url(),
            blurb=product_blurb(description=product.description, brand=product.brand),
        )
        for product in products
    ]
    return ProductPage(hits=hits, total=len(ranked), offset=offset)


def _product_detail(product: Product) -> ProductDetail:
    in_stock = [v for v in product.variants.all() if v.stock > 0]
    return ProductDetail(
        sku=product.sku,
        name=product.name,
        brand=product.brand,
        category=product.category,
        description=product.description,
        price_eur=float(product.price),
        colours=sorted({v.colour for v in in_stock}),
        sizes_in_stock=sizes_sorted(v.size for v in in_stock),
        url=product.get_absolute_url(),
        blurb=product_blurb(description=product.description, brand=product.brand),
        variants=[
            VariantInfo(sku=v.sku, colour=v.colour, size=v.size, stock=v.stock) for v in in_stock
        ],
    )


def product_get(*, sku: str) -> ProductDetail | None:
    """Look up an active product by its style SKU or one of its variant SKUs."""
    sku = (sku or "").strip().upper()
    if not sku:
        return None
    product = (
        Product.objects.active()
        .filter(Q(sku=sku) | Q(variants__sku=sku))
        .prefetch_related("variants")
        .distinct()
        .first()
    )
    return _product_detail(product) if product is not None else None


def products_get(*, skus: Iterable[str]) -> dict[str, ProductDetail]:
    """Look up several SKUs (style or variant) at once, keyed by the SKU in upper case.

    Two queries whatever the number of SKUs; a SKU without an active product is left out.
    """
    wanted = {sku.strip().upper() for sku in skus if sku and sku.strip()}
    if not wanted:
        return {}
    products = (
        Product.objects.active()
        .filter(Q(sku__in=wanted) | Q(variants__sku__in=wanted))
        .prefetch_related("variants")
        .distinct()
    )
    found: dict[str, ProductDetail] = {}
    for product in products:
        detail = _product_detail(product)
        for sku in {product.sku, *(v.sku for v in product.variants.all())} & wanted:
            found[sku] = detail
    return found


def catalog_vocabulary(
    *, brands: Iterable[str] | None = None, texts: Iterable[str] | None = None
) -> dict[str, list[str]]:
    """Enums the assistant's tool schemas carry, so a model can only ask for what exists.

    Brands are those of active products and materials those their names and descriptions
    name, unless given: code without a database passes the catalog fixture's brands and
    its products' "name description" texts.
    """
    if brands is None or texts is None:
        active = list(Product.objects.active().values_list("brand", "name", "description"))
        brands = [row[0] for row in active] if brands is None else brands
        texts = [f"{row[1]} {row[2]}" for row in active] if texts is None else texts
    named = {material for text in texts for material in materials_of(text)}
    return {
        "categories": [c.value for c in Category],
        "colours": [c.value for c in Colour],
        "sizes": list(ALL_SIZES),
        "brands": sorted(set(brands)),
        "materials": [material for material in MATERIAL_WORDS if material in named],
    }


def demo_shoppers_listed() -> QuerySet[DemoShopper]:
    """The shoppers the sign-in page offers: listed, and ones it would actually open."""
    return DemoShopper.objects.filter(
        listed=True,
        user__is_staff=False,
        user__is_superuser=False,
        user__privileged_account__isnull=True,
        user__password__startswith=UNUSABLE_PASSWORD_PREFIX,
    ).select_related("user")
