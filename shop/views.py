from __future__ import annotations

from django.contrib.auth import login, logout
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from shop.forms import CatalogFilterForm, SignInForm
from shop.models import ALL_SIZES, Product
from shop.selectors import (
    CatalogFilters,
    catalog_search,
    demo_shoppers_listed,
    in_stock_attach,
    products_load,
    sizes_sorted,
)
from shop.services import SignInRefused, shopper_get_or_create

PAGE_SIZE = 24


def catalog(request):
    form = CatalogFilterForm(request.GET or None)
    filters = CatalogFilters()
    if form.is_valid():
        data = form.cleaned_data
        filters = CatalogFilters(
            query=data["q"] or "",
            category=data["category"] or None,
            colour=data["colour"] or None,
            size=data["size"] or None,
            max_price=data["max_price"],
        )
    found = catalog_search(filters)
    page = Paginator(found.ids, PAGE_SIZE).get_page(request.GET.get("page"))
    page.object_list = products_load(page.object_list)
    in_stock_attach(
        page.object_list, colour=filters.colour, exclude_colours=filters.exclude_colours
    )
    for product in page:
        product.sizes_in_stock = sizes_sorted(v.size for v in product.in_stock)
    query_without_page = request.GET.copy()
    query_without_page.pop("page", None)
    return render(
        request,
        "shop/catalog.html",
        {
            "form": form,
            "page": page,
            "total": len(found.ids),
            "unmatched_words": found.unmatched_words if filters.query else [],
            "query_string": query_without_page.urlencode(),
        },
    )


def product_detail(request, slug: str):
    product = Product.objects.active().filter(slug=slug).prefetch_related("variants").first()
    if product is None:
        raise Http404("No such product, or it has been withdrawn.")
    order = {size: i for i, size in enumerate(ALL_SIZES)}
    variants = sorted(product.variants.all(), key=lambda v: (v.colour, order.get(v.size, 99)))
    return render(request, "shop/product.html", {"product": product, "variants": variants})


@require_http_methods(["GET", "POST"])
def signin(request):
    form = SignInForm(request.POST or None)
    if request.method == "POST":
        username = request.POST.get("username", "")
        try:
            user = shopper_get_or_create(username=username)
        except SignInRefused as refused:
            form = SignInForm(request.POST)
            form.is_valid()
            form.add_error("username", str(refused))
        else:
            if request.user.is_authenticated and request.user.pk != user.pk:
                # Someone else signs in over a sign-in: the one before ends properly first,
                # so its open chat sockets are told (a signed_out), not left speaking for it.
                logout(request)
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            next_url = request.POST.get("next") or "/"
            return redirect(
                next_url if next_url.startswith("/") and not next_url.startswith("//") else "/"
            )
    shoppers = demo_shoppers_listed()
    return render(
        request,
        "shop/signin.html",
        {"form": form, "shoppers": shoppers, "next": request.GET.get("next", "")},
        status=400 if form.errors else 200,
    )


@require_POST
def signout(request):
    logout(request)
    return redirect("shop:catalog")
