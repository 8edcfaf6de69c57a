"""Preferences: the colours, brands, designs, materials and values a clause likes or dislikes."""

from __future__ import annotations

import re
from dataclasses import dataclass

from llm.fact_schema import (
    COLOUR_TERMS,
    DESIGN_TERMS,
    DISLIKE,
    LIKE,
    preference_sentence,
    slot_key,
)
from llm.offline.judge.clauses import Clause
from llm.offline.judge.habits import FREQUENCY_WORDS, QUANTITY_FRAME
from llm.offline.judge.judged import Judged
from llm.offline.judge.predicates import (
    BRAND_IS_FAVOURITE,
    BRAND_POSSESSIONS,
    BRAND_SUBJECT,
    CUE_KINDS,
    DETERMINERS,
    MAX_PHRASE,
    NEGATORS,
    NOT_BRANDS,
    PHRASES,
    PREDICATE_CUES,
    PREPOSITIONS,
    PRODUCT_NOUNS,
    TOKEN,
)
from llm.offline.judge.words import GARMENT_WORDS


def _product_reference(tokens: list[_Token], index: int, width: int) -> bool:
    """ "the black one", "that red dress", "the Vela jacket": a product, not a preference."""
    before = tokens[index - 1].lower if index > 0 else ""
    after = tokens[index + width].lower if index + width < len(tokens) else ""
    then = tokens[index + width + 1].lower if index + width + 1 < len(tokens) else ""
    if before in ("it's", "it") and (after, then) == ("for", "me"):
        return False  # "it's cotton for me": what the shopper goes for, no product
    if before in DETERMINERS:
        return True
    return before == "the" and (after in PRODUCT_NOUNS or after in GARMENT_WORDS)


@dataclass(frozen=True)
class _Token:
    text: str
    lower: str
    start: int


Pending = list[tuple[int, tuple[str, str, str]]]
_PRONOUNS = frozenset(("it", "them"))
_RELATIVE_CLAUSE = re.compile(
    r"\b(?:is|are|'s)\s+(?:a|an|one|the|my)?\s*(?:colou?r|shade|fabric|material|brand|label|"
    r"style|look|cut|fit|print|pattern|thing)s?\s+(?:that\s+|which\s+)?(?:i|i'd|i'll|i've|we)\b",
    re.I,
)
_SUBJECT_PRONOUNS = frozenset("it it's its they they've they're they'd".split())


@dataclass
class Referent:
    """The last term a sentence judged or named, which a later "it" or "them" stands for:
    "I used to hate pink, but now I love it" likes pink."""

    term: tuple[str, str, str] | None = None
    polarity: str | None = None
    past: bool = False


