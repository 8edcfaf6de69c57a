"""What shoppers shop for: the occasions' names, their fact phrases and their hints."""

from __future__ import annotations

# Each occasion's phrase in a fact sentence ("Shops for a wedding."), by its key: the keys are
# the closed list's slots (`occasion/<key>`).
OCCASION_PHRASES: dict[str, str] = {
    "wedding": "a wedding", "interview": "a job interview", "hiking": "hiking",
    "running": "running", "beach": "the beach", "party": "a party", "travel": "travel",
    "holiday": "a holiday", "festival": "a festival", "funeral": "a funeral",
    "office": "the office", "work": "work", "ski": "a ski trip", "camping": "camping",
    "date": "a date", "gym": "the gym", "formal": "a formal event", "business": "business",
    "cycling": "cycling", "yoga": "yoga", "winter": "winter", "summer": "summer",
    "christmas": "Christmas", "graduation": "a graduation", "christening": "a christening",
    "prom": "a prom", "dinner": "a dinner", "marathon": "a marathon", "gala": "a gala",
}  # fmt: skip
# What shoppers call an occasion, each with its key.
OCCASIONS: dict[str, str] = {
    "wedding": "wedding", "weddings": "wedding", "getting married": "wedding",
    "get married": "wedding", "job interview": "interview", "interview": "interview",
    "interviews": "interview", "hiking": "hiking", "hike": "hiking", "hikes": "hiking",
    "trekking": "hiking", "hiking trip": "hiking", "running": "running", "jogging": "running",
    "half marathon": "marathon", "marathon": "marathon", "beach": "beach",
    "beach trip": "beach", "party": "party", "parties": "party", "birthday party": "party",
    "travel": "travel", "travelling": "travel", "traveling": "travel", "trip": "travel",
    "road trip": "travel", "holiday": "holiday", "holidays": "holiday", "vacation": "holiday",
    "festival": "festival", "festivals": "festival", "funeral": "funeral", "office": "office",
    "for work": "work", "at work": "work", "to work": "work", "work clothes": "work",
    "workwear": "work", "work wear": "work", "work outfits": "work", "new job": "work",
    "ski trip": "ski", "skiing trip": "ski", "skiing": "ski", "ski": "ski",
    "camping": "camping", "camping trip": "camping", "date night": "date", "a date": "date",
    "first date": "date", "gym": "gym", "formal event": "formal", "formal occasion": "formal",
    "black tie": "formal", "black-tie": "formal", "business trip": "business",
    "business meeting": "business", "cycling": "cycling", "bike rides": "cycling",
    "yoga": "yoga", "for winter": "winter", "this winter": "winter", "the winter": "winter",
    "for summer": "summer", "this summer": "summer", "the summer": "summer",
    "christmas": "christmas", "graduation": "graduation", "christening": "christening",
    "baptism": "christening", "prom": "prom", "dinner": "dinner", "gala": "gala",
}  # fmt: skip
# Alone, these name a season, a weather or a manner as often as an occasion ("formal
# shirts", "a summer dress"): a request reads them as what it is for, while a statement
# about the shopper needs the longer phrase above ("for winter") to be a standing fact.
OCCASIONS_IN_REQUESTS: dict[str, str] = {
    "winter": "winter", "summer": "summer", "spring": "spring", "autumn": "autumn",
    "rain": "rain", "rainy": "rain", "formal": "formal", "casual": "casual",
    "business": "business",
}  # fmt: skip
# Words that show a message is about an occasion without naming it ("the bride's side" is a
# wedding): evidence that a fact about it was said, never read as the occasion itself.
_OCCASION_HINTS: dict[str, tuple[str, ...]] = {
    "wedding": ("married", "bride", "groom"),
    "hiking": ("trek", "walking"),
    "running": ("run", "jog", "marathon"),
    "travel": ("journey",),
    "holiday": ("getaway",),
    "work": ("job", "office"),
    "office": ("work",),
    "ski": ("slopes",),
    "date": ("dating",),
    "formal": ("gala",),
    "business": ("meeting", "conference"),
    "cycling": ("bike", "biking", "cycle"),
}


def occasion_evidence(key: str) -> tuple[str, ...]:
    """Every word a message may use for the occasion `key`: its names, its phrase, its hints."""
    names = [word for word, named in (OCCASIONS | OCCASIONS_IN_REQUESTS).items() if named == key]
    phrase = OCCASION_PHRASES.get(key)
    return (*names, *([phrase] if phrase else []), *_OCCASION_HINTS.get(key, ()))


def occasion_evidence_words() -> set[str]:
    """Every word that may show a message is about some occasion."""
    return {word for key in OCCASION_PHRASES for word in occasion_evidence(key)} | set(
        OCCASION_PHRASES
    )
