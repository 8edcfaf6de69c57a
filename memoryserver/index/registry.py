"""The loaded users' indexes: an LRU bounded by the total number of vectors held."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.conf import settings

from memoryserver.index.rwlock import RWLock
from memoryserver.index.slot import UserIndex


class IndexRegistry:
    """LRU of loaded user indexes, bounded by the total number of vectors held.

    Searches share the read lock; loads and every mutation take the write lock.
    """

    def __init__(self, max_blocks: int) -> None:
        self.max_blocks = max_blocks
        self.lock = RWLock()
        self._users: OrderedDict[str, UserIndex] = OrderedDict()

    @contextmanager
    def reading(self, user_id: str, loader: Callable[[], UserIndex]) -> Iterator[UserIndex]:
        """Yield the user's index under the read lock, loading it first when absent."""
        while True:
            with self.lock.read():
                index = self._users.get(user_id)
                if index is not None:
                    yield index
                    return
            with self.lock.write():
                if user_id not in self._users:
                    self._users[user_id] = loader()
                    self._evict(keep=user_id)

    def loaded(self, user_id: str) -> UserIndex | None:
        """The user's index if loaded; call under `lock.write()` to mutate it."""
        index = self._users.get(user_id)
        if index is not None:
            self._users.move_to_end(user_id)
        return index

    def drop(self, user_id: str) -> None:
        with self.lock.write():
            self._users.pop(user_id, None)

    def clear(self) -> None:
        with self.lock.write():
            self._users.clear()

    def _evict(self, keep: str) -> None:
        total = sum(len(i) for i in self._users.values())
        for user_id in list(self._users):
            if total <= self.max_blocks:
                break
            if user_id != keep:
                total -= len(self._users.pop(user_id))


_registry: IndexRegistry | None = None
_registry_lock = threading.Lock()


def get_registry() -> IndexRegistry:
    """The process's one registry, sized by AGENT_MEMORY_INDEX_MAX_BLOCKS."""
    global _registry
    with _registry_lock:
        if _registry is None:
            _registry = IndexRegistry(settings.AGENT_MEMORY_INDEX_MAX_BLOCKS)
        return _registry
