from __future__ import annotations

from django import forms

from shop.models import ALL_SIZES, Category, Colour


class CatalogFilterForm(forms.Form):
    q = forms.CharField(required=False, max_length=100, label="Search")
    category = forms.ChoiceField(
        required=False, choices=[("", "All categories"), *Category.choices]
    )
    colour = forms.ChoiceField(required=False, choices=[("", "Any colour"), *Colour.choices])
    size = forms.ChoiceField(
        required=False,
        choices=[("", "Any size"), *[(s, s) for s in ALL_SIZES]],
        label="Size in stock",
    )
    max_price = forms.DecimalField(
        required=False, min_value=0, max_digits=7, decimal_places=2, label="Max price (EUR)"
    )


class SignInForm(forms.Form):
    username = forms.CharField(max_length=30, label="Or type a new shopper name")
