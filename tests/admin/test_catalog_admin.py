"""Catalog and demo-shopper admin: browsing, filters, search, the withdraw action."""

from __future__ import annotations

import pytest
from django.urls import reverse

from shop.models import Product

pytestmark = pytest.mark.django_db


def test_products_list_filters_and_searches(admin_client):
    url = reverse("admin:shop_product_changelist")
    page = admin_client.get(url).content.decode()
    assert "Atelier Mira Bootcut Jeans" in page and "Brightmoor Boxy Tee" in page
    for heading in ("By category", "By brand", "By main colour", "By active"):
        assert heading in page

    dresses = admin_client.get(url, {"category": "dresses"}).content.decode()
    assert "Loom &amp; Lane Wrap Midi Dress" in dresses
    assert "Atelier Mira Bootcut Jeans" not in dresses

    found = admin_client.get(url, {"q": "TS-0006"}).content.decode()
    assert "Kestrel Performance Running Tee" in found
    assert "Atelier Mira Bootcut Jeans" not in found


def test_a_product_page_shows_its_variants_inline(admin_client):
    product = Product.objects.get(sku="DR-0060")
    page = admin_client.get(reverse("admin:shop_product_change", args=[product.pk]))
    assert page.status_code == 200
    for variant in product.variants.all()[:3]:
        assert variant.sku in page.content.decode()


def test_withdrawing_products_hides_them_and_says_so(admin_client, client):
    products = list(Product.objects.filter(sku__in=["DR-0060", "DR-0070"]))
    response = admin_client.post(
        reverse("admin:shop_product_changelist"),
        {"action": "withdraw", "_selected_action": [p.pk for p in products]},
        follow=True,
    )
    assert "Withdrew 2 products: they are hidden from the shop and the assistant." in (
        response.content.decode()
    )
    assert not Product.objects.filter(sku__in=["DR-0060", "DR-0070"], active=True).exists()
    # The shopper-facing catalog no longer offers them.
    assert client.get(products[0].get_absolute_url()).status_code == 404


def test_demo_shoppers_list_links_to_their_memory(admin_client):
    page = admin_client.get(reverse("admin:shop_demoshopper_changelist")).content.decode()
    assert "Ann" in page and "Shopper memory" in page


@pytest.mark.parametrize(
    "name",
    [
        "admin:shop_product_changelist",
        "admin:shop_demoshopper_changelist",
        "admin:assistant_chatsession_changelist",
        "admin:assistant_demosettings_changelist",
    ],
)
def test_non_staff_are_sent_to_the_admin_login(shopper_client, name):
    url = reverse(name)
    response = shopper_client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
