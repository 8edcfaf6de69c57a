"""The parts of `python -m benchmarks.turn_cost`: the visit's script (`script`)."""
