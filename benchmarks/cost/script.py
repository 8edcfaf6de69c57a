"""A visit's script: what a shopper says, and what a judge would find in it. Every fifth
message or so states something about the shopper; some change an earlier statement."""

from __future__ import annotations

SCRIPT = [
    ("hi, I need a linen shirt for summer", []),
    ("I'm a size M by the way", [("The shopper wears size M.", "size", "size/tops", "M")]),
    ("anything in navy?", []),
    ("show me chinos to go with it", []),
    (
        "I really don't like yellow",
        [("The shopper dislikes yellow.", "colour", "colour/yellow", "dislike")],
    ),
    ("what about a light jacket for evenings", []),
    ("something cheaper please", []),
    (
        "my budget is about 80 euros",
        [("The shopper's budget is up to 80 EUR.", "budget", "budget", "80 EUR")],
    ),
    ("any sandals for the beach", []),
    ("I wear 42 in shoes", [("The shopper wears shoe size 42.", "size", "size/shoes", "42")]),
    ("show me t-shirts in white", []),
    ("the second one, does it come in L?", []),
    ("actually I've gone up to L", [("The shopper wears size L.", "size", "size/tops", "L")]),
    (
        "a dress for a summer wedding",
        [("The shopper is shopping for a wedding.", "occasion", "occasion/wedding", "wedding")],
    ),
    ("something in green", []),
    ("show me more", []),
    (
        "I prefer cotton, linen itches",
        [("The shopper prefers cotton.", "material", "material/cotton", "like")],
    ),
    ("running shoes under 100 euros", []),
    ("black boots for the office", []),
    ("any waterproof jackets for hiking?", []),
    (
        "I've come round to yellow, actually",
        [("The shopper likes yellow.", "colour", "colour/yellow", "like")],
    ),
    ("a warm jumper", []),
    ("jeans with a slim fit", []),
    (
        "my budget is more like 120 now",
        [("The shopper's budget is up to 120 EUR.", "budget", "budget", "120 EUR")],
    ),
    ("shorts for the gym", []),
    ("a belt in brown", []),
    ("socks, a few pairs", []),
    ("a scarf for autumn", []),
    ("the first one in grey?", []),
    ("thanks, that's all", []),
]
