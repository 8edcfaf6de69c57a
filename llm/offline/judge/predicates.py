"""The lexicon of preferences: cues of liking, disliking and discomfort, negators, and the
terms (colours, designs, materials, values) they judge."""

from __future__ import annotations

import re

from llm.fact_schema import COLOUR_TERMS, DESIGN_TERMS, MATERIAL_TERMS, VALUE_TERMS
from llm.offline.judge.habits import (
    ALL_I_PHRASES,
    AVERSION_AFTER,
    DISCOMFORT_AFTER,
    DISCOMFORT_BEFORE,
    DISCOMFORT_VERDICTS,
    FONDNESS_AFTER,
    FONDNESS_PHRASES,
    HABIT_PHRASES,
    LOYALIST_NOUNS,
    POSSESSIVE_PHRASES,
    WHERE_I_PHRASES,
)
from llm.offline.judge.words import GARMENT_NOUNS, GARMENT_WORDS

NEGATORS = frozenset(
    "not don't dont do_not doesn't doesnt does_not never no_longer didn't didnt isn't isnt "
    "aren't arent wouldn't wouldnt won't wont hardly rarely".split()
)


def _inflected(*stems: str) -> tuple[str, ...]:
    """A verb's forms a predicate can take: "irritate" -> irritates, irritated, irritating."""
    forms = []
    for stem in stems:
        base = stem[:-1] if stem.endswith("e") else stem
        third = stem + ("es" if stem.endswith(("ch", "sh", "s", "x")) else "s")
        forms += [stem, third, base + "ed", base + "ing"]
    return tuple(forms)