def preference_facts(
    clause: Clause,
    at: int,
    *,
    inherited: str | None,
    carried: Pending,
    referent: Referent | None = None,
) -> tuple[list[Judged], str | None, Pending]:
    """Liked and disliked terms of one clause, the polarity a following list inherits, and
    the terms still waiting for a predicate ("beige, cream and white are my go-tos").

    A referent from an earlier clause is what a pronoun after a cue stands for; the terms
    of this clause become the referent for the next."""
    referent = referent if referent is not None else Referent()
    earlier = referent.term
    tokens = [
        _Token(m.group(0), m.group(0).lower(), m.start()) for m in TOKEN.finditer(clause.text)
    ]
    facts: list[Judged] = []
    # A list goes on after a comma only when the clause brings no cue of its own:
    # "I love navy, olive and grey" but "I hate brown, and Vela is my favourite brand".
    own_cue = any(_phrase_at(tokens, i)[0] in CUE_KINDS for i in range(len(tokens)))
    polarity = None if own_cue else inherited
    negator_at = -10
    # Words waiting for a predicate carry over a comma only into a list of more such words.
    first = next((i for i, t in enumerate(tokens) if t.lower not in ("and", "or")), None)
    continues = first is not None and _phrase_at(tokens, first)[0] == "term"
    pending: Pending = list(carried) if continues else []
    cleft = (
        first is not None
        and first + 1 < len(tokens)
        and _phrase_at(tokens, first + 1 + (tokens[first + 1].lower in ("is", "'s")))[0] == "term"
    )  # "it's cotton for me": "it" stands for the cotton that follows, not what came before
    if (
        earlier is not None
        and first is not None
        and tokens[first].lower in _SUBJECT_PRONOUNS
        and not cleft
    ):
        # "...but they've grown on me": the subject stands for the earlier clause's term.
        pending.append((at + tokens[first].start, earlier))
    taken_since_cue = False
    relative = _RELATIVE_CLAUSE.search(clause.text)
    relative_from = relative.end() if relative else len(clause.text) + 1
    last_cue = ""
    cue_end = -10
    # "Most of my wardrobe is Uniqlo": a quantity frame is a cue of habit before the word.
    frames = [match.end() for match in QUANTITY_FRAME.finditer(clause.text)]
    index = 0
    while index < len(tokens):
        if frames and tokens[index].start >= frames[0]:
            frames.pop(0)
            polarity, taken_since_cue, last_cue, cue_end = LIKE, False, "habit", index
        kind, value, width = _phrase_at(tokens, index)
        # "loyal to Birkenstock", "stopped buying from Primark": a cue just before a name.
        after_cue = index - cue_end <= 1
        if kind == "word" and _is_brand_start(tokens, index, clause, after_cue=after_cue):
            brand, width = _brand_at(tokens, index)
            kind, value = "term", ("brand", slot_key(brand), brand)
        if kind == "negator":
            negator_at, polarity, taken_since_cue = index, DISLIKE, False
            last_cue = tokens[index].lower
        elif kind == "positive" and width == 2 and tokens[index].lower == "for" and polarity:
            pass  # "for me" only confirms a word nothing else has judged yet
        elif kind == "positive" and _such_as(tokens, index, width):
            pass  # "brands like Shein": an example of what went before, not a liking
        elif kind == "positive":
            polarity = DISLIKE if index - negator_at <= 3 else LIKE
            if polarity == DISLIKE and tokens[index].lower in FREQUENCY_WORDS:
                polarity = "ignore"  # "I don't always buy Zara": not a dislike
            taken_since_cue, last_cue = (
                False,
                " ".join(t.lower for t in tokens[index : index + width]),
            )
        elif kind == "negative":
            polarity = "ignore" if 0 < index - negator_at <= 3 else DISLIKE
            taken_since_cue, last_cue = False, tokens[index].lower
            if width == 1 and last_cue in ("not", "never", "no"):
                negator_at = index  # "not really a fan of" flips the liking after it
        elif kind == "neutral":
            polarity, taken_since_cue = "ignore", False
        elif kind == "contrast" or (
            tokens[index].lower == "to" and last_cue.startswith("prefer") and taken_since_cue
        ):
            # "blue over black", "muted tones over bright ones": what it is compared with
            # is not liked (nor disliked).
            if polarity == LIKE and (taken_since_cue or last_cue.startswith("prefer")):
                polarity = "ignore"
        elif kind in ("term", "term+"):
            if kind == "term+":
                polarity = LIKE
            following = tokens[index + width].lower if index + width < len(tokens) else ""
            if _product_reference(tokens, index, width):
                pass  # "the black one" is a product, not a preference
            elif [t.lower for t in tokens[max(0, index - 2) : index]] == ["the", "only"]:
                pass  # "merino is the only wool I can wear" says nothing of other wool
            elif following in ("brand", "brands", "label") and value[0] == "material":
                pass  # "the only denim brand I trust" names a brand, not a material
            elif polarity in (LIKE, DISLIKE):
                facts.append(preference_fact(value, polarity, at + tokens[index].start))
                taken_since_cue = True
                _refer(referent, value, polarity, clause, adjective=following in GARMENT_WORDS)
            elif polarity is None:
                pending.append((at + tokens[index].start, value))
                _refer(referent, value, None, clause, adjective=following in GARMENT_WORDS)
        elif (
            tokens[index].lower in _PRONOUNS
            and earlier is not None
            and index == cue_end
            and polarity in (LIKE, DISLIKE)
        ):
            # "...but now I love it": the pronoun stands for the earlier clause's term.
            facts.append(preference_fact(earlier, polarity, at + tokens[index].start))
            taken_since_cue = True
        cue = " ".join(t.lower for t in tokens[index : index + width])
        # "red is a colour I'd never wear": the cue in the relative clause judges the subject.
        judged_back = cue in PREDICATE_CUES or (
            kind in ("positive", "negative") and tokens[index].start >= relative_from
        )
        if pending and judged_back and polarity in (LIKE, DISLIKE):
            # A predicate after the word: "green is my favourite", "beige washes me out";
            # "navy, never black" says nothing of navy.
            facts += [preference_fact(term, polarity, position) for position, term in pending]
            if referent.term in [term for _, term in pending]:
                referent.polarity = polarity
            pending = []
            taken_since_cue = True
        if kind in ("positive", "negative", "negator"):
            cue_end = index + width
        index += width
    words = [t for t in tokens if t.text not in (",", ".", "!", ";", "?")]
    if (
        not facts
        and not pending
        and earlier is not None
        and polarity in (LIKE, DISLIKE)
        and cue_end >= len(words)
        and words[-1].lower not in ("too", "also")  # "I'm a fan too": "too" is no verdict
        and not any(_phrase_at(tokens, i)[0] == "term" for i in range(len(tokens)))
    ):
        # A verdict with its object left out is on what was just named: "my sister loves
        # Tern but I'm not keen", "tried Vela, not a fan".
        facts.append(preference_fact(earlier, polarity, at))
    return facts, polarity if polarity in (LIKE, DISLIKE) else None, pending


