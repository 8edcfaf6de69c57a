"""The in-memory per-user vector index: `slot` (one user's matrix and filter columns),
`registry` (the loaded users, LRU-bounded, each behind its own writer-preferring lock).
"""
