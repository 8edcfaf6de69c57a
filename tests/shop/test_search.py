"""The catalog's words: what a shopper's free words find, on the page and in the chat alike."""

from __future__ import annotations

from decimal import Decimal

import pytest

from shop.models import Product
from shop.selectors import CatalogFilters, products_page

pytestmark = pytest.mark.django_db


def skus(**filters) -> list[str]:
    return [hit.sku for hit in products_page(filters=CatalogFilters(**filters), limit=50).hits]


def test_the_catalogs_own_style_words_find_their_products():
    assert skus(query="quilted", category="jackets") == ["JK-0085"]
    assert skus(query="chelsea boots") == ["BT-0106"]
    assert skus(query="seersucker") == ["SH-0026"]
    # Stemmed: "pleat" finds the pleated chinos, dress and skirt.
    assert set(skus(query="pleat")) == {"TR-0050", "DR-0069", "SK-0072"}


def test_the_products_matching_the_most_of_the_words_are_the_results():
    # The rubber rain boots say both words; the waterproof walking boots only one.
    assert skus(query="waterproof rain boots") == ["BT-0115"]
    assert skus(query="a waxed jacket for the rain") == ["JK-0081"]
    # No jacket is both quilted and a harrington: each of them is a result.
    assert set(skus(query="quilted harrington jacket")) == {"JK-0085", "JK-0092"}


def test_a_superlative_no_product_says_finds_the_products_that_say_its_base():
    warm = skus(query="warm", category="jackets")
    assert warm and skus(query="warmest", category="jackets") == warm
    dressy = skus(query="dressy", category="sandals")
    assert dressy and skus(query="dressier", category="sandals") == dressy
    # A noun ending in "-er" is no degree of anything: no product says it, none is found.
    page = products_page(filters=CatalogFilters(query="boxer"), limit=50)
    assert page.hits == [] and page.unmatched_words == ["boxer"]


def test_words_a_filter_already_says_are_not_searched_again():
    # "navy" and "boots" are the colour and category filters: every navy boot is a result.
    assert skus(query="navy boots", category="boots", colour="navy") == skus(
        category="boots", colour="navy"
    )


def test_a_word_no_product_has_finds_none_and_the_rest_is_offered_apart():
    page = products_page(filters=CatalogFilters(query="comfy", category="boots"), limit=50)
    assert page.hits == [] and page.unmatched_words == ["comfy"]
    assert [hit.sku for hit in page.alternatives] == skus(category="boots")
    # Beside a word the catalog has, it changes nothing.
    assert skus(query="comfy chelsea", category="boots") == ["BT-0106"]


def test_what_the_filters_rule_out_is_none_with_the_rest_offered_apart():
    page = products_page(filters=CatalogFilters(query="quilted", category="boots"), limit=4)
    assert page.hits == [] and page.total == 0
    assert page.unmatched_words == ["quilted"]
    assert page.alternatives and {hit.category for hit in page.alternatives} == {"boots"}


def test_something_the_shop_does_not_sell_finds_nothing_at_all():
    page = products_page(filters=CatalogFilters(query="swimwear"), limit=4)
    assert page.hits == [] and page.alternatives == []
    assert page.unmatched_words == ["swimwear"]
    # A colour left out (a remembered dislike) is no category to offer instead.
    page = products_page(filters=CatalogFilters(query="swimwear", exclude_colours=["yellow"]))
    assert page.hits == [] and page.alternatives == []


def test_the_index_follows_every_write_to_the_catalog():
    product = Product.objects.create(
        sku="XX-9001",
        name="Zanzibar Gilet",
        slug="zanzibar-gilet-xx-9001",
        category="jackets",
        brand="Vela",
        description="A gilet for brisk mornings.",
        colour="navy",
        price=Decimal("50.00"),
    )
    product.variants.create(sku="XX-9001-NAV-M", colour="navy", size="M", stock=3)
    assert skus(query="zanzibar") == ["XX-9001"]
    # A bulk update sends no signal: the index must follow it all the same.
    Product.objects.filter(pk=product.pk).update(name="Kilimanjaro Gilet")
    assert skus(query="zanzibar") == []
    assert skus(query="kilimanjaro") == ["XX-9001"]
    Product.objects.filter(pk=product.pk).delete()
    assert skus(query="kilimanjaro") == []


def test_a_withdrawn_product_is_never_found_by_its_words():
    Product.objects.filter(sku="JK-0085").update(active=False)
    assert skus(query="quilted", category="jackets") == []


def test_the_page_finds_what_the_words_say(client):
    page = client.get("/", {"q": "harrington"}).content.decode()
    assert "Vela Harrington Jacket" in page and "1 product" in page


def test_the_page_says_which_words_no_product_has(client):
    page = client.get("/", {"q": "swimwear"}).content.decode()
    assert "0 products" in page and "No product mentions “swimwear”" in page
