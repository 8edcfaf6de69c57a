"""The lexicon of habit, fondness and discomfort as everyday speech says them: frequency
adverbs with verbs of buying and wearing ("I usually order from", "I keep going back to"),
possessive frames ("my go-to", "my signature colour", "so me"), idioms of fondness ("a soft
spot for", "can't get enough of", "I live in"), quantity frames ("most of my wardrobe is"),
and what a fabric does to the skin ("makes my skin crawl", "gives me eczema").

Phrases are built from parts, so a new adverb or verb reaches every frame it fits.
"""

from __future__ import annotations

import re

from llm.offline.judge.words import GARMENT_NOUNS

# A frequency negated is no dislike: "I don't always buy Zara" says nothing sure.
FREQUENCY_WORDS = frozenset(
    "always usually mostly normally generally typically often mainly nearly almost tend "
    "keep end regularly".split()
)
# How often: "always", "mostly"... each takes a verb's plain form; "keep", "end up" its -ing.
_FREQUENCY = (
    "always", "usually", "mostly", "normally", "generally", "typically", "often", "mainly",
    "nearly always", "almost always", "tend to", "always tend to", "still", "regularly",
)  # fmt: skip
_RECURRING = ("keep", "keep on", "end up", "always end up", "usually end up", "still keep")
_VERBS = {
    # plain form: -ing form; a brand or a term follows.
    "buy": "buying", "buy from": "buying from", "order": "ordering",
    "order from": "ordering from", "shop at": "shopping at", "shop from": "shopping from",
    "shop with": "shopping with", "get my clothes from": "getting my clothes from",
    "go for": "going for", "reach for": "reaching for", "pick": "picking", "choose": "choosing",
    "wear": "wearing", "go back to": "going back to", "come back to": "coming back to",
    "head to": "heading to", "head straight to": "heading straight to",
    "go straight to": "going straight to", "return to": "returning to",
    "end up with": "ending up with", "end up in": "ending up in", "gravitate to": "gravitating to",
    "gravitate towards": "gravitating towards", "gravitate toward": "gravitating toward",
    "stick with": "sticking with", "stick to": "sticking to", "live in": "living in",
}  # fmt: skip
HABIT_PHRASES = (
    *(f"{often} {verb}" for often in _FREQUENCY for verb in _VERBS),
    *(f"{again} {ing}" for again in _RECURRING for ing in _VERBS.values()),
    *(f"been {ing}" for ing in _VERBS.values()),
    # A habit kept up: "I've stuck with Asics for a decade", "I stayed loyal to Clarks".
    "end up in",
    "ends up in",
    "stuck with",
    "stuck to",
    "stayed with",
    "stayed loyal to",
    "stayed faithful to",
    "sticking with",
    "sticking to",
    "go straight to",
    "head straight to",
    "gravitate to",
    "gravitate toward",
    "gravitating towards",
    "gravitating to",
)
# Fondness said with an idiom before the word: "a soft spot for yellow", "mad about orange",
# "I live in navy" (a colour one is always seen in).
FONDNESS_PHRASES = (
    "can't get enough of",
    "cannot get enough of",
    "can never get enough of",
    "never get enough of",
    "soft spot for",
    "a soft spot for",
    "sucker for",
    "a sucker for",
    "partial to",
    "crazy about",
    "mad about",
    "nuts about",
    "wild about",
    "keen on",
    "big fan of",
    "huge fan of",
    "drawn to",
    "always drawn to",
    "live in",
    "lives in",
    "basically live in",
    "practically live in",
    "pretty much live in",
    "love me some",
    "can never have too much",
    "never have too much",
    "can't have too much",
    "can never have enough",
    "can't have enough",
    "hooked on",
    "a thing for",
    "mad for",
    "crazy for",
    "nuts for",
    "wild for",
    "all for",
    "nothing but",
    "wear nothing but",
    "buy nothing but",
    "bought nothing but",
    "worn nothing but",
)
# A noun for a loyal customer, said after the brand: "a Uniqlo loyalist", "an Adidas wearer".
LOYALIST_NOUNS = ("loyalist", "devotee", "addict", "fanatic", "diehard", "die-hard", "wearer",
                  "regular", "convert", "stan", "superfan", "lover", "dresser")  # fmt: skip
# "Uniqlo is where I get my basics": the place the shopper keeps going to.
WHERE_I_PHRASES = tuple(
    f"{be} where i {often}{verb}"
    for be in ("is", "are", "'s")
    for often in ("", "always ", "usually ", "mostly ")
    for verb in ("get", "buy", "shop", "go")
)
# Fondness said after the word: "mustard suits my skin tone", "lavender makes me happy".
FONDNESS_AFTER = (
    *(f"{verb} my {what}" for verb in ("suits", "suit", "goes with", "go with", "works with",
                                       "work with", "flatters", "flatter")
      for what in ("skin tone", "colouring", "coloring", "complexion", "skin", "hair", "eyes",
                   "feet", "shape", "figure", "body", "frame", "build")),
    *(f"{verb} {good} on me" for verb in ("feels", "feel", "looks", "look")
      for good in ("amazing", "gorgeous", "fantastic", "wonderful", "so good", "lovely", "great",
                   "incredible", "perfect", "brilliant", "beautiful")),
    "makes me happy", "make me happy", "makes me smile", "make me smile", "makes me feel good",
    "make me feel good", "cheers me up", "cheer me up",
)  # fmt: skip
# A possessive frame judges the word before it: "burgundy is my jam", "red is my signature
# colour", "sage is so me". Each also reads before its word ("my go-to is Levi's").
_MINE = ("jam", "signature colour", "signature color", "signature", "default", "usual",
         "staple", "fallback", "safe bet", "comfort zone", "kind of colour", "kind of color",
         "kind of thing", "colours", "colors", "shade", "signature shade", "everyday colour",
         "fabric", "material", "fibre", "fiber", "brand", "label", "store", "shop", "vibe",
         "aesthetic", "look")  # fmt: skip
