"""Catalog and demo-shopper admin."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.utils.translation import ngettext

from shop.models import DemoShopper, PrivilegedAccount, Product, Variant


class VariantInline(admin.TabularInline):
    model = Variant
    extra = 0
    fields = ("sku", "colour", "size", "stock")


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "sku",
        "category",
        "brand",
        "colour",
        "price",
        "variant_count",
        "active",
    )
    list_filter = ("category", "brand", "colour", "active")
    search_fields = ("name", "sku", "brand", "variants__sku")
    prepopulated_fields = {"slug": ("name",)}
    inlines = [VariantInline]
    actions = ["withdraw", "restore"]
    list_per_page = 50

    def get_queryset(self, request: HttpRequest) -> QuerySet[Product]:
        return super().get_queryset(request).annotate(_variant_count=Count("variants"))

    @admin.display(description="variants", ordering="_variant_count")
    def variant_count(self, product: Product) -> int:
        return product._variant_count

    @admin.action(description="Withdraw selected products", permissions=["change"])
    def withdraw(self, request: HttpRequest, queryset: QuerySet[Product]) -> None:
        # Memories of a withdrawn product stay stored: they are leads the assistant must
        # check with a tool, which is what this action lets a presenter show.
        count = queryset.filter(active=True).update(active=False)
        self.message_user(
            request,
            ngettext(
                "Withdrew %d product: it is hidden from the shop and the assistant.",
                "Withdrew %d products: they are hidden from the shop and the assistant.",
                count,
            )
            % count,
            messages.SUCCESS,
        )

    @admin.action(description="Put selected products back on sale", permissions=["change"])
    def restore(self, request: HttpRequest, queryset: QuerySet[Product]) -> None:
        count = queryset.filter(active=False).update(active=True)
        self.message_user(
            request,
            ngettext("%d product is on sale again.", "%d products are on sale again.", count)
            % count,
            messages.SUCCESS,
        )


@admin.register(DemoShopper)
class DemoShopperAdmin(admin.ModelAdmin):
    list_display = ("display_name", "username", "blurb", "listed")
    list_filter = ("listed",)
    search_fields = ("display_name", "user__username", "blurb")
    list_select_related = ("user",)
    raw_id_fields = ("user",)

    @admin.display(description="username", ordering="user__username")
    def username(self, shopper: DemoShopper) -> str:
        return shopper.user.username


@admin.register(PrivilegedAccount)
class PrivilegedAccountAdmin(admin.ModelAdmin):
    """Added by the shop itself, never edited: the mark keeps a demoted account out of the
    demo sign-in. Deleting it (a delete permission, superusers) lets the sign-in judge the
    account by its current rights again; deleting the user deletes it too."""

    list_display = ("user", "first_seen")
    search_fields = ("user__username",)
    list_select_related = ("user",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