# What a material, a colour or a cut does to the shopper, said after it: "wool irritates my
# skin", "nylon gives me a rash", "beige is so draining on me". Negated, it judges nothing
# ("cashmere never irritates me").
_DISCOMFORT_CUES = (
    *_inflected(
        "irritate", "itch", "scratch", "bother", "chafe", "pinch", "prickle", "sting", "drain",
        "overheat", "annoy", "bug", "frustrate", "suffocate", "restrict", "drown", "swamp"
    ),
    "rub", "rubs", "hurt", "hurts", "gives me a rash", "give me a rash", "gives me rashes",
    "give me rashes", "gives me hives", "give me hives", "brings me out in", "bring me out in",
    "brings me out in a rash", "makes me break out", "make me break out", "breaks me out",
    "break me out", "uncomfortable", "so uncomfortable", "too hot", "too warm", "too clingy",
    "clingy", "scratchy", "prickly", "sweaty", "rashes", "a rash", "hives",
    "doesn't agree with me", "don't agree with me", "doesn't agree with my skin",
    "don't agree with my skin", "does nothing for me", "do nothing for me",
    "doesn't do anything for me", "don't do anything for me", "doesn't work for me",
    "don't work for me", "doesn't work on me", "don't work on me", "never works on me",
    "never work on me", "never suits me", "never suit me", "ages me", "age me",
    "doesn't flatter me", "don't flatter me", "never flatters me", "not flattering on me",
    "clashes with my skin", "clash with my skin", "looks off on me", "look off on me",
    *(
        f"{verb} me look {looks}"
        for verb in ("make", "makes", "made")
        for looks in (
            "tired", "old", "older", "pale", "ill", "sick", "washed out", "frumpy", "bigger",
            "wider", "heavier", "drained", "dull", "grey", "sallow", "shapeless", "boxy",
        )
    ),
)  # fmt: skip
# A refusal said after the word it judges: "leather is a dealbreaker", "polyester, no thanks".
_REFUSALS = (
    "dealbreaker", "deal-breaker", "a dealbreaker", "a deal-breaker", "deal breaker",
    "a no for me", "a no from me", "no thanks", "no thank you", "not a chance", "never again",
    "a crime", "a fashion crime", "a disaster", "a nightmare", "out for me", "is out for me",
    "are out for me", "off the table", "off the menu", "a no-no", "is a no", "are a no",
)  # fmt: skip
_GROWN_ON = ("grown on me", "grew on me", "growing on me", "grow on me", "grows on me")
# A mind changed, either way: "I've come round to florals", "I've given up on skinny fits".
_TURNED_TO_CUES = (
    "come round to", "come around to", "came round to", "came around to", "warmed to",
    "warmed up to", "grown to like", "grown to love", "grew to like", "grew to love",
    "getting into", "got into", "gotten into", "now into", "started liking", "started loving",
    "started wearing", "started buying", "fallen for", "fell for", "converted to",
    "a convert to", "won over by", "finally like", "finally love", *_GROWN_ON,
    "never say no to", "can't resist",
    "can never resist", "can't say no to", "never turn down", "become", "became",
    # What a change goes to: "going with Northwind", "switched to linen".
    "going with", "gone with", "went with", "switched to", "switching to", "moved to",
    "sticking with", "sticking to", "stick with", "stuck with", "gone over to", "went over to",
    "going over to", "come over to", "came over to",
    "moving to", "changed to", "now wearing", "now buying",
)  # fmt: skip
_TURNED_FROM_CUES = (
    "went off", "going off", "grown out of", "grew out of", "outgrown", "given up",
    "given up on", "gave up", "gave up on", "stopped liking", "stopped loving", "quit",
    "moved away from", "moving away from", "moved on from", "so done with", "cooled on",
    "cooled off on", "gone cold on", "went cold on", "gone off on",
    "fell out of love with", "falling out of love with", "lost interest in",
)  # fmt: skip
# Loyalty said as a habit: "I always end up buying Levi's", "half my wardrobe is Uniqlo".
_HABIT_CUES = (
    "end up buying", "end up with", "ends up being", "always end up buying",
    "always end up with", "keep buying", "keep going back to", "keep coming back to",
    "keep returning to", "always come back to", "always go back to", "always going back to",
    "going back to", "went back to", "coming back to", "been buying", "been wearing",
    "been shopping at", "been loyal to", "i've worn", "i have worn", "wardrobe is",
    "my wardrobe is", "half my wardrobe is", "most of my wardrobe is", "wardrobe is mostly",
    "wardrobe is full of", "closet is", "closet is full of", "most of my clothes are",
    "nothing beats", "nothing compares to", "can't beat", "cannot beat", "you can't beat",
    "never shop anywhere but", "never buy anything but", "only ever buy", "only ever wear",
    "only shop at", "buy everything from", "buy everything at", "get everything from",
    "do most of my shopping at", "lifelong fan", "religiously", "swear by",
    "can always count on", "always count on", "count on", "rely on", "always rely on",
)  # fmt: skip
_DISLIKING = (
    "hate", "hates", "hated", "dislike", "dislikes", "detest", "loathe", "avoid", "avoids",
    "can't stand", "cannot stand", "can't bear", "can't do", "not a fan of",
    "not a big fan of", "not a huge fan of", "not much of a fan of", "no fan of", "not into",
    "not really into", "not keen on", "not fond of", "not crazy about", "not big on",
    "sick of", "tired of", "done with", "over it", "allergic to", "stay away from",
    "steer clear of", "keep away from", "without", "no", "not", "never", "nothing",
    "nothing in", "anything but", "everything but", "anything except", "everything except",
    "except", "apart from", "other than", "no more", "boycott", "stopped buying",
    "stopped wearing", "never buy", "never wear", "don't wear", "do not wear", "won't wear",
    "wouldn't wear", "can't wear", "don't buy", "won't buy", "doesn't suit me",
    "don't suit me", "does not suit me", "isn't my colour", "isn't my color",
    "is not my colour", "aren't my colours", "not my colour", "not my color", "not my thing",
    "not my style", "not for me", "isn't for me", "aren't for me", "isn't me", "aren't me",
    "aren't really me", "isn't really me", "washes me out", "wash me out", "makes me itch",
    "make me itch", "makes me sweat", "make me sweat", "look terrible in", "look awful in",
    "look bad in", "looks terrible on me", "looks awful on me", "looks bad on me", "a no-go",
    "a no go", "can't stand the", "ugh", "i'm over", "i am over", "so over", "a big no",
    "gone off", "gone right off", "had enough of", "a hard no", "hard no",
    "stopped shopping at", "wary of", "look washed out in", "washed out in",
    "fallen out of love with", "boring", "so boring", "ugly", "hideous", "awful", "horrible",
    "unflattering", "not flattering", "itchy", "itchy in", "get itchy", "not a big fan",
    "stopped buying from", "no longer buy", "boycotting", "too", "bad luck with",
    "bad experience with", "disappointed with", "disappointed by", "sensitive to", "react to",
    "can't be doing with", "cannot be doing with", "can't deal with", *_REFUSALS,
    "cut down on", "cutting down on", "cut back on", "cutting back on", "trying to avoid",
    "try to avoid", "get away from", "getting away from", "ditch", "ditching", "ditched",
)  # fmt: skip
_NEGATIVE_CUES = (
    *_DISLIKING,
    *_DISCOMFORT_CUES,
    *_TURNED_FROM_CUES,
    *DISCOMFORT_AFTER,
    *DISCOMFORT_BEFORE,
    *AVERSION_AFTER,
)

