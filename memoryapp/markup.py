"""Stored memory text as staff read it: the light markdown answers use, made safe HTML.

Answers carry **bold**, bullet lines and links to product pages, and a turn block keeps
the answer as the model wrote it. Shown raw, staff read `**Loom & Lane**`; trusted as
HTML, a stored note could inject markup into the admin. So the text is escaped piece by
piece and only these forms become markup, as the chat panel's renderer does
(`static/js/chat/render.js`): paragraphs, bullet lists, **bold**, and links whose target
is one of this shop's product pages (any other link keeps its words and loses its target).
Pure functions, no I/O.
"""

from __future__ import annotations

import re

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

INLINE = re.compile(r"\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)")
BULLET = re.compile(r"^\s*[-*•]\s+(.*)$")
SAFE_HREF = re.compile(r"^/products/[A-Za-z0-9_\-/]*$")


def href_safe(href: str) -> bool:
    return bool(SAFE_HREF.match(href)) and "//" not in href


def _inline_html(text: str) -> str:
    parts: list[str] = []
    last = 0
    for match in INLINE.finditer(text):
        parts.append(escape(text[last : match.start()]))
        bold, label, href = match.groups()
        if bold is not None:
            parts.append(format_html("<strong>{}</strong>", bold))
        elif href_safe(href):
            parts.append(format_html('<a href="{}">{}</a>', href, label))
        else:
            parts.append(escape(label))
        last = match.end()
    parts.append(escape(text[last:]))
    return "".join(parts)


def markdown_render(text: str | None) -> SafeString:
    """Paragraphs, bullet lists, bold and product-page links; everything else escaped."""
    blocks: list[str] = []
    paragraph: list[str] = []
    bullets: list[str] = []

    def flush() -> None:
        if paragraph:
            blocks.append("<p>" + "<br>".join(_inline_html(line) for line in paragraph) + "</p>")
            paragraph.clear()
        if bullets:
            blocks.append("<ul>" + "".join(f"<li>{item}</li>" for item in bullets) + "</ul>")
            bullets.clear()

    for line in (text or "").replace("\r\n", "\n").split("\n"):
        bullet = BULLET.match(line)
        if bullet:
            if paragraph:
                flush()
            bullets.append(_inline_html(bullet.group(1)))
        elif not line.strip():
            flush()
        else:
            if bullets:
                flush()
            paragraph.append(line)
    flush()
    # Every piece above was escaped or built by format_html.
    return mark_safe("".join(blocks))


def markdown_strip(text: str | None) -> str:
    """The same text as plain words, for a one-line message: no `**`, links as their labels."""
    plain = INLINE.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), text or "")
    lines = [BULLET.sub(r"\1", line).strip() for line in plain.splitlines()]
    return " ".join(line for line in lines if line)
