"""Catalog reads: the only source of prices, SKUs and sizes for pages and the assistant."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from decimal import Decimal
from functools import lru_cache

from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.db.models import Q, QuerySet
from django.db.models.expressions import RawSQL

from shop import meaning
from shop.models import ALL_SIZES, Category, Colour, DemoShopper, Product, Variant
from shop.search import WordMatches, matching_ids_sql, query_terms, words_match

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
    # The free words no product of the results has ("quilted" among boots, "swimwear").
    unmatched_words: list[str] = field(default_factory=list)
    # When the words found nothing: what the other filters alone find, to offer as such.
    alternatives: list[ProductHit] = field(default_factory=list)


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


# Below SQLite's oldest limit on a statement's parameters (999); past it the words' matches
# are intersected with the filters' rows here instead.
_IDS_IN_QUERY = 900


@dataclass(frozen=True)
class CatalogSearch:
    """Products ranked for a search, and what its free words found."""

    ids: list[int]  # the products' ids, best first
    words: WordMatches
    unmatched_words: list[str]


def _filters_covered(filters: CatalogFilters) -> list[str]:
    """Words a structured filter already says, so they are not searched as free words too."""
    return [
        value
        for value in (filters.category, filters.colour, filters.brand, filters.material)
        if value
    ]


def catalog_search(filters: CatalogFilters, *, meaning_of: str = "") -> CatalogSearch:
    """Active products with an in-stock variant matching every filter, best match first.

    Structured filters are hard. A material keeps the products whose name or description
    names it (MATERIAL_WORDS). Free words are read by `shop.search`: a word naming a
    category narrows to it; of the others, the results are the products matching the most
    of them (all, when a product has every one), the more relevant first (words and meaning
    fused), then cheaper first. Words no active product has find nothing when they are
    all there is. `unmatched_words` are the free words no returned product has, so an
    answer can say what there is none of.
    `meaning_of` orders by other words than the query's (what alternatives stand in for).
    Call `in_stock_attach` on the products actually shown: ranking loads no variants.
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

    words = words_match(
        query_terms(filters.query, covered=_filters_covered(filters)),
        categories=[] if filters.category else [c.value for c in Category],
    )
    if words.categories:
        products = products.filter(category__in=sorted(words.categories))
    if not words.filters and words.foreign_words:
        # Only words no product has: the shop has none of it (the caller may offer what
        # the other filters find, as alternatives).
        return CatalogSearch(ids=[], words=words, unmatched_words=words.foreign_words)
    fabric = _MATERIAL_PATTERNS.get(filters.material.lower()) if filters.material else None
    # Ids and sort keys only: a search at 10k products must not load 10k rows.
    columns = ("id", "price", "name", "description") if fabric else ("id", "price", "name")
    if words.filters and len(words.scores) <= _IDS_IN_QUERY:
        products = products.filter(id__in=list(words.scores))
    elif words.filters and (subquery := matching_ids_sql(words.catalog_words)) is not None:
        products = products.filter(id__in=RawSQL(*subquery))
    rows = products.values_list(*columns)
    if words.filters:
        rows = [row for row in rows if row[0] in words.scores]
    if fabric is not None:
        rows = [row for row in rows if fabric.search(f"{row[2]} {row[3]}")]
    if words.filters and rows:
        # What matches the most of what was asked: "a waxed jacket for the rain" is the
        # waxed one, not every jacket that mentions rain; when no product has every word,
        # those with the most of them.
        most = max(words.scores[row[0]][0] for row in rows)
        rows = [row for row in rows if words.scores[row[0]][0] == most]
    rows = _ranked(rows, words, filters.category, meaning_of)
    ids = [row[0] for row in rows]
    kept = set(ids)
    found = {word for word in words.catalog_words if not kept.isdisjoint(words.hits[word])}
    unmatched = [w for w in words.words if w not in found and w not in words.category_words]
    return CatalogSearch(ids=ids, words=words, unmatched_words=unmatched)


# Reciprocal-rank fusion's damping: with a few dozen candidates, a small constant lets the
# first places of either ranking count.
_FUSION_DAMPING = 10