_LIKING = (
    "like", "likes", "love", "loves", "adore", "prefer", "prefers", "preferably", "favourite",
    "favorite", "fave", "go-to", "fan", "fan of", "loyal to", "swear by", "stick to",
    "stick with", "always buy", "always wear", "always go for", "usually go for",
    "usually buy", "usually wear", "tend to go for", "tend to wear", "tend to buy",
    "mostly wear", "mostly buy", "mainly wear", "often wear", "only wear", "only buy", "only",
    "strictly", "100%", "pure", "i'm into", "i am into", "really into", "big into",
    "all about", "obsessed with", "suits me", "suit me", "look good in", "look great in",
    "looks good on me", "looks great on me", "is my colour", "is my color", "my thing",
    "my style", "matter to me", "matters to me", "important to me", "care about", "must",
    "a must", "fits me best", "fit me best", "works for me", "trust", "can't live without",
    "go for", "opt for", "lean towards", "gravitate towards", "is the best", "are the best",
    "try to buy", "try to", "trying to", "person", "guy", "girl", "gal", "team",
    "wear a lot of", "wear lots of", "own a lot of", "lovely on me", "great on me",
    "flattering on me", "so flattering on me",
    "good on me", "nice on me", "best on me", "loved", "always loved", "always liked",
    "shop at", "buy from", "shop from", "matters", "matter", "i buy", "i wear",
    "never let me down", "never lets me down", "never disappoints", "never disappoint",
    "never fails", "fits my feet", "fit my feet", "for me", "obsessed", "always", "big on",
    "go back to", "rate", "really rate", "faithful to", "for life", "forever", "the way to go",
    "way to go", "choose", "i'd choose", "every time", "top picks", "my picks", "top choice",
    "first choice", "go-tos", "go-to's", "uniform", "my colour", "my color", "clothes at",
    "clothes from", "everything at", "everything from", "stuff at", "stuff from", "fit me",
    "fits me", "more into", "more of a", "all the way", "look for", "always look for",
    "favourites", "favorites", "faves", "i'd rather", "would rather", "rather have", "loyal",
    "my weakness", "weakness for", "works on me", "work on me", "fit me perfectly",
    "fits me perfectly", "fit me well", "fits me well", "try to wear", "try to stick to",
    "look best in", "looks best on me", "look my best in", "feel best in", "feel good in",
    "feel great in", "feel my best in", "work best", "works best", "what i go for",
    "what i wear", "what i reach for", "keen", "is better", "are better", "is better now",
    "are better now", "i dress", "i tend to dress", "i usually dress",
    "i like to dress", "dress very", "i always dress",
)  # fmt: skip
_POSITIVE_CUES = (
    *_LIKING, *_TURNED_TO_CUES, *_HABIT_CUES, *HABIT_PHRASES, *FONDNESS_PHRASES,
    *POSSESSIVE_PHRASES, *ALL_I_PHRASES, *FONDNESS_AFTER, *LOYALIST_NOUNS, *WHERE_I_PHRASES,
)  # fmt: skip
_NEUTRAL_CUES = (
    "don't mind", "do not mind", "doesn't matter", "fine with", "ok with", "okay with",
    "open to", "whatever", "either", "not sure", "don't care", "less", "fewer", "heard of",
    "too expensive", "too pricey", "too dear", "too much", "too expensive for me",
    "too pricey for me",
)  # fmt: skip
_CONTRAST_CUES = ("over", "rather than", "instead of", "more than", "than", "versus", "vs")
DETERMINERS = frozenset("this that these those it its it's which".split())
PRODUCT_NOUNS = frozenset("one ones pair pairs version style model item".split())


