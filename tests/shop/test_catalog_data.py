from __future__ import annotations

import pytest
from django.core.management import call_command

from shop.models import CLOTHING_SIZES, SHOE_CATEGORIES, SHOE_SIZES, Product, Variant

pytestmark = pytest.mark.django_db


def test_fixture_is_a_realistic_catalog():
    products = Product.objects.all()
    assert products.count() >= 120
    assert products.values("category").distinct().count() >= 8
    assert products.values("brand").distinct().count() >= 12
    assert Variant.objects.values("colour").distinct().count() >= 10
    prices = [float(p.price) for p in products]
    assert min(prices) >= 15 and max(prices) <= 400
    assert Variant.objects.filter(stock=0).exists()
    assert products.filter(active=False).exists()
    for product in products.prefetch_related("variants"):
        sizes = {v.size for v in product.variants.all()}
        allowed = SHOE_SIZES if product.category in SHOE_CATEGORIES else CLOTHING_SIZES
        assert sizes <= set(allowed), product.sku


def test_seed_catalog_is_idempotent_and_its_reset_restores_the_seed(capsys):
    before = (Product.objects.count(), Variant.objects.count())
    product = Product.objects.get(sku="TS-0001")
    product.price = 999
    product.save()
    call_command("seed_catalog")
    assert (Product.objects.count(), Variant.objects.count()) == before
    assert float(Product.objects.get(sku="TS-0001").price) == 999  # an edit is kept
    call_command("seed_catalog", "--reset")
    assert (Product.objects.count(), Variant.objects.count()) == before
    assert float(Product.objects.get(sku="TS-0001").price) != 999
    assert "0 created" in capsys.readouterr().out


def test_seed_shoppers_is_idempotent():
    from shop.models import DemoShopper

    call_command("seed_shoppers", verbosity=0)
    call_command("seed_shoppers", verbosity=0)
    assert DemoShopper.objects.filter(listed=True).count() >= 4