# Meaning re-ranks the best of the words' order only: a page shows a few products, and
# fusing every match of a broad word at 10k products cost more than the search.
_FUSED_AT_MOST = 200


def _ranked(rows: list[tuple], words: WordMatches, category: str | None, meaning_of: str):
    """A search's rows in order: products matching more of the catalog words first; among
    equals, the more relevant, then cheaper. The first rows are then ranked again by the
    words' relevance fused with the products' closeness in meaning to the words (reciprocal
    ranks); with no catalog word among the words ("comfy jeans"), meaning alone orders
    them; with no words, price does."""
    no_score = (0, 0.0)

    def by_words(row: tuple) -> tuple:
        count, relevance = words.scores.get(row[0], no_score)
        return (-count, -relevance, row[1], row[2])

    rows = sorted(rows, key=by_words)
    said = meaning_of or " ".join(words.words)
    head = rows[:_FUSED_AT_MOST]
    close = meaning.similarities(
        f"{said} {category}" if said and category else said, [r[0] for r in head]
    )
    if not close:
        return rows
    fused = dict.fromkeys((row[0] for row in head), 0.0)
    relevance = {row[0]: words.scores[row[0]][1] for row in head if row[0] in words.scores}
    for scores in (relevance, close):
        # Equal scores share a place, so ties still fall to the price.
        places = {value: place for place, value in enumerate(sorted(set(scores.values()))[::-1])}
        for pid, value in scores.items():
            fused[pid] += 1.0 / (_FUSION_DAMPING + places[value])
    head.sort(
        key=lambda row: (-words.scores.get(row[0], no_score)[0], -fused[row[0]], row[1], row[2])
    )
    return head + rows[_FUSED_AT_MOST:]


def products_load(ids: Sequence[int]) -> list[Product]:
    """The active products of `ids`, in that order, with what a result shows."""
    fields_shown = ("id", "sku", "name", "slug", "category", "brand", "description", "colour")
    by_id = Product.objects.active().only(*fields_shown, "price").in_bulk(list(ids))
    return [by_id[pid] for pid in ids if pid in by_id]


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
    """Search the catalog for the assistant: one page of in-stock, active products.

    When free words leave nothing within a category or brand asked for ("quilted boots"),
    that category's or brand's products come back as `alternatives` (first page only), so
    an answer can say there is none of what was asked and offer what there is, labelled as
    such. Without one ("swimwear", a colour left out) there is nothing to offer instead.
    """
    limit = max(1, min(int(limit), 50))
    offset = max(0, int(offset))
    found = catalog_search(filters)
    products = products_load(found.ids[offset : offset + limit])
    alternatives: list[ProductHit] = []
    if (
        not found.ids
        and found.words.catalog_words + found.words.foreign_words
        and offset == 0
        and (filters.category or filters.brand or found.words.categories)
    ):
        # What the filters and the words' categories find without the other words.
        rest = " ".join(found.words.category_words)
        # Ordered by closeness to all the words: "comfy jeans" offers the relaxed ones first.
        nearest = catalog_search(
            replace(filters, query=rest), meaning_of=" ".join(found.words.words)
        )
        others = products_load(nearest.ids[:limit])
        alternatives = _hits(others, filters)
    return ProductPage(
        hits=_hits(products, filters),
        total=len(found.ids),
        offset=offset,
        unmatched_words=found.unmatched_words,
        alternatives=alternatives,
    )


def _hits(products: Sequence[Product], filters: CatalogFilters) -> list[ProductHit]:
    in_stock_attach(products, colour=filters.colour, exclude_colours=filters.exclude_colours)
    return [
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


@lru_cache(maxsize=4)
def _materials_named(texts: tuple[str, ...]) -> frozenset[str]:
    # Read again only when a product's text changed: every product against every material
    # pattern, every turn, was a tenth of the shop's CPU a turn under load.
    return frozenset(material for text in texts for material in materials_of(text))


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
    named = _materials_named(tuple(texts))
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
