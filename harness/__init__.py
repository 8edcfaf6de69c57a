"""What the tests and the benchmarks both run: the project's servers started as real
processes on loopback, a scripted OpenAI-compatible endpoint, and shopper-like texts.

- `memoryserver`: `python -m memoryserver` on a free port, waited for until healthy;
- `daphne`: the shop under daphne, as `make run` serves it;
- `fake_openai`: the scripted model endpoint for the real `openai` SDK path;
- `shopper_texts`: deterministic queries, facts and turns for embedder measurements;
- `ports`: loopback ports no other test worker or the kernel hands out.

It imports nothing of `tests/` or `benchmarks/`, so either can use it.
"""