# Capitalised words that are not brands.
NOT_BRANDS = frozenset(
    """money price prices shipping delivery quality comfort style fit everything nothing
    something anything this that it these those which what who budget sustainability honestly
    maybe sorry great wow cool nice perfect lovely sure really actually also plus well usually
    normally generally mostly always never only just going keep show find give get tell
    i i'm i've i'd i'll im ok okay hi hello hey thanks thank please yes no eu uk us usa eur
    xs xxs s m l xl xxl xxxl monday tuesday wednesday thursday friday saturday sunday january
    february march april may june july august september october november december christmas
    easter the a an my and but so also honestly personally size medium small large spending
    cost costs turns love like prefer hate adore dislike any every whatever whichever some
    none""".split()
) | frozenset(GARMENT_WORDS)  # "Dresses are a 12 for me", "T-shirts": a garment, never a brand
PREPOSITIONS = frozenset("in from at to near around into through".split())
TOKEN = re.compile(r"[A-Za-z0-9]+(?:['&.\-][A-Za-z0-9]+)*%?|&|[?,.;!]")
MAX_PHRASE = 6


_SHADES = (
    "bright pale deep dusty muted soft vivid electric light dark rich warm cool pastel".split()
)


def _comparative(word: str) -> str:
    """ "loose" -> "looser", "slim" -> "slimmer", "baggy" -> "baggier"."""
    if word.endswith("y"):
        return word[:-1] + "ier"
    if word.endswith("e"):
        return word + "r"
    if re.search(r"[^aeiou][aeiou][bdgmnpt]$", word):
        return word + word[-1] + "er"
    return word + "er"


def _phrase_table() -> dict[tuple[str, ...], tuple[str, object]]:
    table: dict[tuple[str, ...], tuple[str, object]] = {}
    for cue in _NEUTRAL_CUES:
        table[tuple(cue.split())] = ("neutral", None)
    for cue in _CONTRAST_CUES:
        table[tuple(cue.split())] = ("contrast", None)
    for cue in _POSITIVE_CUES:
        table[tuple(cue.split())] = ("positive", None)
    for cue in _NEGATIVE_CUES:
        table[tuple(cue.split())] = ("negative", None)
    for negator in NEGATORS:
        table.setdefault(tuple(negator.replace("_", " ").split()), ("negator", None))
    for category, terms in (
        ("material", MATERIAL_TERMS),
        ("design", DESIGN_TERMS),
        ("values", VALUE_TERMS),
        ("colour", COLOUR_TERMS),
    ):
        for word, (key, phrase) in terms.items():
            table[tuple(TOKEN.findall(word))] = ("term", (category, key, phrase))
            if category == "colour" and " " not in word and not word.endswith("s"):
                table.setdefault((word + "s",), ("term", (category, key, phrase)))  # "pinks"
                for shade in _SHADES:
                    # "bright yellow", "dusty pink": a shade of the colour, unless named.
                    table.setdefault((shade, word), ("term", (category, key, phrase)))
            if category == "design" and " " not in word and not word.endswith(("s", "ed")):
                # "a looser fit", "slimmer cuts", "baggier": the comparative of a fit or a look.
                more = _comparative(word)
                for said in ((more,), (more, "fit"), (more, "fits"), (more, "cut"), (more, "cuts")):
                    table.setdefault(said, ("term", (category, key, phrase)))
    # "I'm vegan" is a value in itself; "vegan leather" stays one term.
    table[("i'm", "vegan")] = ("term+", ("values", *VALUE_TERMS["vegan"]))
    table[("i", "am", "vegan")] = ("term+", ("values", *VALUE_TERMS["vegan"]))
    return table


