"""The light markdown of stored texts, as the admin shows it: rendered, never trusted."""

from __future__ import annotations

import pytest

from memoryapp.markup import markdown_render, markdown_strip


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("plain & simple", "<p>plain &amp; simple</p>"),
        ("a **bold** word", "<p>a <strong>bold</strong> word</p>"),
        ("**<i>x</i>**", "<p><strong>&lt;i&gt;x&lt;/i&gt;</strong></p>"),
        ("two\nlines", "<p>two<br>lines</p>"),
        ("one\n\ntwo", "<p>one</p><p>two</p>"),
        ("Two:\n- a\n* b\n• c", "<p>Two:</p><ul><li>a</li><li>b</li><li>c</li></ul>"),
        ("- a\nafter", "<ul><li>a</li></ul><p>after</p>"),
        ("[shirt](/products/oxford-shirt/)", '<p><a href="/products/oxford-shirt/">shirt</a></p>'),
        # Only this shop's product pages become links; the words of any other stay.
        ("[x](https://evil.example/)", "<p>x</p>"),
        ("[x](javascript:alert(1))", "<p>x)</p>"),
        ("[x](/products//evil.example/)", "<p>x</p>"),
        ('[x](/products/a"onmouseover=alert(1))', "<p>x)</p>"),
        ("<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"),
        ("**unclosed", "<p>**unclosed</p>"),
        ("", ""),
        (None, ""),
    ],
)
def test_markdown_render(text, html):
    assert markdown_render(text) == html


def test_markdown_strip_gives_the_words():
    text = "Here:\n- **Loom & Lane** [dress](/products/x/)\n- navy"
    assert markdown_strip(text) == "Here: Loom & Lane dress navy"
