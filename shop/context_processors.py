from __future__ import annotations

from shop.models import Category


def navigation(request):
    return {"nav_categories": Category.choices}