def _refer(
    referent: Referent,
    term: tuple[str, str, str],
    polarity: str | None,
    clause: Clause,
    *,
    adjective: bool,
) -> None:
    if adjective:
        referent.term = None  # "a red dress ... I love it" loves the dress, not red
        return
    referent.term, referent.polarity, referent.past = term, polarity, clause.past


_DWELL = frozenset("live lives living lived".split())
_BUYING = frozenset("buy buys bought shop shops shopped get gets order orders".split())
_LIKE_SUBJECTS = frozenset(
    "i we you they really also still just do don't dont i'd we'd would actually totally "
    "definitely genuinely quite kinda generally usually mostly and to".split()
)


def _such_as(tokens: list[_Token], index: int, width: int) -> bool:
    """ "like" after a noun means "such as" ("fabrics like linen", "brands like Shein")."""
    if width != 1 or tokens[index].lower != "like" or index == 0:
        return False
    return tokens[index - 1].lower not in _LIKE_SUBJECTS and tokens[index - 1].text.isalpha()


def _phrase_at(tokens: list[_Token], index: int) -> tuple[str, object, int]:
    for width in range(min(MAX_PHRASE, len(tokens) - index), 0, -1):
        hit = PHRASES.get(tuple(t.lower for t in tokens[index : index + width]))
        if hit:
            # "no more than 50" is a budget; "any" before a term is not neutral about it.
            following = tokens[index + width].lower if index + width < len(tokens) else ""
            if hit[0] == "negative" and following == "than":
                continue
            return hit[0], hit[1], width
    compound = _style_compound(tokens, index)
    if compound is not None:
        return "term", compound, 2
    parts = tuple(tokens[index].lower.split("-"))
    if len(parts) == 2 and parts[1] in _STYLE_HEADS:
        # "scoop-neck tops", "muscle-fit shirts": the hyphenated spelling of the same words.
        hit = PHRASES.get(parts)
        split = [_Token(part, part, tokens[index].start) for part in parts]
        term = hit[1] if hit and hit[0] == "term" else _style_compound(split, 0)
        if term is not None:
            return "term", term, 1
    return "word", None, 1


# A style word the lexicon lacks is still one when it names a fit, a cut, a neck, a sleeve
# or a look: "a muscle fit", "square necklines", "a boho look". The key is the shopper's
# own word, with the part it shapes ("muscle-fit", "square-neck"; a look is its word alone).
_STYLE_HEADS = {
    "fit": "fit", "fits": "fit", "cut": "cut", "cuts": "cut", "neck": "neck", "necks": "neck",
    "neckline": "neck", "necklines": "neck", "collar": "collar", "collars": "collar",
    "sleeve": "sleeve", "sleeves": "sleeve", "leg": "leg", "legs": "leg", "toe": "toe",
    "toes": "toe", "look": "", "style": "", "styles": "", "aesthetic": "",
}  # fmt: skip
# Words before a head that judge or point at it rather than name a style.
_NOT_STYLE = frozenset(
    """good great nice bad right perfect proper better best true comfortable comfy decent
    flattering new same different usual normal overall whole this that these those any every
    each no my your their our his her the a an its what which whose certain particular
    specific exact general total whatever own first last latest other such similar right
    wrong poor awful terrible lovely amazing excellent fine weird odd strange generous
    correct actual real exact overall shoe jean trouser shirt dress jacket coat boot
    sporty classic anything everything something nothing""".split()
)


_VERB_OBJECTS = frozenset(
    "me my us you him her them like well better best perfectly really nicely true".split()
)


