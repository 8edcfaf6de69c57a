"""One judged fact, as the judge role returns it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Judged:
    """One fact: where it was said (for ordering), its sentence, category, slot and value."""

    position: int
    fact: str
    category: str
    slot: str
    value: str

    def as_dict(self) -> dict[str, str]:
        return {
            "fact": self.fact,
            "category": self.category,
            "slot": self.slot,
            "value": self.value,
        }