PHRASES = _phrase_table()
# Cues that can follow the word they judge ("green is my favourite", "wool makes me itch");
# the others take the word after them ("I hate yellow", "never black").
PREDICATE_CUES = frozenset(
    (
        "favourite", "favorite", "favourites", "favorites", "fave", "faves", "go-to", "go-tos",
        "go-to's", "suits me", "suit me", "look good in", "look great in", "looks good on me",
        "looks great on me", "is my colour", "is my color", "my colour", "my color",
        "my thing", "my style", "matter to me", "matters to me", "matters", "matter",
        "important to me", "a must", "must", "fits me best", "fit me best", "fits me",
        "fit me", "fit me perfectly", "fits me perfectly", "fit me well", "fits me well",
        "fits my feet", "fit my feet", "works for me", "works on me", "work on me", "for me",
        "person", "guy", "girl", "gal", "fan", "is the best", "are the best",
        "never let me down", "never lets me down", "never disappoints", "never disappoint",
        "never fails", "lovely on me", "great on me", "good on me", "nice on me", "best on me",
        "flattering on me", "so flattering on me",
        "is better", "are better", "is better now", "are better now",
        "my weakness", "uniform", "top picks", "my picks", "top choice", "first choice",
        "all the way", "only", "loyal", "doesn't suit me", "don't suit me", "does not suit me",
        "isn't my colour", "isn't my color", "is not my colour", "aren't my colours",
        "not my colour", "not my color", "not my thing", "not my style", "not for me",
        "isn't for me", "aren't for me", "isn't me", "aren't me", "aren't really me",
        "isn't really me", "washes me out", "wash me out", "makes me itch", "make me itch",
        "makes me sweat", "make me sweat", "looks terrible on me", "looks awful on me",
        "looks bad on me", "a no-go", "a no go", "a big no", "boring", "so boring", "ugly",
        "hideous", "awful", "horrible", "unflattering", "not flattering", "too", "itchy",
        "every time", "a hard no", "hard no", "for life", "forever", "the way to go",
        "way to go", "work best", "works best", "what i go for", "what i wear",
        "what i reach for", *_DISCOMFORT_CUES, *_GROWN_ON, *_REFUSALS, *POSSESSIVE_PHRASES,
        *ALL_I_PHRASES, *DISCOMFORT_AFTER, *FONDNESS_AFTER, *LOYALIST_NOUNS, *WHERE_I_PHRASES,
        *AVERSION_AFTER,
    )
)  # fmt: skip
# A verdict in so many words makes a clause the shopper's even with no "I" in it
# ("recycled materials are the way to go", "neon is a hard no").
VERDICT = re.compile(
    r"\b(?:"
    + "|".join(
        re.escape(cue)
        for cue in sorted(PREDICATE_CUES, key=len, reverse=True)
        if " " in cue
        or cue in ("boring", "ugly", "hideous", "awful", "horrible", "itchy", *DISCOMFORT_VERDICTS)
    )
    + r")\b",
    re.I,
)

CUE_KINDS = ("positive", "negative", "negator", "neutral")
BRAND_IS_FAVOURITE = re.compile(
    r"\b(?:my|our)\s+(?:absolute\s+)?(?:favourite|favorite|fave|go-to|usual|preferred)\s+"
    r"(?:brand|label)s?\s+(?:is|are|has to be|would be)\s+(?P<brand>[\w'&]+(?:\s+(?:&\s+)?[\w'&]+)?)"
    r"|(?P<brand2>[\w'&]+(?:\s+&\s+[\w'&]+)?)\s+(?:is|are)\s+(?:my|our)\s+(?:absolute\s+)?"
    r"(?:favourite|favorite|fave|go-to|usual|preferred)\s+(?:brand|label)\b",
    re.I,
)

BRAND_POSSESSIONS = frozenset(
    "designs design stuff style styles clothes clothing collection collections things range cut "
    "cuts fit quality fabrics sizing sizes prices price service stores shops website products "
    "items".split()
)
BRAND_SUBJECT = re.compile(
    r"[A-Z][\w'&]*(?:\s+(?:&\s+|and\s+)?[A-Z][\w'&]*)*(?:\s+" + GARMENT_NOUNS + r")?\s+"
    r"(?:is|are|has|have|makes?|fits?|suits?|never|all the way|for life|forever|"
    r"always|really|just|runs?|works?)\b"
)
