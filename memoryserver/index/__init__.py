"""The in-memory per-user vector index: `slot` (one user's matrix and filter columns),
`registry` (the loaded users, LRU-bounded, behind a readers-writer lock) and `rwlock`.
"""
