"""The grounding check against a scripted model that fabricates claims on purpose.

Products are drawn at random from the seeded catalog on each run (the seed is printed and
named in a failure). Every fabrication of both probe sets (`tests/support/grounding_probes.py`)
must stay off the shopper's screen, streamed or final, and every true control must reach it
exactly as the model wrote it. The figures are recorded in docs/grounding.md.
"""

from __future__ import annotations

import json
import os
from random import Random

import pytest
from asgiref.sync import sync_to_async

from harness.fake_openai import Reply
from shop.models import Product
from shop.selectors import product_get
from tests.support.chat import Chat
from tests.support.grounding_probes import SETS, Probe, Tally, product_draw

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@sync_to_async
def _catalog() -> list[dict]:
    skus = Product.objects.active().order_by("sku").values_list("sku", flat=True)
    return [product_get(sku=sku).as_dict() for sku in skus]


async def _shown(fake_openai, probe: Probe, skus: list[str]) -> tuple[str, str]:
    calls = [("get_product", json.dumps({"sku": sku})) for sku in skus]
    fake_openai.script(
        "assistant",
        Reply(tool_calls=calls),
        Reply(text=probe.text, chunks=max(1, len(probe.text) // 4)),
    )
    async with Chat() as chat:
        events = await chat.turn(probe.said, until=("done",))
    assert events[-1]["type"] == "done", events[-1]
    streamed = "".join(e["text"] for e in events if e["type"] == "token")
    return streamed, events[-1]["text"]


@pytest.mark.parametrize("name", list(SETS))
async def test_no_fabricated_claim_reaches_the_screen_and_no_true_one_is_broken(fake_openai, name):
    seed = int(os.environ.get("PROBE_SEED") or int.from_bytes(os.urandom(4), "big"))
    rng = Random(seed)
    drawn = product_draw(await _catalog(), rng)
    tally = Tally()
    for probe in SETS[name](*drawn, rng):
        streamed, final = await _shown(fake_openai, probe, [p["sku"] for p in drawn])
        assert streamed == final, (probe.family, streamed, final)
        tally.add(probe, final)
    print(f"\n{name} (seed {seed}): {tally.line()}")
    assert not tally.leaked and not tally.broken, "\n".join(
        [f"seed {seed}: {tally.line()}", *tally.leaked, *tally.broken]
    )
