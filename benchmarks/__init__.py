"""The benchmarks: each module directly in this package is one, run from the project's root
as `python -m benchmarks.<name> [--help]`; `make bench` runs every one with its defaults.

A benchmark's parts live in a package of its own (`recall/` for `memory_recall`,
`memory_server/` for `agent_memory_server`, `overhead/` for `turn_overhead`, `cost/` for
`turn_cost`), what several share in `support/`; the servers and the scripted model they
start come from `harness/`, as the tests' do. `tests/test_architecture.py` holds the rules.
Figures and how they were taken: `docs/benchmarks.md`.
"""
