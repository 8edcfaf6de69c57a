from __future__ import annotations

import pytest

from shop.models import Product, Variant
from shop.selectors import (
    CatalogFilters,
    catalog_vocabulary,
    materials_of,
    product_blurb,
    product_get,
    products_get,
    products_page,
)

pytestmark = pytest.mark.django_db


def search(*, limit: int = 10, **filters):
    """The first page of a search, as the assistant's tool asks for it."""
    return products_page(filters=CatalogFilters(**filters), limit=limit).hits


def test_category_filter_returns_only_that_category():
    hits = search(category="jeans", limit=50)
    assert hits
    assert {h.category for h in hits} == {"jeans"}


def test_colour_filter_keeps_products_with_that_colour_in_stock():
    hits = search(colour="black", limit=50)
    assert hits
    for hit in hits:
        assert hit.colours == ["black"]
        assert Variant.objects.filter(product__sku=hit.sku, colour="black", stock__gt=0).exists()


def test_excluded_colours_never_appear_and_products_only_in_them_drop_out():
    everything = search(category="t-shirts", limit=50)
    hits = search(category="t-shirts", exclude_colours=["yellow"], limit=50)
    assert all("yellow" not in h.colours for h in hits)
    only_yellow = [h.sku for h in everything if h.colours == ["yellow"]]
    assert not {h.sku for h in hits} & set(only_yellow)


def test_size_filter_means_that_size_in_stock():
    hits = search(size="M", limit=50)
    assert hits
    for hit in hits:
        assert "M" in hit.sizes_in_stock
        assert Variant.objects.filter(product__sku=hit.sku, size="M", stock__gt=0).exists()
    sold_out_in_m = {
        p.sku
        for p in Product.objects.filter(active=True, variants__size="M").distinct()
        if not p.variants.filter(size="M", stock__gt=0).exists()
    }
    assert sold_out_in_m, "the fixture should have products sold out in M"
    assert not sold_out_in_m & {h.sku for h in hits}


def test_out_of_stock_sizes_are_never_reported():
    for hit in search(limit=50):
        for size in hit.sizes_in_stock:
            assert Variant.objects.filter(product__sku=hit.sku, size=size, stock__gt=0).exists()


def test_max_price_and_brand():
    hits = search(max_price=40, limit=50)
    assert hits and all(h.price_eur <= 40 for h in hits)
    brand_hits = search(brand="kestrel", limit=50)
    assert brand_hits and {h.brand for h in brand_hits} == {"Kestrel"}


def test_filters_combine():
    hits = search(category="t-shirts", size="M", exclude_colours=["yellow"], max_price=60, limit=50)
    assert hits
    for hit in hits:
        assert hit.category == "t-shirts" and hit.price_eur <= 60
        assert "M" in hit.sizes_in_stock and "yellow" not in hit.colours


def test_query_words_rank_best_match_first():
    hits = search(query="waterproof hiking boots", limit=5)
    assert hits
    assert hits[0].category == "boots"
    assert search(query="zzzz-no-such-thing") == []


def test_withdrawn_products_never_come_back():
    withdrawn = Product.objects.filter(active=False).first()
    assert withdrawn is not None
    assert withdrawn.sku not in {h.sku for h in search(limit=50, query=withdrawn.name)}
    assert product_get(sku=withdrawn.sku) is None
    assert product_get(sku=withdrawn.variants.first().sku) is None


def test_product_get_by_style_or_variant_sku_lists_only_in_stock_variants():
    product = Product.objects.filter(active=True, variants__stock=0).distinct().first()
    detail = product_get(sku=product.sku.lower())
    assert detail is not None and detail.name == product.name
    assert all(v.stock > 0 for v in detail.variants)
    assert len(detail.variants) < product.variants.count()
    variant = product.variants.filter(stock__gt=0).first()
    assert product_get(sku=variant.sku).sku == product.sku
    assert product_get(sku="NOPE-0000") is None
    assert product_get(sku="") is None


def test_results_carry_links_to_product_pages(client):
    hit = search(category="dresses", limit=1)[0]
    assert client.get(hit.url).status_code == 200


def test_limit_is_respected_and_vocabulary_lists_brands():
    assert len(search(limit=3)) == 3
    vocabulary = catalog_vocabulary()
    assert "Kestrel" in vocabulary["brands"]
    assert "jeans" in vocabulary["categories"] and "M" in vocabulary["sizes"]


def test_a_page_of_results_knows_how_many_matched_in_all():
    everything = search(category="t-shirts", limit=50)
    first = products_page(filters=CatalogFilters(category="t-shirts"), limit=4)
    second = products_page(filters=CatalogFilters(category="t-shirts"), offset=4, limit=4)
    assert first.total == second.total == len(everything)
    assert [h.sku for h in first.hits + second.hits] == [h.sku for h in everything[:8]]
    assert products_page(filters=CatalogFilters(category="t-shirts"), offset=first.total).hits == []


def test_excluded_categories_drop_out_of_the_search():
    hits = products_page(
        filters=CatalogFilters(query="wedding", exclude_categories=["dresses"]), limit=50
    ).hits
    assert hits and all(h.category != "dresses" for h in hits)


def test_a_blurb_says_what_the_card_does_not():
    assert (
        product_blurb(
            description="Crew Tee by Vela, in black. Light enough for the beach. Runs true to size.",
            brand="Vela",
        )
        == "Light enough for the beach. Runs true to size."
    )
    hit = search(category="boots", limit=1)[0]
    assert hit.blurb and hit.brand not in hit.blurb


def test_products_get_reads_many_skus_in_two_queries(django_assert_num_queries):
    with django_assert_num_queries(2):
        found = products_get(skus=["jn-0043", "JN-0043-BLK-M", "NOPE-1", "KN-0029", "TS-0001"])
    assert set(found) == {"JN-0043", "JN-0043-BLK-M", "TS-0001"}  # KN-0029 is withdrawn
    assert found["JN-0043"] == found["JN-0043-BLK-M"] == product_get(sku="JN-0043")
    assert products_get(skus=[" ", ""]) == {}


def test_a_material_keeps_the_products_made_of_it():
    linen = products_page(
        filters=CatalogFilters(category="shirts", material="linen"), limit=50
    ).hits
    assert [h.name for h in linen] == ["Atelier Mira Linen Shirt"]
    wool = products_page(filters=CatalogFilters(material="wool"), limit=50).hits
    assert {"Northwind Wool Suit Trousers", "Vela Merino Crew Jumper"} <= {h.name for h in wool}
    assert "Kestrel Flannel Overshirt" not in {h.name for h in wool}
    assert products_page(filters=CatalogFilters(category="boots", material="linen")).hits == []


def test_the_vocabulary_offers_only_materials_the_active_catalog_names():
    materials = catalog_vocabulary()["materials"]
    assert {"linen", "wool", "denim", "leather", "cotton"} <= set(materials)
    assert "tweed" not in materials and "velvet" not in materials
    assert materials_of("Harbor Supply Knit Dress in black") == []
    assert materials_of("Lambswool Cardigan") == ["wool"]


def test_the_vocabulary_follows_a_product_whose_text_changed_since_it_was_last_read():
    assert "tweed" not in catalog_vocabulary()["materials"]
    product = Product.objects.active().first()
    product.description = f"{product.description} Woven in tweed."
    product.save()
    assert "tweed" in catalog_vocabulary()["materials"]
    product.active = False
    product.save()
    assert "tweed" not in catalog_vocabulary()["materials"]
