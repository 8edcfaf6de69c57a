"""The loaded users' indexes: an LRU bounded by the total number of vectors held.

Locking is per user. The registry's own mutex guards only its table of slots and is never
held while a user's vectors load or while anyone searches, so a cold user loading (seconds at
100k blocks) never holds up another user's search or write. Each slot has a writer-preferring
readers-writer lock (`SlotLock`): searches of that user share it, changes to that user's index
take it alone, and once a writer waits, new searches queue behind it instead of starving it.

A first search inserts the user's slot with its write lock already held and loads outside
the mutex (double-checked: a second search of the same user finds the slot and waits on that
user's lock only). Writes commit to SQLite first and then apply their change to the slot: if
the slot is still loading, the change is queued and the loader replays it after its read, in
commit order, so a write that the load's read missed is not lost and a writer never waits for
a load. Every change (`upsert`, `remove`, `set_fields`, ...) sets absolute state, so replaying
one the load already saw is harmless.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.conf import settings
from readerwriterlock.rwlock import Lockable, RWLockWrite

from memoryserver.index.slot import UserIndex

# Writer-preferring: a waiting writer blocks new readers, so a stream of searches cannot
# starve a write (tests/memoryserver/test_index_locking.py).
SlotLock = RWLockWrite

IndexChange = Callable[[UserIndex], object]


@dataclass
class _Slot:
    lock: SlotLock = field(default_factory=SlotLock)
    index: UserIndex | None = None  # None while loading, or after a failed load
    pending: list[IndexChange] = field(default_factory=list)  # changes made while loading
    # The write hold its loader keeps from insertion until the load is done.
    loading: Lockable = field(init=False)

    def __post_init__(self) -> None:
        self.loading = self.lock.gen_wlock()


class IndexRegistry:
    """LRU of loaded user indexes, bounded by the total number of vectors held."""

    def __init__(self, max_blocks: int) -> None:
        self.max_blocks = max_blocks
        self._mutex = threading.Lock()
        self._slots: OrderedDict[str, _Slot] = OrderedDict()

    @contextmanager
    def reading(self, user_id: str, loader: Callable[[], UserIndex]) -> Iterator[UserIndex]:
        """Yield the user's index under that user's read lock, loading it first when absent.

        `loader` runs outside the registry's mutex, holding only this user's write lock.
        """
        while True:
            slot, mine = self._slot(user_id)
            if mine:
                self._load(user_id, slot, loader)
            with slot.lock.gen_rlock():
                if slot.index is not None:
                    yield slot.index
                    return
            # The load failed in the thread that ran it (its caller got the error): retry.

    def change(self, user_id: str, apply: IndexChange) -> None:
        """Apply a committed change to the user's index when loaded or loading.

        Absent users need nothing: their next load reads the committed rows.
        """
        with self._mutex:
            slot = self._slots.get(user_id)
            if slot is None:
                return
            if slot.index is None:
                slot.pending.append(apply)
                return
        with slot.lock.gen_wlock():
            if slot.index is not None:
                apply(slot.index)

    def loaded(self, user_id: str) -> UserIndex | None:
        """The user's index if loaded (None while absent or loading); for inspection only:
        reading or changing it goes through `reading` and `change`, under the user's lock."""
        with self._mutex:
            slot = self._slots.get(user_id)
            return slot.index if slot is not None else None

    def drop(self, user_id: str) -> None:
        with self._mutex:
            self._slots.pop(user_id, None)

    def clear(self) -> None:
        with self._mutex:
            self._slots.clear()

    def _slot(self, user_id: str) -> tuple[_Slot, bool]:
        """The user's slot, and whether this caller inserted it and must load it."""
        with self._mutex:
            slot = self._slots.get(user_id)
            if slot is not None:
                self._slots.move_to_end(user_id)
                return slot, False
            slot = _Slot()
            # Nobody else can see the slot yet, so this never waits; searches of this user
            # then wait on it until the load is done.
            slot.loading.acquire()
            self._slots[user_id] = slot
            return slot, True

    def _load(self, user_id: str, slot: _Slot, loader: Callable[[], UserIndex]) -> None:
        try:
            index = loader()
        except BaseException:
            with self._mutex:
                if self._slots.get(user_id) is slot:
                    del self._slots[user_id]
                slot.pending.clear()
            slot.loading.release()
            raise
        with self._mutex:
            # Changes committed while loading, in commit order; from here on writers wait
            # for this slot's write lock instead of queueing.
            for apply in slot.pending:
                apply(index)
            slot.pending.clear()
            slot.index = index
            self._evict(keep=user_id)
        slot.loading.release()

    def _evict(self, keep: str) -> None:
        """Drop least recently used users until the vectors held fit; call under the mutex.

        A dropped slot's in-flight searches and writes finish on the object they hold; the
        next request loads the user again from SQLite.
        """
        total = sum(len(s.index) for s in self._slots.values() if s.index is not None)
        for user_id in list(self._slots):
            if total <= self.max_blocks:
                break
            slot = self._slots[user_id]
            if user_id != keep and slot.index is not None:
                total -= len(slot.index)
                del self._slots[user_id]


_registry: IndexRegistry | None = None
_registry_lock = threading.Lock()


def get_registry() -> IndexRegistry:
    """The process's one registry, sized by AGENT_MEMORY_INDEX_MAX_BLOCKS."""
    global _registry
    with _registry_lock:
        if _registry is None:
            _registry = IndexRegistry(settings.AGENT_MEMORY_INDEX_MAX_BLOCKS)
        return _registry
