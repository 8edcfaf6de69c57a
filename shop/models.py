from __future__ import annotations

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.urls import reverse

CLOTHING_SIZES = ["XS", "S", "M", "L", "XL", "XXL"]
SHOE_SIZES = [str(n) for n in range(36, 47)]
ALL_SIZES = CLOTHING_SIZES + SHOE_SIZES


class Category(models.TextChoices):
    TSHIRTS = "t-shirts", "T-shirts"
    SHIRTS = "shirts", "Shirts"
    KNITWEAR = "knitwear", "Knitwear"
    JEANS = "jeans", "Jeans"
    TROUSERS = "trousers", "Trousers"
    DRESSES = "dresses", "Dresses"
    SKIRTS = "skirts", "Skirts"
    JACKETS = "jackets", "Jackets"
    SNEAKERS = "sneakers", "Sneakers"
    BOOTS = "boots", "Boots"
    SANDALS = "sandals", "Sandals"


SHOE_CATEGORIES = {Category.SNEAKERS, Category.BOOTS, Category.SANDALS}


class Colour(models.TextChoices):
    BLACK = "black", "Black"
    WHITE = "white", "White"
    GREY = "grey", "Grey"
    NAVY = "navy", "Navy"
    BLUE = "blue", "Blue"
    RED = "red", "Red"
    GREEN = "green", "Green"
    OLIVE = "olive", "Olive"
    YELLOW = "yellow", "Yellow"
    PINK = "pink", "Pink"
    BEIGE = "beige", "Beige"
    BROWN = "brown", "Brown"


class ProductQuerySet(models.QuerySet):
    def active(self) -> ProductQuerySet:
        return self.filter(active=True)


class Product(models.Model):
    sku = models.CharField("style SKU", max_length=20, unique=True)
    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=140, unique=True)
    category = models.CharField(max_length=20, choices=Category.choices, db_index=True)
    brand = models.CharField(max_length=60, db_index=True)
    description = models.TextField()
    colour = models.CharField("main colour", max_length=20, choices=Colour.choices, db_index=True)
    price = models.DecimalField(
        "price (EUR)", max_digits=7, decimal_places=2, validators=[MinValueValidator(0)]
    )
    active = models.BooleanField(
        default=True, help_text="Withdrawn products are hidden from the shop and the assistant."
    )

    objects = ProductQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.sku})"

    def get_absolute_url(self) -> str:
        return reverse("shop:product", kwargs={"slug": self.slug})


class Variant(models.Model):
    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="variants")
    sku = models.CharField(max_length=32, unique=True)
    colour = models.CharField(max_length=20, choices=Colour.choices)
    size = models.CharField(max_length=8)
    stock = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["product_id", "colour", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["product", "colour", "size"], name="variant_unique_colour_size"
            )
        ]

    def __str__(self) -> str:
        return self.sku


class DemoShopper(models.Model):
    """An account the demo sign-in may open by name (no password: the login is deliberately
    fake). Only accounts the sign-in itself created carry one."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="demo_shopper"
    )
    display_name = models.CharField(max_length=60)
    blurb = models.CharField(max_length=200, blank=True)
    listed = models.BooleanField(default=True, help_text="Offered on the sign-in page.")

    class Meta:
        ordering = ["display_name"]

    def __str__(self) -> str:
        return self.display_name


class PrivilegedAccount(models.Model):
    """An account that has held staff or superuser rights at some point.

    The demo sign-in never opens such an account, even once it is demoted: what it did and
    saw with those rights stays behind a password. Recorded whenever a user is saved with
    either right (see `shop.signals`) and by the migration that introduced it.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="privileged_account"
    )
    first_seen = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "account with staff rights, now or before"
        verbose_name_plural = "accounts with staff rights, now or before"

    def __str__(self) -> str:
        return str(self.user)


class ProductMeaning(models.Model):
    """A product's text as a vector, so a search can rank by meaning as well as by words.

    Kept beside the product, not on it: the vector is derived data (`shop.meaning` writes
    it when a product is saved, or the first time a search meets a product without one),
    and `text_hash` says which name and description it was computed from, so a stale vector
    is recomputed rather than trusted.
    """

    product = models.OneToOneField(
        Product, on_delete=models.CASCADE, primary_key=True, related_name="meaning"
    )
    text_hash = models.CharField(max_length=32)
    vector = models.BinaryField()  # float32, L2-normalised
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    def __str__(self) -> str:
        return f"meaning of product {self.product_id}"
