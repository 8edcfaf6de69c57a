"""What several benchmarks share; each benchmark's own parts live in a package of its own."""
