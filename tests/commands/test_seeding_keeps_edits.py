"""`make run` seeds on every start, and never undoes what staff changed since.

seed_catalog and seed_shoppers create what is missing and leave what exists as people
edited it; `--reset` is the one way back to the seed. The demo settings are never seeded
over either.
"""

from __future__ import annotations

from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command

from assistant.demo import demo_settings_get
from shop.models import DemoShopper, Product, Variant

pytestmark = pytest.mark.django_db


def make_run_seeds() -> str:
    out = StringIO()
    call_command("seed_catalog", stdout=out)
    call_command("seed_shoppers", stdout=out)
    return out.getvalue()


def staff_edits() -> None:
    """What a staff member does in the admin between two starts."""
    Product.objects.filter(sku="TS-0001").update(name="Vela Tee (staff pick)", price="12.50")
    Product.objects.filter(sku="TS-0002").update(active=False)
    Variant.objects.filter(sku="TS-0001-BLK-XS").update(stock=0)
    DemoShopper.objects.filter(user__username="ann").update(
        display_name="Ann B.", blurb="Wedding guest, size M."
    )
    DemoShopper.objects.filter(user__username="ben").update(listed=False)
    demo = demo_settings_get()
    demo.memory_enabled = False
    demo.signin_note = "Closed for stocktaking."
    demo.save()


def test_a_restart_leaves_every_staff_edit_alone():
    staff_edits()
    Product.objects.filter(sku="TS-0003").delete()  # and one product is missing

    printed = make_run_seeds()

    product = Product.objects.get(sku="TS-0001")
    assert (product.name, product.price) == ("Vela Tee (staff pick)", Decimal("12.50"))
    assert not Product.objects.get(sku="TS-0002").active
    assert Variant.objects.get(sku="TS-0001-BLK-XS").stock == 0
    ann = DemoShopper.objects.get(user__username="ann")
    assert (ann.display_name, ann.blurb) == ("Ann B.", "Wedding guest, size M.")
    assert not DemoShopper.objects.get(user__username="ben").listed
    demo = demo_settings_get()
    assert (demo.memory_enabled, demo.signin_note) == (False, "Closed for stocktaking.")
    # What was missing is back, and the output says what was kept.
    assert Product.objects.filter(sku="TS-0003").exists()
    assert Variant.objects.filter(sku__startswith="TS-0003-").exists()
    assert "Catalog: 1 created, 122 left as they are (--reset restores the seed)." in printed
    # The home page counts what is on sale: the seed's line says why that is fewer.
    assert "In all: 118 on sale, 5 withdrawn (not shown)." in printed
    assert "Demo shoppers: 0 created, 5 left as they are" in printed


def test_reset_restores_the_seed():
    staff_edits()
    out = StringIO()
    call_command("seed_catalog", "--reset", stdout=out)
    call_command("seed_shoppers", "--reset", stdout=out)

    product = Product.objects.get(sku="TS-0001")
    assert (product.name, product.price) == ("Vela Crew Tee", Decimal("23.00"))
    assert Product.objects.get(sku="TS-0002").active
    assert Variant.objects.get(sku="TS-0001-BLK-XS").stock == 16
    ann = DemoShopper.objects.get(user__username="ann")
    assert ann.display_name == "Ann" and ann.blurb.startswith("Size M")
    assert DemoShopper.objects.get(user__username="ben").listed
    assert "Catalog: 0 created, 2 restored to the seed, 121 as seeded already" in out.getvalue()
    assert "Demo shoppers: 0 created, 2 restored to the seed, 3 as seeded already" in out.getvalue()
