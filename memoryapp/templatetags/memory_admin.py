"""Filters for the admin's memory pages: stored ISO timestamps and stored text."""

from __future__ import annotations

from datetime import UTC, datetime

from django import template
from django.template.defaultfilters import date as date_filter
from django.utils.html import format_html
from django.utils.safestring import SafeString

from memoryapp.markup import markdown_render

register = template.Library()

# Day and minute: what staff compare; the exact stamp is in the element's title.
STAMP_FORMAT = "j M Y, H:i"


@register.filter
def iso_datetime(value: str | datetime | None) -> datetime | None:
    """An ISO 8601 string from the memory server as an aware datetime, for `|date`.

    Naive stamps are UTC, as the server writes them; an unreadable one gives None.
    """
    if isinstance(value, datetime):
        moment = value
    else:
        try:
            moment = datetime.fromisoformat(str(value or "").replace("Z", "+00:00"))
        except ValueError:
            return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@register.simple_tag
def stamp(value: str | None, empty: str = "—", fmt: str = STAMP_FORMAT) -> str:
    """A stored timestamp as `<time>`: short in the page, exact in `datetime` and `title`."""
    moment = iso_datetime(value)
    if moment is None:
        return empty
    exact = moment.isoformat()
    return format_html(
        '<time datetime="{}" title="{}">{}</time>', exact, exact, date_filter(moment, fmt)
    )


@register.filter
def markdown(value: str | None) -> SafeString:
    """Stored text with its light markdown as safe HTML (memoryapp.markup)."""
    return markdown_render(value)
