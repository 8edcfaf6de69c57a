"""Benchmark whether a returning shopper's reference to an earlier visit reaches the model.

    .venv/bin/python -m benchmarks.notes_reach [--gaps 1,3] [--embedder minilm]
        [--floors 0,1,2,3,4] [--budgets 800,900,1000,1100,1200]

Scenarios: for each of ten requests (a linen shirt, chinos, a light jacket, ...), a shopper
makes it on a visit of five turns (with two statements about themselves, which become
facts), then has --gaps other visits of five turns, then comes back and, four turns into
the visit (its verbatim window full), refers to it: the products the assistant showed ("the linen shirt you showed me last time, in L?") or what
they asked for ("last time I asked about boots for the office"). Everything runs through
the turn pipeline with the scripted hosted model and the memory server's extraction of
benchmarks/turn_cost.py, against 127.0.0.1 with temporary databases.

Each return-visit turn's recall is kept before the budget (`memoryapp.recall` calls
`notes_budgeted`; the script keeps what it is given) and budgeted again offline for every
earlier-visit floor (--floors) and budget (--budgets). Printed for each: the reference turns
whose notes name what the reference is about (a product the earlier turn showed, or the
words the shopper asked with there) in a line of an earlier visit, the return-visit turns
whose notes carry any exchange of an earlier visit, and the notes' tokens (p50 / p95).
"""

from __future__ import annotations

import argparse
import asyncio
import json

from benchmarks.turn_cost import Endpoint, _extraction_settled, pct, stack_start

# (what the shopper asked on the earlier visit, how they refer to it coming back, about what)
REFERENCES = [
    (
        "hi, I need a linen shirt for summer",
        "the linen shirt you showed me last time, in L?",
        "shown",
    ),
    ("show me chinos to go with it", "those chinos from my last visit, still in stock?", "shown"),
    (
        "what about a light jacket for evenings",
        "I'm back for the light jacket you showed me",
        "shown",
    ),
    ("any sandals for the beach", "which sandals did you suggest on my last visit?", "shown"),
    ("black boots for the office", "last time I asked about boots for the office", "asked"),
    ("a dress for a summer wedding", "what was I looking for last time, for the wedding?", "asked"),
    (
        "running shoes under 100 euros",
        "the running shoes from before, which was cheapest?",
        "shown",
    ),
    (
        "any waterproof jackets for hiking?",
        "the waterproof jackets you showed me, any in green?",
        "shown",
    ),
    ("a warm jumper", "the jumper you showed me before, does it come in navy?", "shown"),
    ("a scarf for autumn", "what did I ask you for on my last visit? a scarf?", "asked"),
]
OTHERS = [
    "show me t-shirts in white",
    "jeans with a slim fit",
    "shorts for the gym",
    "a belt in brown",
    "socks, a few pairs",
    "something in green",
    "a polo shirt",
    "trainers in white",
]
STATEMENTS = ["I'm a size M by the way", "I really don't like yellow", "I wear 42 in shoes"]


def visits_for(index: int, gap: int) -> tuple[list[list[str]], int]:
    """A scenario's visits, and the turn (counted over all visits) of the reference."""
    target, reference, _ = REFERENCES[index]
    others = OTHERS[index % len(OTHERS) :] + OTHERS[: index % len(OTHERS)]
    first = [others[0], STATEMENTS[index % 3], target, STATEMENTS[(index + 1) % 3], others[1]]
    between = [[others[(2 + v * 5 + i) % len(others)] for i in range(5)] for v in range(gap)]
    # Late in the visit, so the verbatim window is full (three four-product answers) and
    # the facts are in: the notes' p95 turn, where the budget has least room.
    back = ["hi again", *others[5:8], reference, "thanks"]
    visits = [first, *between, back]
    return visits, sum(len(v) for v in visits[:-1]) + 4