POSSESSIVE_PHRASES = (
    *(f"my {noun}" for noun in _MINE),
    *(f"my {adjective} {noun}" for adjective in ("absolute", "all-time", "usual", "go-to")
      for noun in ("colour", "color", "shade", "brand", "label", "favourite", "favorite")),
    "so me", "very me", "totally me", "really me", "just me", "100% me",
)  # fmt: skip
# What a fabric does to the shopper's skin, said after it ("acrylic makes my skin crawl",
# "polyester feels clammy on me"), and a symptom said before it ("eczema from synthetics").
_SYMPTOMS = ("a rash", "rashes", "hives", "eczema", "spots", "a reaction", "reactions",
             "an allergy", "dermatitis", "irritation", "itchy skin", "red skin", "bumps")  # fmt: skip
_FEELINGS = ("sticky", "sweaty", "clammy", "itchy", "hot", "scratchy", "gross", "horrible",
             "awful", "rough", "uncomfortable", "suffocated", "sweltering", "prickly")  # fmt: skip
DISCOMFORT_AFTER = (
    *(f"{verb} me {symptom}" for verb in ("gives", "give", "gave") for symptom in _SYMPTOMS),
    *(f"{verb} me feel {feeling}" for verb in ("makes", "make") for feeling in _FEELINGS),
    *(f"{verb} {feeling} on me" for verb in ("feels", "feel", "is", "are", "gets", "get")
      for feeling in _FEELINGS),
    *(f"{verb} {feeling} against my skin" for verb in ("feels", "feel") for feeling in _FEELINGS),
    *(f"{verb} my skin {effect}" for verb in ("makes", "make")
      for effect in ("crawl", "itch", "itchy", "red", "sore", "burn", "flare up")),
    *(f"{verb} me itching" for verb in ("leaves", "leave", "has", "have", "gets", "get")),
    *(f"{verb} me scratching" for verb in ("leaves", "leave", "has", "have", "gets", "get")),
    "traps the heat", "traps heat", "trap the heat", "trap heat", "doesn't breathe",
    "don't breathe", "does not breathe", "doesn't get along with me", "don't get along with me",
    "drives me mad", "drive me mad", "drives me crazy", "drive me crazy", "itches like mad",
    "itched", "makes me overheat", "make me overheat", "makes me sweat", "make me sweat",
)  # fmt: skip
DISCOMFORT_BEFORE = (
    *(f"{symptom} {by}" for symptom in _SYMPTOMS for by in ("from", "with", "in")),
    "my skin reacts to", "my skin react to", "reacts to", "reacted to", "break out in hives with",
    "break out with", "break out from", "itch in", "itchy in", "sweat in", "overheat in",
    "my skin hates", "my skin can't take", "my skin can't handle", "can't tolerate",
    "cannot tolerate", "intolerant to", "can't wear", "cannot wear",
)  # fmt: skip
# A verdict against, said after the word: "logos are a turn-off", "sequins put me off".
AVERSION_AFTER = (
    "a turn-off", "a turn off", "turn-off", "turns me off", "turn me off", "puts me off",
    "put me off", "off-putting", "not my vibe", "not my aesthetic", "not my look", "not me",
    "a no from me", "a pass", "a pass for me", "not happening",
)  # fmt: skip
# A single verb of discomfort is the shopper's verdict even with no "I": "wool scratches".
DISCOMFORT_VERDICTS = ("scratches", "itches", "irritates", "prickles", "chafes", "stings")

# "Most of my wardrobe is", "loads of my jumpers are", "pretty much everything I own is from",
# "the bulk of my clothes come from": what follows is what the shopper keeps buying.
_QUANTITY = (
    r"(?:most|half|all|loads|lots|heaps|tons|plenty|the\s+bulk|the\s+majority|a\s+lot|much|"
    r"nearly\s+all|almost\s+all|pretty\s+much\s+all|about\s+half|over\s+half|90%|80%)"
)
_OWNED = (
    r"(?:(?:whole|entire)\s+)?(?:stuff|clothes|clothing|wardrobe|closet|things|gear|kit|basics|"
    r"drawers|shoes|outfits|" + GARMENT_NOUNS[3:-1] + r")"
)
QUANTITY_FRAME = re.compile(
    r"\b(?:(?:"
    + _QUANTITY
    + r"\s+of\s+)?(?:my|what\s+i\s+(?:own|wear|buy|have))\s+"
    + _OWNED
    + r"|"
    + _QUANTITY
    + r"\s+of\s+what\s+i\s+(?:own|wear|buy|have)|"
    r"(?:pretty\s+much\s+|nearly\s+|almost\s+|just\s+about\s+)?everything\s+(?:i\s+(?:own|wear|buy"
    r"|have)|in\s+my\s+" + _OWNED + r")|"
    r"every\s+(?:single\s+)?(?:pair\s+of\s+)?\w+\s+i\s+(?:own|wear|buy|have))"
    r"(?:'s|\s+(?:is|are|comes?|came|was\s+bought|gets?\s+bought))"
    r"(?:\s+(?:basically|mostly|mainly|largely|pretty\s+much|all|just|entirely|from|by|"
    r"at|with))*\s+",
    re.I,
)
# "Vans are pretty much all I wear", "Uniqlo is all I ever buy": said after the brand.
ALL_I_PHRASES = tuple(
    f"{lead}all i {ever}{verb}"
    for lead in ("", "pretty much ", "basically ", "just about ", "nearly ", "almost ")
    for ever in ("", "ever ")
    for verb in ("wear", "buy", "own", "have")
)
