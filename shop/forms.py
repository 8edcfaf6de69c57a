from __future__ import annotations

from django import forms

from shop.models import ALL_SIZES, Category, Colour
from shop.numbers import MAX_PRICE_EUR, NumberRefused, number_from_text


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
    max_price = forms.DecimalField(required=False, label="Max price (EUR)")

    def clean_max_price(self) -> float | None:
        # The rule every number from a client keeps, the socket's and the tools' alike.
        value = self.cleaned_data.get("max_price")
        if value is None:
            return None
        try:
            return number_from_text(value, name="Max price", low=0, high=MAX_PRICE_EUR)
        except NumberRefused as refused:
            raise forms.ValidationError(f"{refused} EUR.") from None


class SignInForm(forms.Form):
    username = forms.CharField(max_length=30, label="Or type a new shopper name")
