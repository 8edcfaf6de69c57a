from __future__ import annotations

import pytest

from shop.models import Product

pytestmark = pytest.mark.django_db


def test_catalog_lists_products_with_pagination(client):
    response = client.get("/")
    assert response.status_code == 200
    page = response.context["page"]
    assert len(page.object_list) == 24 and page.paginator.num_pages > 1
    second = client.get("/?page=2")
    assert second.context["page"].number == 2
    assert set(second.context["page"].object_list).isdisjoint(page.object_list)


def test_catalog_filters(client):
    response = client.get(
        "/", {"category": "boots", "colour": "black", "size": "42", "max_price": "300"}
    )
    products = list(response.context["page"].object_list)
    assert products
    for product in products:
        assert product.category == "boots" and product.price <= 300
        assert product.variants.filter(colour="black", size="42", stock__gt=0).exists()


def test_catalog_text_search(client):
    response = client.get("/", {"q": "linen"})
    names = [p.name for p in response.context["page"].object_list]
    assert names and all(
        "linen" in (p.name + p.description).lower() for p in response.context["page"].object_list
    )


def test_withdrawn_products_are_not_listed(client):
    withdrawn = Product.objects.filter(active=False).first()
    response = client.get("/", {"q": withdrawn.name})
    assert withdrawn not in response.context["page"].object_list


def test_bad_filter_is_ignored_with_a_message(client):
    response = client.get("/", {"max_price": "cheap"})
    assert response.status_code == 200
    assert b"not valid" in response.content


def test_product_page_shows_variants_and_stock(client):
    product = Product.objects.filter(active=True, variants__stock=0).distinct().first()
    response = client.get(product.get_absolute_url())
    assert response.status_code == 200
    body = response.content.decode()
    assert product.name in body and "Out of stock" in body
    assert product.variants.first().sku in body


def test_unknown_and_withdrawn_products_are_404(client):
    assert client.get("/products/no-such-product/").status_code == 404
    withdrawn = Product.objects.filter(active=False).first()
    assert client.get(f"/products/{withdrawn.slug}/").status_code == 404


def test_base_template_has_launcher_and_sign_in(client):
    body = client.get("/").content.decode()
    assert 'id="chat-launcher"' in body and "Sign in" in body


def test_catalog_cards_list_each_size_in_stock_once(client):
    response = client.get("/", {"category": "t-shirts"})
    for product in response.context["page"]:
        sizes = product.sizes_in_stock
        assert sizes and len(sizes) == len(set(sizes))
        assert all(product.variants.filter(size=s, stock__gt=0).exists() for s in sizes)


def test_the_app_itself_serves_the_panel_script_and_styles(client):
    # daphne has no static file handler of its own: without this the panel never loads.
    for path in ("/static/js/chat/main.js", "/static/css/site.css", "/static/css/chat.css"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert b"".join(response.streaming_content)


def test_the_panel_offers_the_retention_presets_staff_chose(client):
    from assistant.models import DemoSettings

    DemoSettings.objects.update_or_create(
        pk=1, defaults={"default_retention": "5m", "presets_offered": ["5m", "1h"]}
    )
    body = client.get("/").content.decode()
    assert 'data-default="5m"' in body
    assert '<option value="5m" selected>5 minutes</option>' in body
    assert '<option value="1h">1 hour</option>' in body
    assert 'value="never"' not in body


def test_with_memory_switched_off_the_panel_never_promises_to_remember(client):
    from assistant.models import DemoSettings

    DemoSettings.objects.update_or_create(pk=1, defaults={"memory_enabled": False})
    client.post("/signin/", {"username": "ann"})
    body = client.get("/").content.decode()
    assert 'data-signed-in="true"' in body
    assert "Remembering you as" not in body
    assert "Memory is switched off — this chat is not remembered" in body
    assert 'data-memory-enabled="false"' in body


@pytest.mark.parametrize(
    "max_price", ["9" * 400, "9" * 4000, "1e400", "NaN", "-1", "1000001"], ids=lambda v: v[:10]
)
def test_a_price_filter_no_price_can_be_is_ignored_with_a_message(client, max_price):
    everything = client.get("/").context["page"].paginator.count
    response = client.get("/", {"max_price": max_price})
    assert response.status_code == 200
    assert b"Some filters were not valid and were ignored." in response.content
    assert response.context["page"].paginator.count == everything
    assert (
        response.context["form"].errors["max_price"]
        == ["Max price must be a number from 0 to 1,000,000 EUR."]
        or max_price == "NaN"
    )


def test_a_price_filter_of_up_to_a_million_filters(client):
    response = client.get("/", {"max_price": "1000000"})
    assert response.status_code == 200 and b"not valid" not in response.content