def _style_compound(tokens: list[_Token], index: int) -> tuple[str, str, str] | None:
    if index + 1 >= len(tokens):
        return None
    word, head = tokens[index].lower, tokens[index + 1].lower
    if head not in _STYLE_HEADS or not word.isalpha() or len(word) < 3 or word in _NOT_STYLE:
        return None
    if not tokens[index].text.islower() and index > 0:
        return None  # "Vela fits me": a brand and a verb
    after = tokens[index + 2].lower if index + 2 < len(tokens) else ""
    if after in _VERB_OBJECTS or word in GARMENT_WORDS or word.endswith("er"):
        return None  # "jeans fit me", "longer styles": a verb, a garment, a comparison
    if word in NEGATORS or PHRASES.get((word,)) is not None:
        return None  # "not fit", "love the cut", a colour or a fabric: no style's name
    part = _STYLE_HEADS[head]
    key = f"{word}-{part}" if part else word
    shown = f"{word} {head}" if part else f"{word} styles"
    return ("design", key, shown)


def _is_brand_start(tokens: list[_Token], index: int, clause: Clause, *, after_cue: bool) -> bool:
    token = tokens[index]
    if not token.text[:1].isupper() or token.lower in NOT_BRANDS:
        return False
    if any(ch.isdigit() for ch in token.text):
        return False  # "W30 L32", "UK9": a measure, not a name
    if (
        index > 0
        and tokens[index - 1].text[:1].isupper()
        and tokens[index - 1].lower not in NOT_BRANDS
    ):
        return False  # inside a name already read
    if index > 1 and tokens[index - 1].lower == "in" and tokens[index - 2].lower in _DWELL:
        return False  # "I live in Lisbon": a place; "I live in navy" is a colour
    if index > 0 and tokens[index - 1].lower in PREPOSITIONS and not after_cue:
        bought = any(t.lower in _BUYING for t in tokens[:index])
        if not (bought and tokens[index - 1].lower in ("from", "at")):
            return False  # "in Berlin", "from Spain": places; "all my jeans from Levi's" buys
    if index == 0 and clause.start == 0:
        # A sentence's first word is capitalised anyway: a brand only when a verb about it
        # follows ("Patagonia has never let me down", "Zara never fits me").
        return bool(BRAND_IS_FAVOURITE.match(clause.text) or BRAND_SUBJECT.match(clause.text))
    return True


def _brand_at(tokens: list[_Token], index: int) -> tuple[str, int]:
    """Read a brand name: capitalised words, joined by "&" ("Fjord & Pine", "New Balance")."""
    end = index + 1
    while end < len(tokens):
        token = tokens[end]
        if token.text == "&" and end + 1 < len(tokens) and tokens[end + 1].text[:1].isupper():
            end += 2
        elif token.text[:1].isupper() and token.lower not in NOT_BRANDS:
            end += 1
        else:
            break
    words = [t.text for t in tokens[index:end]]
    following = tokens[end].lower if end < len(tokens) else ""
    if words[-1].endswith("'s") and following in BRAND_POSSESSIONS:
        words[-1] = words[-1][:-2]  # "Vela's designs" is Vela; "Levi's jeans" stays Levi's
    return " ".join(words).replace(" & ", " & "), end - index


def preference_fact(term: tuple[str, str, str], polarity: str, position: int) -> Judged:
    category, key, phrase = term
    return Judged(
        position=position,
        fact=preference_sentence(category, polarity, phrase),
        category=category,
        slot=f"{category}/{key}",
        value=polarity,
    )


_WIDTH_WORDS = sorted(
    (word for word, (key, _) in DESIGN_TERMS.items() if key in ("wide-fit", "narrow-fit")),
    key=len,
    reverse=True,
)
_WIDTH = re.compile(r"\b(?:" + "|".join(map(re.escape, _WIDTH_WORDS)) + r")\b", re.I)


def width_facts(clause: Clause, at: int) -> list[Judged]:
    """The width of shoe the shopper needs, even said in a request: like a waist, it only
    ever describes the feet of the one who asks ("I need wide-fit shoes")."""
    match = _WIDTH.search(clause.text)
    if not match:
        return []
    key, phrase = DESIGN_TERMS[match.group(0).lower()]
    return [preference_fact(("design", key, phrase), LIKE, at + match.start())]


def lowercase_brand_facts(clause: Clause, at: int) -> list[Judged]:
    match = BRAND_IS_FAVOURITE.search(clause.text)
    if not match:
        return []
    brand = (match.group("brand") or match.group("brand2")).strip()
    if brand.lower() in NOT_BRANDS or brand.lower() in COLOUR_TERMS:
        return []
    shown = brand if any(ch.isupper() for ch in brand) else brand.title()
    return [preference_fact(("brand", slot_key(shown), shown), LIKE, at + match.start())]
