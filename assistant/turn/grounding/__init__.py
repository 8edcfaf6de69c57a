"""The grounding check: an answer's factual claims, held against this turn's catalog data.

Between any model and the shopper (design section 6). The catalog is the only source of
prices, stock and sizes; a model, hosted or offline, may still write a wrong price, a stock
count it made up, a colour that is sold out, or a product it remembers from another visit.
Each sentence is checked before the shopper sees it, against the evidence of this turn:
what the tools returned, the page's product lookup, and the figures the shopper gave.

What is checked, per sentence (a list line counts as one), each claim against the product
it is about (`assistant.turn.grounding.sentence`, its readers in
`assistant.turn.grounding.reading`):
- money in any currency and in words: that product's price; a limit, the shopper's figure;
  a difference, two named products' prices; offers and delivery or returns promises never;
- stock counts ("3 left", "50 in navy"), availability ("we have it in M", "every size"),
  lists of sizes or colours, from its variants in the colour and size named;
- product names given as results (bold or linked): exactly a product a tool returned.
An unbacked claim is corrected from the data when it can be; otherwise the sentence is
dropped, and so is one stating a figure about a product that nothing reads. A short honest
line is said once per kind, after the answer. Claims of style or fit ("perfect for summer")
are not facts the catalog holds: they pass. The evidence is `assistant.turn.grounding.evidence`.

`AnswerGrounder` does this as text streams: a sentence is released once it is complete and
checked, so the shopper still reads the answer as it is written.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from assistant.turn.grounding.evidence import Evidence, Product
from assistant.turn.grounding.reading import AVAILABLE, POLICY
from assistant.turn.grounding.sentence import KINDS, Checked, Claim, Kind, Verdict, sentence_check
from llm.shopper_words import CURRENCY_WORD, LETTER_SIZE_ALTERNATIVES, NUMBER_PHRASE

__all__ = ["KINDS", "Checked", "Claim", "Kind", "Verdict", "sentence_check"]

# Said once per kind, in a paragraph of its own after the answer, when a claim was dropped.
DROPPED_LINES: dict[Kind, str] = {
    "price": "(I've left out a price I couldn't confirm in the catalog.)",
    "stock": "(I've left out a stock figure I couldn't confirm; the product page shows what's in stock.)",
    "availability": "(I've left out an availability detail I couldn't confirm in the catalog.)",
    "sizes": "(I've left out sizes I couldn't confirm in the catalog.)",
    "colours": "(I've left out colours I couldn't confirm in the catalog.)",
    "name": "(I've left out a product I couldn't find in this turn's catalog results.)",
    "offer": "(I've left out an offer I couldn't confirm: the catalog lists no discounts or codes.)",
    "policy": "(I've left out a delivery or returns promise I couldn't confirm.)",
    "figure": "(I've left out a figure I couldn't confirm in the catalog.)",
}


# --- streaming ----------------------------------------------------------------------------

# A sentence ends at . ! or ? before white space, or at a line break (a list line).
_BOUNDARY = re.compile(r"[.!?](?=\s)\s*|\n\s*")
# Held longer than this without a sentence's end, text is released a clause at a time, but
# only clauses that claim nothing: the rest of the sentence is checked whole, so a claim is
# never read apart from its sentence's product, colour and size.
MAX_HELD_CHARS = 160
# Past this, a sentence that never ends is checked and released as far as its last clause.
MAX_HOLD_CHARS = 1200
_SIGNAL = re.compile(
    rf"\d|[€£$*\[]|\b(?:{LETTER_SIZE_ALTERNATIVES})\b|"
    + NUMBER_PHRASE.pattern
    + "|"
    + CURRENCY_WORD.pattern,
    re.I,
)


def _cut_at(text: str, limit: int) -> int:
    """Where to cut a sentence too long to hold: after its last clause, else its last word."""
    window = text[:limit]
    clause = max(window.rfind(mark) for mark in (", ", "; ", ": ", " — "))
    if clause > 0:
        return clause + 2
    space = window.rfind(" ")
    return space + 1 if space > 0 else limit


def _claims_nothing(text: str, evidence: Evidence) -> bool:
    """No figure, name, colour, size, stock or policy word: nothing the check reads."""
    if _SIGNAL.search(text) or AVAILABLE.search(text) or POLICY.search(text):
        return False
    lowered = text.lower()
    return not any(re.search(rf"\b{re.escape(c)}\b", lowered) for c in evidence.colours)


@dataclass
class GroundingReport:
    """Counts per verdict and per kind, for the inspector and the chat record."""

    claims: list[Claim] = field(default_factory=list)
    check_ms: float = 0.0
    # The kinds whose honest line this answer has said (its rounds share one report).
    said: set[str] = field(default_factory=set)

    def counts(self) -> dict[str, int]:
        result = {"checked": len(self.claims), "backed": 0, "corrected": 0, "dropped": 0}
        for claim in self.claims:
            result[claim.verdict] += 1
        return result

    def span_name(self) -> str:
        """The verdicts as the inspector's timeline names them."""
        counts = self.counts()
        return (
            f"grounding: {counts['checked']} claims, {counts['corrected']} corrected, "
            f"{counts['dropped']} dropped"
        )

    def by_kind(self) -> dict[str, dict[str, int]]:
        kinds: dict[str, dict[str, int]] = {}
        for claim in self.claims:
            kinds.setdefault(claim.kind, {}).setdefault(claim.verdict, 0)
            kinds[claim.kind][claim.verdict] += 1
        return kinds


