"""Regenerate shop/fixtures/catalog.json, the seeded catalog.

Deterministic (fixed seed), so the fixture only changes when this file does:
    .venv/bin/python scripts/generate_catalog.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "shop" / "fixtures" / "catalog.json"

CLOTHING_SIZES = ["XS", "S", "M", "L", "XL", "XXL"]
SHOE_SIZES = [str(n) for n in range(36, 47)]
COLOUR_CODES = {
    "black": "BLK",
    "white": "WHT",
    "grey": "GRY",
    "navy": "NVY",
    "blue": "BLU",
    "red": "RED",
    "green": "GRN",
    "olive": "OLV",
    "yellow": "YEL",
    "pink": "PNK",
    "beige": "BEI",
    "brown": "BRN",
}
BRANDS = [
    "Northwind",
    "Fjord & Pine",
    "Atelier Mira",
    "Kestrel",
    "Loom & Lane",
    "Solstice",
    "Harbor Supply",
    "Vela",
    "Orchard Street",
    "Tern",
    "Mistral",
    "Copperleaf",
    "Brightmoor",
]
# category -> (code, styles, price band, colours, occasion sentences)
CATEGORIES = {
    "t-shirts": (
        "TS",
        [
            "Crew Tee",
            "Pocket Tee",
            "Organic Cotton Tee",
            "Striped Breton Tee",
            "Relaxed Linen Tee",
            "Performance Running Tee",
            "Heavyweight Tee",
            "V-Neck Tee",
            "Graphic Print Tee",
            "Long-Sleeve Tee",
            "Boxy Tee",
            "Ribbed Slim Tee",
            "Merino Travel Tee",
            "Henley Tee",
            "Ringer Tee",
        ],
        (15, 55),
        ["white", "black", "grey", "navy", "yellow", "green", "red", "pink"],
        [
            "An everyday staple for weekends and casual days.",
            "Light enough for summer holidays and the beach.",
            "Wicks sweat on runs and at the gym.",
        ],
    ),
    "shirts": (
        "SH",
        [
            "Oxford Shirt",
            "Linen Shirt",
            "Poplin Shirt",
            "Flannel Overshirt",
            "Denim Shirt",
            "Chambray Shirt",
            "Silk Blouse",
            "Camp-Collar Shirt",
            "Corduroy Shirt",
            "Tuxedo Shirt",
            "Seersucker Shirt",
        ],
        (35, 140),
        ["white", "blue", "navy", "pink", "beige", "green", "black", "yellow"],
        [
            "Crisp enough for the office, easy enough for dinner.",
            "A breathable choice for summer weddings and garden parties.",
            "A relaxed layer for weekends away.",
        ],
    ),
    "knitwear": (
        "KN",
        [
            "Merino Crew Jumper",
            "Cashmere V-Neck",
            "Cable Knit Sweater",
            "Lambswool Cardigan",
            "Chunky Roll-Neck",
            "Cotton Half-Zip",
            "Alpaca Blend Jumper",
            "Fisherman Sweater",
            "Ribbed Knit Vest",
            "Mohair Cardigan",
            "Zip Cardigan",
        ],
        (45, 260),
        ["grey", "navy", "beige", "black", "green", "red", "brown", "yellow"],
        [
            "Warm for winter walks and cold offices.",
            "Smart over a shirt for the office or a dinner date.",
            "A cosy layer for travel and autumn weekends.",
        ],
    ),
    "jeans": (
        "JN",
        [
            "Slim Selvedge Jeans",
            "Straight Leg Jeans",
            "Relaxed Tapered Jeans",
            "High-Rise Wide Jeans",
            "Skinny Stretch Jeans",
            "Bootcut Jeans",
            "Carpenter Jeans",
            "Mom Jeans",
            "Raw Denim Jeans",
            "Cropped Flare Jeans",
            "Black Wash Jeans",
            "Vintage Fade Jeans",
        ],
        (45, 190),
        ["blue", "black", "navy", "grey", "white", "yellow"],
        [
            "Everyday denim that breaks in beautifully.",
            "Stretch denim for comfort on long travel days.",
            "Sharp enough for a casual Friday at the office.",
        ],
    ),
    "trousers": (
        "TR",
        [
            "Pleated Chinos",
            "Slim Chinos",
            "Wool Suit Trousers",
            "Linen Drawstring Trousers",
            "Cargo Trousers",
            "Wide-Leg Trousers",
            "Corduroy Trousers",
            "Hiking Trousers",
            "Tailored Joggers",
            "Cropped Trousers",
        ],
        (40, 220),
        ["beige", "navy", "olive", "black", "grey", "brown", "green"],
        [
            "Tailored for the office and sharp enough for a wedding.",
            "Quick-drying fabric for hiking and travel.",
            "Easy-going trousers for weekends and summer evenings.",
        ],
    ),
    "dresses": (
        "DR",
        [
            "Wrap Midi Dress",
            "Slip Dress",
            "Shirt Dress",
            "Linen Sundress",
            "Knit Dress",
            "Tiered Maxi Dress",
            "Satin Evening Dress",
            "Smock Dress",
            "Tea Dress",
            "Pleated Cocktail Dress",
            "Jersey T-Shirt Dress",
            "Linen Shirt Dress",
        ],
        (45, 320),
        ["black", "red", "navy", "green", "pink", "yellow", "white", "blue"],
        [
            "Elegant enough for a wedding guest or an evening party.",
            "Light and airy for summer holidays and the beach.",
            "Smart-casual for the office and dinner after.",
        ],
    ),
    "skirts": (
        "SK",
        [
            "Pleated Midi Skirt",
            "Denim Mini Skirt",
            "A-Line Skirt",
            "Satin Slip Skirt",
            "Wool Pencil Skirt",
            "Tiered Maxi Skirt",
            "Corduroy Skirt",
            "Wrap Skirt",
            "Linen Skirt",
        ],
        (30, 150),
        ["black", "navy", "beige", "green", "pink", "red", "yellow", "blue"],
        [
            "Polished enough for the office.",
            "Swishy and light for summer parties.",
            "An easy weekend piece that works with trainers.",
        ],
    ),
    "jackets": (
        "JK",
        [
            "Waxed Field Jacket",
            "Denim Jacket",
            "Wool Overcoat",
            "Rain Shell",
            "Quilted Liner Jacket",
            "Leather Biker Jacket",
            "Linen Blazer",
            "Wool Blazer",
            "Down Puffer Jacket",
            "Trench Coat",
            "Fleece Jacket",
            "Harrington Jacket",
            "Bomber Jacket",
        ],
        (60, 400),
        ["black", "navy", "olive", "beige", "brown", "grey", "yellow", "green", "red"],
        [
            "Weatherproof for hiking, travel and city rain.",
            "Sharp tailoring for the office, weddings and dinners.",
            "Warm enough for winter city weekends.",
        ],
    ),
    "sneakers": (
        "SN",
        [
            "Court Sneakers",
            "Canvas Low-Tops",
            "Retro Runners",
            "Trail Running Shoes",
            "Leather High-Tops",
            "Knit Runners",
            "Slip-On Sneakers",
            "Suede Trainers",
            "Platform Sneakers",
            "Road Running Shoes",
            "Minimal Leather Sneakers",
            "Tennis Shoes",
        ],
        (40, 220),
        ["white", "black", "grey", "navy", "red", "green", "pink", "yellow", "beige"],
        [
            "Clean everyday trainers for weekends and travel.",
            "Cushioned for running and long days on your feet.",
            "Grippy soles for trail runs and light hiking.",
        ],
    ),
    "boots": (
        "BT",
        [
            "Chelsea Boots",
            "Hiking Boots",
            "Lace-Up Derby Boots",
            "Suede Desert Boots",
            "Leather Ankle Boots",
            "Knee-High Boots",
            "Waterproof Walking Boots",
            "Work Boots",
            "Heeled Ankle Boots",
            "Rubber Rain Boots",
        ],
        (80, 380),
        ["brown", "black", "beige", "olive", "grey"],
        [
            "Waterproof and sturdy for hiking and winter walks.",
            "Smart leather that works at the office and at weddings.",
            "Goes with jeans for weekends and travel.",
        ],
    ),
    "sandals": (
        "SD",
        [
            "Leather Slides",
            "Strappy Sandals",
            "Sport Sandals",
            "Espadrille Wedges",
            "Toe-Post Sandals",
            "Cork Footbed Sandals",
            "Woven Sandals",
            "Block Heel Sandals",
        ],
        (25, 160),
        ["brown", "black", "beige", "white", "pink", "yellow", "red"],
        [
            "Made for summer holidays and the beach.",
            "Dressy enough for a summer wedding or a garden party.",
            "Comfortable for city sightseeing in the heat.",
        ],
    ),
}


def slugify(text: str) -> str:
    out = "".join(ch.lower() if ch.isalnum() else "-" for ch in text)
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-")


def build() -> list[dict]:
    rng = random.Random(20260501)
    products = []
    serial = 0
    for category, (code, styles, (low, high), colours, occasions) in CATEGORIES.items():
        sizes = SHOE_SIZES if category in {"sneakers", "boots", "sandals"} else CLOTHING_SIZES
        for style in styles:
            serial += 1
            brand = BRANDS[(serial * 7) % len(BRANDS)]
            main = colours[serial % len(colours)]
            extra = [c for c in colours if c != main]
            variant_colours = [main, *rng.sample(extra, k=rng.choice([0, 1, 1, 2]))]
            price = (
                round(rng.uniform(low, high)) - 0.05
                if rng.random() < 0.6
                else round(rng.uniform(low, high))
            )
            price = max(15.0, min(400.0, float(price)))
            name = f"{brand} {style}"
            description = (
                f"{style} by {brand}, in {', '.join(variant_colours)}. {rng.choice(occasions)} "
                f"{rng.choice(['Runs true to size.', 'Cut for a relaxed fit.', 'Slim through the body.', 'Made to last.'])}"
            )
            sku = f"{code}-{serial:04d}"
            variants = []
            for colour in variant_colours:
                for size in sizes:
                    roll = rng.random()
                    stock = 0 if roll < 0.15 else rng.randint(1, 25)
                    variants.append(
                        {
                            "sku": f"{sku}-{COLOUR_CODES[colour]}-{size}",
                            "colour": colour,
                            "size": size,
                            "stock": stock,
                        }
                    )
            products.append(
                {
                    "sku": sku,
                    "name": name,
                    "slug": slugify(f"{name}-{sku}"),
                    "category": category,
                    "brand": brand,
                    "description": description,
                    "colour": main,
                    "price": f"{price:.2f}",
                    # A handful of withdrawn products show that memories are leads, not results.
                    "active": serial % 29 != 0,
                    "variants": variants,
                }
            )
    return products


if __name__ == "__main__":
    data = build()
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    cats = {p["category"] for p in data}
    brands = {p["brand"] for p in data}
    colours = {v["colour"] for p in data for v in p["variants"]}
    print(
        f"{len(data)} products, {len(cats)} categories, {len(brands)} brands, "
        f"{len(colours)} colours, {sum(not p['active'] for p in data)} withdrawn -> {OUT}"
    )