async def scenario_run(*, index: int, gap: int, endpoint: Endpoint, recorded: dict) -> dict:
    from asgiref.sync import sync_to_async
    from django.contrib.auth import get_user_model

    from assistant.protocol.validation import CloseRequest, TurnRequest
    from assistant.turn.pipeline import conversation_close, turn_run
    from shop.services import shopper_get_or_create

    username = f"reach-{index}-{gap}"
    await sync_to_async(shopper_get_or_create)(username=username, display_name="Rae")
    user = await sync_to_async(get_user_model().objects.get)(username=username)
    visits, reference_turn = visits_for(index, gap)
    number = 0
    for visit, texts in enumerate(visits):
        session_id = None
        for i, text in enumerate(texts):
            endpoint.turn = (username, number)
            recorded["turn"] = (username, number, visit > 0)
            request = TurnRequest(text=text, session_id=session_id, turn_count=i)
            async for event in turn_run(user=user, request=request):
                if event.type == "session":
                    session_id = event.session_id
            await _extraction_settled(endpoint, username, number)
            number += 1
        endpoint.turn = (username, -visit - 1)
        await conversation_close(user=user, request=CloseRequest(session_id=session_id))
    target_turn = 2
    shown = []
    for turn, role, body in endpoint.calls:
        if turn == (username, target_turn) and role == "assistant":
            tool = next((m for m in body["messages"] if m.get("role") == "tool"), None)
            if tool:
                shown = [p["name"] for p in json.loads(tool["content"]).get("products") or []]
    target, _, kind = REFERENCES[index]
    return {
        "username": username,
        "turn": reference_turn,
        "kind": kind,
        "target": target,
        "shown": shown[:4],
    }


def reached(lines: list[str], case: dict) -> bool:
    from llm.note_lines import EARLIER_VISIT, PAST_VISIT_SUMMARY

    earlier = [
        line.lower()
        for line in lines
        if line.startswith((f"[{EARLIER_VISIT} ", f"[{PAST_VISIT_SUMMARY} "))
    ]
    wanted = [case["target"].lower().rstrip("?")]
    if case["kind"] == "shown":
        wanted = [name.lower() for name in case["shown"]] or wanted
    return any(w in line for line in earlier for w in wanted)


def report(recorded: dict, cases: list[dict], floors: list[int], budgets: list[int]) -> None:
    from llm.note_lines import EARLIER_VISIT
    from memoryapp import notes_budget
    from memoryapp.fence import notes_message
    from memoryapp.render import tokens_estimate

    references = {(c["username"], c["turn"]): c for c in cases}
    returns = {key: items for key, (items, back) in recorded["items"].items() if back}
    print(f"\n{len(references)} reference turns, {len(returns)} return-visit turns")
    print(
        f"  {'floor':>5} {'budget':>6}  {'references reached':>19}  {'carry earlier':>13}"
        f"  {'notes p50 / p95':>16}"
    )
    saved = notes_budget.EARLIER_VISIT_FLOOR
    try:
        for floor in floors:
            notes_budget.EARLIER_VISIT_FLOOR = floor
            for budget in budgets:
                hits = carry = 0
                sizes = []
                for key, items in returns.items():
                    lines = [i.line for i in notes_budget.notes_budgeted(items, max_tokens=budget)]
                    sizes.append(tokens_estimate(notes_message(lines) or ""))
                    carry += any(line.startswith(f"[{EARLIER_VISIT} ") for line in lines)
                    if key in references:
                        hits += reached(lines, references[key])
                print(
                    f"  {floor:>5} {budget:>6}  {hits:>9} of {len(references):<6}"
                    f"  {carry:>5} of {len(returns):<4}"
                    f"  {pct(sizes, 50):>7.0f} / {pct(sizes, 95):<6.0f}"
                )
    finally:
        notes_budget.EARLIER_VISIT_FLOOR = saved
    unbudgeted = [reached([i.line for i in returns[k]], c) for k, c in references.items()]
    print(f"  without a budget: {sum(unbudgeted)} of {len(references)} references reached")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--gaps", default="1,3", type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument(
        "--floors", default="0,1,2,3,4", type=lambda s: [int(x) for x in s.split(",")]
    )
    parser.add_argument(
        "--budgets", default="800,900,1000,1100,1200", type=lambda s: [int(x) for x in s.split(",")]
    )
    args = parser.parse_args()
    endpoint, _ = stack_start(embedder=args.embedder, shop_prefix="aisle-bench-reach-shop-")

    from memoryapp import notes_budget, recall

    recorded: dict = {"items": {}, "turn": None}
    budgeted = notes_budget.notes_budgeted

    def keep(items, *, max_tokens):
        username, number, back = recorded["turn"]
        recorded["items"][(username, number)] = (list(items), back)
        return budgeted(items, max_tokens=max_tokens)

    recall.notes_budgeted = keep
    cases: list[dict] = []

    async def everything() -> None:
        from memoryapp.public import ShopperMemory

        for gap in args.gaps:
            for index in range(len(REFERENCES)):
                cases.append(
                    await scenario_run(index=index, gap=gap, endpoint=endpoint, recorded=recorded)
                )
        await ShopperMemory.clients_close()

    asyncio.run(everything())
    print(f"{len(cases)} scenarios, {args.embedder} embedder, gaps {args.gaps}")
    report(recorded, cases, args.floors, args.budgets)
    endpoint.fake.stop()


if __name__ == "__main__":
    main()