class AnswerGrounder:
    """Hold streamed text until a sentence is complete, check it, then release it.

    A dropped claim's honest line is said at the end (`flush`), once per kind, in a
    paragraph of its own: never in place of the sentence, so it never lands inside a list.
    """

    def __init__(self, evidence: Evidence, report: GroundingReport | None = None) -> None:
        self.evidence = evidence
        self.report = report if report is not None else GroundingReport()
        self._held = ""
        self._context: Product | None = None
        self._dropped: list[Kind] = []
        self._released = ""

    def feed(self, text: str) -> str:
        self._held += text
        out: list[str] = []
        while True:
            boundary = _BOUNDARY.search(self._held)
            # White space at the very end may go on: wait for what follows it.
            if boundary is None or boundary.end() == len(self._held):
                break
            sentence, self._held = self._held[: boundary.end()], self._held[boundary.end() :]
            out.append(self._check(sentence))
        if len(self._held) > MAX_HELD_CHARS:
            # A sentence that will not end (a model that never stops one) still streams: a
            # leading clause that claims nothing is released; a claim waits for its sentence.
            cut = _cut_at(self._held, MAX_HELD_CHARS)
            if _claims_nothing(self._held[:cut], self.evidence):
                piece, self._held = self._held[:cut], self._held[cut:]
                out.append(self._check(piece))
            elif len(self._held) > MAX_HOLD_CHARS:
                cut = _cut_at(self._held, MAX_HOLD_CHARS)
                piece, self._held = self._held[:cut], self._held[cut:]
                out.append(self._check(piece))
        return self._out("".join(out))

    def flush(self) -> str:
        sentence, self._held = self._held, ""
        text = self._check(sentence) if sentence else ""
        kinds = [kind for kind in self._dropped if kind not in self.report.said]
        self.report.said.update(kinds)
        self._dropped = []
        if kinds:
            lines = " ".join(DROPPED_LINES[kind] for kind in kinds)
            so_far = self._released + text
            if not so_far.strip() or so_far.endswith("\n\n"):
                gap = ""
            else:
                gap = "\n" if so_far.endswith("\n") else "\n\n"
            text += gap + lines
        return self._out(text)

    def _out(self, text: str) -> str:
        self._released += text
        return text

    def _check(self, sentence: str) -> str:
        started = time.perf_counter()
        if not sentence.strip():
            return sentence
        context = self._context or self._only_product()
        checked = sentence_check(sentence, self.evidence, context=context)
        self.report.claims.extend(checked.claims)
        named = self.evidence.named(checked.text)
        if named:
            self._context = named[-1][1]
        self.report.check_ms += (time.perf_counter() - started) * 1000
        if checked.dropped is None:
            return checked.text
        if checked.dropped not in self._dropped:
            self._dropped.append(checked.dropped)
        # A dropped line of a list takes its line break with it; a sentence, its space.
        return ""

    def _only_product(self) -> Product | None:
        products = list(self.evidence.products.values())
        return products[0] if len(products) == 1 else None


def answer_ground(text: str, evidence: Evidence) -> tuple[str, GroundingReport]:
    """The whole answer checked at once (the same result as streaming it)."""
    grounder = AnswerGrounder(evidence)
    checked = grounder.feed(text) + grounder.flush()
    return checked, grounder.report
