"""Catalog and demo-shopper writes."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction

from shop.models import DemoShopper, Product, Variant

CATALOG_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "catalog.json"
USERNAME_RE = re.compile(r"^[a-z0-9_-]{3,30}$")

DEMO_SHOPPERS = [
    ("ann", "Ann", "Size M, can't stand yellow, shops for weddings."),
    ("ben", "Ben", "Runner, size 44 shoes, likes Kestrel."),
    ("chloe", "Chloé", "Dresses and sandals on a 100 EUR budget."),
    ("dev", "Dev", "Office wear in navy and grey, size L."),
    ("maria", "María", "New shopper: nothing remembered yet."),
]


class SignInRefused(Exception):
    """The username cannot be used for the demo sign-in; the message says why."""


@dataclass(frozen=True)
class SeedResult:
    created: int
    updated: int


@transaction.atomic
def catalog_seed(*, fixture: Path = CATALOG_FIXTURE) -> SeedResult:
    """Load the catalog fixture, creating or updating by SKU so a re-run changes nothing."""
    data = json.loads(fixture.read_text())
    product_fields = (
        "name",
        "slug",
        "category",
        "brand",
        "description",
        "colour",
        "price",
        "active",
    )
    existing = {p.sku: p for p in Product.objects.all()}
    to_create = [
        Product(sku=item["sku"], **{k: item[k] for k in product_fields})
        for item in data
        if item["sku"] not in existing
    ]
    Product.objects.bulk_create(to_create)
    to_update = []
    for item in data:
        product = existing.get(item["sku"])
        if product is not None:
            for key in product_fields:
                setattr(product, key, item[key])
            to_update.append(product)  # few rows: always rewritten, so edits are undone
    Product.objects.bulk_update(to_update, product_fields)

    product_ids = dict(Product.objects.values_list("sku", "id"))
    variants = {v.sku: v for v in Variant.objects.all()}
    new_variants, changed = [], []
    for item in data:
        for row in item["variants"]:
            values = {
                "product_id": product_ids[item["sku"]],
                "colour": row["colour"],
                "size": row["size"],
                "stock": row["stock"],
            }
            variant = variants.get(row["sku"])
            if variant is None:
                new_variants.append(Variant(sku=row["sku"], **values))
            elif any(getattr(variant, key) != value for key, value in values.items()):
                for key, value in values.items():
                    setattr(variant, key, value)
                changed.append(variant)
    Variant.objects.bulk_create(new_variants)
    Variant.objects.bulk_update(changed, ["product_id", "colour", "size", "stock"])
    return SeedResult(created=len(to_create), updated=len(to_update))


def shopper_get_or_create(
    *, username: str, display_name: str | None = None, blurb: str = "", listed: bool = False
):
    """Return the non-staff user for a demo username, creating it without a usable password.

    Raises SignInRefused for a malformed username or one that belongs to staff: the demo
    sign-in has no password, so it must never open a staff account.
    """
    username = (username or "").strip()
    if not USERNAME_RE.match(username):
        raise SignInRefused("Use 3 to 30 characters: lower-case letters, digits, '-' or '_'.")
    User = get_user_model()
    user = User.objects.filter(username=username).first()
    if user is not None and (user.is_staff or user.is_superuser):
        raise SignInRefused(
            "That name belongs to a staff account; staff sign in through the admin."
        )
    if user is None:
        user = User(username=username, first_name=display_name or username.capitalize())
        user.set_unusable_password()
        user.save()
    DemoShopper.objects.get_or_create(
        user=user,
        defaults={
            "display_name": display_name or user.first_name or username,
            "blurb": blurb,
            "listed": listed,
        },
    )
    return user


@transaction.atomic
def shoppers_seed() -> SeedResult:
    created = updated = 0
    for username, display_name, blurb in DEMO_SHOPPERS:
        existed = DemoShopper.objects.filter(user__username=username).exists()
        user = shopper_get_or_create(
            username=username, display_name=display_name, blurb=blurb, listed=True
        )
        DemoShopper.objects.filter(user=user).update(
            display_name=display_name, blurb=blurb, listed=True
        )
        created += not existed
        updated += existed
    return SeedResult(created=created, updated=updated)


def shopper_display_name(user) -> str:
    shopper = getattr(user, "demo_shopper", None)
    if shopper is not None:
        return shopper.display_name
    return user.first_name or user.username
