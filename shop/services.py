"""Catalog and demo-shopper writes."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from shop.models import DemoShopper, PrivilegedAccount, Product, Variant

CATALOG_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "catalog.json"
USERNAME_MIN, USERNAME_MAX = 3, 30
USERNAME_RULE = (
    f"Use {USERNAME_MIN} to {USERNAME_MAX} characters: letters of any alphabet (é, ß, ж, 李, ...), "
    "digits, '-' or '_'; no spaces or other signs."
)

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
    updated: int  # restored to the seed (only with reset)
    kept: int = 0  # there already, left as people made it
    summary: str = ""  # what the seeded rows come to, for the command's line


PRODUCT_SEED_FIELDS = (
    "name",
    "slug",
    "category",
    "brand",
    "description",
    "colour",
    "price",
    "active",
)
VARIANT_SEED_FIELDS = ("product_id", "colour", "size", "stock")


@transaction.atomic
def catalog_seed(*, fixture: Path = CATALOG_FIXTURE, reset: bool = False) -> SeedResult:
    """Create the fixture's products and variants that are missing, matched by SKU.

    What exists is left alone, so a price, name, stock level or withdrawal set in the admin
    survives every `make run`; `reset` writes the fixture's values back over them.
    """
    data = json.loads(fixture.read_text())
    existing = {p.sku: p for p in Product.objects.all()}
    to_create = [
        Product(sku=item["sku"], **{k: item[k] for k in PRODUCT_SEED_FIELDS})
        for item in data
        if item["sku"] not in existing
    ]
    Product.objects.bulk_create(to_create)
    restored = []
    if reset:
        for item in data:
            product = existing.get(item["sku"])
            seeded = {
                key: Product._meta.get_field(key).to_python(item[key])
                for key in PRODUCT_SEED_FIELDS
            }
            if product is not None and any(
                getattr(product, key) != value for key, value in seeded.items()
            ):
                for key, value in seeded.items():
                    setattr(product, key, value)
                restored.append(product)
        Product.objects.bulk_update(restored, PRODUCT_SEED_FIELDS)

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
            elif reset and any(getattr(variant, key) != value for key, value in values.items()):
                for key, value in values.items():
                    setattr(variant, key, value)
                changed.append(variant)
    Variant.objects.bulk_create(new_variants)
    Variant.objects.bulk_update(changed, VARIANT_SEED_FIELDS)
    seeded_before = len(existing.keys() & {item["sku"] for item in data})
    on_sale = Product.objects.active().count()
    withdrawn = Product.objects.count() - on_sale
    # The shop's pages count only what is on sale; say why that is fewer than the seed.
    summary = f"{on_sale} on sale" + (f", {withdrawn} withdrawn (not shown)" if withdrawn else "")
    return SeedResult(
        created=len(to_create),
        updated=len(restored),
        kept=seeded_before - len(restored),
        summary=summary,
    )


def _name_character(character: str) -> bool:
    # Letters and their marks (a vowel sign, a composed accent) and digits of any script.
    return character in "-_" or unicodedata.category(character)[0] in "LMN"


def username_valid(username: str) -> bool:
    """Whether `username` (already normalised) can be a shopper's account name."""
    return (
        USERNAME_MIN <= len(username) <= USERNAME_MAX
        and all(_name_character(c) for c in username)
        and unicodedata.category(username[0])[0] != "M"
    )


def username_folded(raw: str | None) -> str:
    """The form a typed name is compared in: trimmed, composed (NFC) and in lower case, so
    "Zoë", "ZOË" and a decomposed "zoë" are one name."""
    return unicodedata.normalize("NFC", (raw or "").strip()).lower()


def username_normalise(raw: str | None) -> str:
    """The account name a typed shopper name stands for: names ignore case ("Zoë" is "zoë").

    Raises SignInRefused, saying exactly what is accepted, when the name cannot be one.
    """
    username = username_folded(raw)
    if not username_valid(username):
        raise SignInRefused(USERNAME_RULE)
    return username


def _refusal(user) -> str | None:
    """Why the demo sign-in must not open this existing account, or None when it may."""
    if user.is_staff or user.is_superuser or PrivilegedAccount.objects.filter(user=user).exists():
        return "That name belongs to a staff account; staff sign in through the admin."
    if user.has_usable_password():
        return (
            "That name belongs to an account with a password; the demo sign-in only opens "
            "demo shoppers. Pick another name."
        )
    if not DemoShopper.objects.filter(user=user).exists():
        return "That name belongs to an account that is not a demo shopper. Pick another name."
    return None


def shopper_get_or_create(
    *, username: str, display_name: str | None = None, blurb: str = "", listed: bool = False
):
    """Return the demo shopper a typed name stands for, creating a new one for a new name.

    The demo sign-in has no password, so it opens only accounts it created itself (a
    DemoShopper with an unusable password) that never held staff or superuser rights.
    Any other account under that name, in any letter case, is refused with the reason:
    SignInRefused. A new shopper gets no usable password.
    """
    username = username_normalise(username)
    User = get_user_model()
    # Names ignore case, so "Admin" (staff) also blocks a new "admin" that would pass for it.
    same_name = list(User.objects.filter(username__iexact=username))
    user = next((u for u in same_name if u.username == username), None) or (
        same_name[0] if same_name else None
    )
    if user is None:
        user = _shopper_create(
            username=username,
            display_name=display_name or username.capitalize(),
            blurb=blurb,
            listed=listed,
        )
    if (reason := _refusal(user)) is not None:
        raise SignInRefused(reason)
    return user


def _shopper_create(*, username: str, display_name: str, blurb: str, listed: bool):
    User = get_user_model()
    try:
        with transaction.atomic():
            user = User(username=username, first_name=display_name)
            user.set_unusable_password()
            user.save()
            DemoShopper.objects.create(
                user=user, display_name=display_name, blurb=blurb, listed=listed
            )
    except IntegrityError:
        # Another request created the name a moment ago: judge that account instead.
        user = User.objects.get(username=username)
    return user


def account_privilege_record(*, user) -> None:
    """Remember for good that an account holds staff or superuser rights (a no-op otherwise)."""
    if user.is_staff or user.is_superuser:
        PrivilegedAccount.objects.get_or_create(user=user)


@transaction.atomic
def shoppers_seed(*, reset: bool = False) -> SeedResult:
    """Create the demo shoppers that are missing; leave the others as staff edited them.

    A display name, blurb or "listed" tick changed in the admin survives every `make run`;
    `reset` writes the seed's values back.
    """
    created = updated = kept = 0
    for username, display_name, blurb in DEMO_SHOPPERS:
        existed = DemoShopper.objects.filter(user__username=username).exists()
        user = shopper_get_or_create(
            username=username, display_name=display_name, blurb=blurb, listed=True
        )
        if not existed:
            created += 1
        elif reset:
            restored = (
                DemoShopper.objects.filter(user=user)
                .exclude(display_name=display_name, blurb=blurb, listed=True)
                .update(display_name=display_name, blurb=blurb, listed=True)
            )
            updated += restored
            kept += 1 - restored
        else:
            kept += 1
    return SeedResult(created=created, updated=updated, kept=kept)


def shopper_display_name(user) -> str:
    shopper = getattr(user, "demo_shopper", None)
    if shopper is not None:
        return shopper.display_name
    return user.first_name or user.username
