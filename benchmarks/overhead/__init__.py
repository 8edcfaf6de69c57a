"""The parts of `python -m benchmarks.turn_overhead`: what both parts share (`common`: the
temporary folder and settings, the messages, the figures' format, the memory server), and
part 2, many shoppers chatting at once over loopback (`shoppers`)."""
