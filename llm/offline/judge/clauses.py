"""Sentences and clauses: what each clause is (a statement, a request or a question), whose it is
and when it holds."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from llm.fact_schema import COLOUR_TERMS, MATERIAL_TERMS
from llm.offline.judge.predicates import BRAND_SUBJECT, VERDICT
from llm.offline.judge.words import FIRST_PERSON, GARMENT_NOUNS
from llm.shopper_words import LETTER_SIZE_ALTERNATIVES, numbers_in_digits

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+|\s+[\u2014\u2013]\s+|\s+-\s+")
_CLAUSE_SEP = re.compile(
    r"\s*(?:,(?!\d)|;|"
    r"\b(?<!anything )(?<!everything )(?<!nothing )(?<!all )but\b|\bthough\b|\balthough\b|"
    r"\bhowever\b|\bwhereas\b|\bwhile\b|\bbecause\b|\bcause\b|"
    r"\b(?<!even )(?<!only )(?:if|unless|in case|suppose|supposing|assuming|say)\b(?=\s+(?:i|i'm|"
    r"im|my|we|it|the|this|that|they|you|a|an)\b)|"
    r"\band\b(?=\s+(?:i|i'm|im|i've|i'd|i'll|my|me|we|we're|show|find|do|can|could|please|what|"
    r"which|is|are|have|any|also|need|prefer|love|like|hate|budget|size)\b)|"
    r"\bso\b(?=\s+(?:i|i'm|im|i've|my|please|show|can|could|do|what)\b)|"
    # "I've become vegan so leather is out": a consequence with a subject of its own.
    r"(?<=\w)\s+so\b(?=\s+\w+\s+(?:is|are|'s)\s+(?:out|off|a\s+no|not|never|banned|over)\b)|"
    # "my dad, who loves Vela": what follows is said of the person before it.
    r"(?<=\w)\s+(?=who(?:'s)?\s)|"
    # "can you remember that I'm an XS?": what is to be remembered is said outright.
    r"\b(?:remember|note|know|bear in mind|keep in mind)\s+that\b)\s*",
    re.I,
)
_HARD_SEPS = ("but", "though", "although", "however", "whereas", "while", "because", "cause")
# A clause after one of these states a supposition, not a fact ("if I were an M").
_CONDITIONS = ("if", "unless", "in case", "suppose", "supposing", "assuming")
_QUESTION_START = re.compile(
    r"^(?:(?:so|and|also|ok|okay|hi|hey|hello|well|oh|um|btw)\b[\s,]*)*"
    r"(?:(?:do|does|did|can|could|would|will|is|are|was|were|have|has|should|shall|may|might|"
    r"isn't|aren't|don't|wouldn't|won't)\s+(?:you|i|we|it|this|that|these|those|they|there|he|she|"
    r"any|the|a|an|my|your|u)|what|what's|whats|which|where|when|why|who|how|any|"
    # "got any in blue?" asks; "got a job interview on Thursday" tells.
    r"got(?=\s+(?:any|anything|some|something|these|those|them|it|one|ones)\b))(?![\w'])",
    re.I,
)
_REQUEST = re.compile(
    r"^(?:please|pls)\b(?![\s,]+(?:no|not|never|don't|nothing|avoid|skip|only|stay away|"
    r"keep away|note|remember|bear in mind|keep in mind|be aware)\b)|\b(?:show|find|get|give|send|bring)\s+(?:me|us)\b|\brecommend|\bsuggest|"
    r"\b(?:looking|searching|search|shopping around)\s+for\b|\b(?:to|'ll)\s+look\s+for\b|"
    # "whenever I need jeans I go to Levi's" tells a habit, not a request.
    r"(?:(?<!whenever )(?<!when )\b(?:i|we)\s+(?:really\s+)?(?:need|want|would like|am after)|\b(?:i'd|we'd)\s+(?:like|love)|"
    r"\b(?:i'm|we're)\s+after)\b(?!\s+to\s+(?:spend|stay|keep|pay|go))|"
    r"\b(?:need|want)\s+(?:a|an|some|new|the|something|anything)\b|"
    r"\bdo you (?:have|sell|carry|stock)\b|\bhave you got\b|\bgot any\b|"
    r"\b(?:can|could|may)\s+(?:i|we|you)\b|\bwould you\b|\bwill you\b|\blet me see\b|"
    r"\bi'll (?:take|have|get|go with|go for)\b|\bhelp me\b|\bin stock\b|\bavailable\b|"
    r"\b(?:what|how) about\b|"
    r"\bwondering\b|\bwonder if\b|\bdo you know\b|\bany chance\b",
    re.I,
)
_PEOPLE = (
    r"(?:partner|husband|wife|boyfriend|girlfriend|son|sons|daughter|daughters|kid|kids|child|"
    r"children|mum|mom|mother|dad|father|parents|brother|brothers|sister|sisters|friend|friends|"
    r"colleague|colleagues|coworker|co-worker|workmate|boss|baby|niece|nephew|grandma|grandpa|"
    r"granny|grandad|grandmother|grandfather|grandson|granddaughter|aunt|uncle|cousin|fiance|"
    r"fiancee|flatmate|roommate|housemate|neighbour|neighbor|hubby|spouse|bestie|bf|gf|"
    r"teenager|toddler|stepson|stepdaughter|in-laws|mother-in-law|father-in-law|"
    r"other\s+half|better\s+half)"
)
# A clause whose subject is someone else says nothing about the shopper...
_OTHER_PERSON = re.compile(
    r"^(?:(?:and|but|so|also|plus|while)\s+)?(?:(?:my|our)\s+(?:\w+\s+)?" + _PEOPLE + r"(?![\w'])|"
    r"he|she|they|he's|she's|they're|his|her|their|"
    # "a friend of mine", "everyone at work", "people say": not the shopper either.
    r"(?:a|one|some)\s+(?:\w+\s+)?" + _PEOPLE + r"(?:\s+of\s+(?:mine|ours))?|"
    r"everyone|everybody|people|someone|somebody|nobody|no one|most people|lots of people)\b",
    re.I,
)
# ...and so is a clause whose predicate falls on someone else ("wool makes my son itch").
_OTHER_OBJECT = re.compile(
    r"\b(?:makes?|made|gives?|gave|brings?|leaves?|irritates?|bothers?|suits?|annoys?|bugs?|"
    r"drowns?|swamps?|suffocates?|flatters?|itch(?:es)?|scratch(?:es)?)\s+(?:(?:my|our)\s+"
    r"(?:\w+\s+)?" + _PEOPLE + r"|him|her|them)\b",
    re.I,
)
# ...though the shopper may well go to their occasion ("my best friend's wedding").
_OTHER_POSSESSIVE = re.compile(
    r"^(?:(?:and|but|so|also|plus|while)\s+)?(?:my|our)\s+(?:\w+\s+)?" + _PEOPLE + r"'s\b", re.I
)
# A state that held once and may not now: "I used to be an M", "last year I loved neon".
# Shopping for someone else: the sizes asked for are theirs ("jeans for my son, 28 waist").
_FOR_SOMEONE = re.compile(
    r"\bfor\s+(?:my|our|a)\s+(?:\w+\s+)?" + _PEOPLE + r"\b(?!')|\bfor\s+(?:him|her|them|someone)\b|"
    r"\b(?:gift|present)\b",
    re.I,
)


def for_someone_else(text: str) -> bool:
    return bool(_FOR_SOMEONE.search(text))


_SOMEONE_ELSES = re.compile(
    r"\b(?:my|our)\s+(?:\w+\s+)?" + _PEOPLE + r"(?:'s)?(?![\w'])|\bfor\s+(?:him|her|them)\b", re.I
)
_WHO = re.compile(r"^who(?:'s)?\b", re.I)
_ENDS_WITH_PERSON = re.compile(r"\b" + _PEOPLE + r"\W*$|\b(?:him|her|them)\W*$", re.I)


def about_someone_else(text: str) -> bool:
    """True when a sentence's subject is someone else and the shopper is not in it ("my
    wife is happy to see pink again", "he's not fussy about brands now")."""
    return bool(_OTHER_PERSON.match(text.strip())) and not speaks_of_self(text)


def speaks_of_self(text: str) -> bool:
    """True when the shopper is in the clause themselves, not only as the owner of someone
    ("my husband" names him; "I" or "my size" names the shopper)."""
    return bool(FIRST_PERSON.search(_SOMEONE_ELSES.sub(" ", text)))


_PAST = re.compile(
    r"\b(?:used to|use to|i'd been|i had been|back then|back in|back when|as an? (?:kid|child|teen|teenager|student|"
    r"baby|boy|girl)|when i was|when we were|i was|we were|i wore|i had|i liked|i loved|i hated|"
    r"i preferred|i adored|i bought|i hated|was (?:into|obsessed|mad about|crazy about)|"
    r"\w+ ago|last (?:year|month|week|summer|winter|spring|autumn|fall|christmas|season|time)|"
    r"in the past|previously|formerly|at one point|for a while|in my (?:teens|twenties|thirties|"
    r"forties|youth|younger days)|in (?:high school|college|school|uni|university)|"
    r"before (?:my|i|the|having|kids)|got back|came back|returned from|back from|"
    r"(?:my|the)\s+(?:old|former|previous)|(?:budget|size|waist|limit)\s+(?:was|were|used)|"
    # "black was my colour": a possessive frame in the past tense.
    r"(?:was|were)\s+(?:my|our|all\s+i))\b",
    re.I,
)
# ...unless it still holds: "I've worn Birkenstocks since I was a teenager".
_STILL = re.compile(
    r"\b(?:i've|i have|we've|have|has)\s+(?:\w+\s+){0,2}?(?:been|worn|bought|loved|liked|"
    r"had|shopped|stuck|stayed|used)\b.*\b(?:since|for (?:years|ages|decades|a decade|"
    r"a long time|as long as|\w+ years))\b",
    re.I,
)
# A state compared with a past one still holds: "I've gone up to an XL since last year".
_SINCE_THEN = re.compile(
    r"\b(?:since|from|than)\s+(?:what\s+i\s+used\s+to\s+\w+|i\s+used\s+to(?:\s+be)?|"
    r"last\s+\w+|\w+\s+ago|before)\b",
    re.I,
)
# A supposition: "if I were an M", "in case my size is a 40". Nothing in it holds.
_SUPPOSED = re.compile(
    r"\b(?:if(?!\s+(?:possible|at all possible|i can|that helps|it helps|that matters|you need "
    r"to know|you must know|you're wondering|you're asking)\b)|unless|in case|suppose|supposing|"
    r"assuming|whether|imagine|imagining|hypothetically|in theory|what if)\b",
    re.I,
)
# A hedge: the shopper is unsure of what the clause says ("I might be a medium", "I'd
# probably take a 40", "not sure if I'm a 38"). A figure to spend is approximate by nature
# ("maybe 60 euros max"), so a hedge keeps only the budget.
_HEDGED = re.compile(
    r"\b(?:might|maybe|perhaps|probably|possibly|presumably|not sure|unsure|no idea|"
    r"don't know|do not know|dunno|not certain|i think|i guess|i suppose|i reckon|i believe|"
    r"hopefully|would be|'d be|could be|may be|ought to be|should be)\b|"
    r"\b(?:would|'d|could)\s+(?:(?!never\b|not\b|rather\b)\w+\s+)?(?:take|wear|fit|be)\b",
    re.I,
)
# A clause that starts with one of these is the shopper talking with "I" left out
# ("not a fan of orange", "prefer Adidas", "budget about 100 euros").
_ELIDED_I = re.compile(
    r"^(?:(?:and|also|plus|so|oh|honestly|personally|definitely|really|please)\s+)*"
    r"(?:not|no|never|(?:don't|do\s+not)\s+(?:really\s+)?(?:like|love|care\s+for|fancy|enjoy|mind|"
    r"wear|buy|do|suit)|love|loves|adore|like|prefer|hate|dislike|detest|loathe|can't|cannot|big|huge|only|always|mostly|"
    r"usually|anything but|everything but|nothing|budget|allergic|sick of|tired of|done with|"
    r"strictly|going|heading|off to|team|shoe size|generally|typically|normally|pure|could|would|"
    r"can|might|looking to|planning|crazy about|mad about|nuts about|wild about|obsessed|"
    r"can't get enough|cannot get enough|sucker for|a sucker|partial to|soft spot|a soft spot|"
    r"huge fan|a huge fan|a big fan|drawn to|hooked on|keen on|sensitive to|itchy in|"
    r"(?:basically\s+|practically\s+)?live in|skint|broke|strapped|watching|saving|"
    r"(?:a\s+)?bit\s+(?:short|low|skint|broke|tight|strapped)|short\s+on|low\s+on|got|"
    # "Ditched polyester", "switched to linen": a change of the shopper's own.
    r"ditched|dropped|quit|switched|swapped|moved|gave\s+up|stopped|started|gone\s+off|went\s+off|"
    r"got\s+rid\s+of|given\s+up|fell\s+for|over|used\s+to|"
    # "Went up a size over lockdown", "up a size since last year": the shopper's own change.
    r"(?:went|gone|come|came)\s+(?:up|down)\s+a\s+size|(?:up|down)\s+a\s+size|"
    # "any colour is fine, except brown": the exception to the shopper's own lift.
    r"except|apart\s+from|other\s+than)\b",
    re.I,
)
# In a sentence that asks for nothing, these name the shopper's own measures without an "I":
# "shoe size 43", "38 in shoes, M in tops", "Budget: 150".
_FACT_NOUN = re.compile(
    rf"\b(?:shoe size|size\s+(?:\d{{1,2}}|{LETTER_SIZE_ALTERNATIVES})|budget|waist|inseam|w\d{{2}}|"
    r"\d{2}\s*(?:leg|length))\b|"
    r"^" + GARMENT_NOUNS + r"\s*(?::|in)?\s*(?:always\s+|usually\s+|normally\s+)?"
    rf"(?:an?\s+|size\s+)?(?:\d{{1,2}}|{LETTER_SIZE_ALTERNATIVES})\b|"
    # "Medium tops, 42 shoes": a size before the garment, the whole clause.
    r"^(?:(?:and|also|plus)\s+)?(?:an?\s+)?(?:(?:uk|us|eu)\s*)?(?:\d{1,2}(?:\.5)?|"
    rf"{LETTER_SIZE_ALTERNATIVES}|small|medium|large)\s+" + GARMENT_NOUNS + r"$|"
    # "XL for coats, everything else M": the rest of the wardrobe.
    r"^(?:(?:and|but)\s+)?(?:for\s+|in\s+)?(?:everything|anything)\s+else\s*:?\s*"
    rf"(?:an?\s+|size\s+)?(?:\d{{1,2}}|{LETTER_SIZE_ALTERNATIVES})$|"
    r"^(?:(?:and|also|plus|generally|usually|normally|mostly|always)\s+)?(?:an?\s+)?"
    rf"(?:(?:uk|us|eu)\s*)?(?:\d{{1,2}}(?:\.5)?|{LETTER_SIZE_ALTERNATIVES}|small|medium|large)\s+(?:in|for)\s+"
    r"(?:my\s+|most\s+)?" + GARMENT_NOUNS + r"\b",
    re.I,
)


_PRODUCT_SUBJECT = re.compile(r"^(?:this|that|these|those|the|it|it's|its)\b", re.I)
# "L", "size M", and after a change "L now", "an XL these days".
BARE_SIZE = re.compile(
    rf"^(?:(?:size|an?)\s+)?(?:{LETTER_SIZE_ALTERNATIVES})(?:\s+(?:now|these\s+days|nowadays))?$"
)
# A size given for something, with no subject: "XL for jackets, L for everything else".
_SIZE_FOR = re.compile(
    rf"^(?:(?:and|but)\s+)?(?:size\s+)?(?:{LETTER_SIZE_ALTERNATIVES}|(?i:small|medium|large))\s+"
    r"(?:(?:for|in)\s+(?:\w+\s+)?\w+|(?i:otherwise|elsewhere))$"
)
_PLEASE = re.compile(r"\bplease\b", re.I)
# "XL in coats please remember": a note to keep, not a request.
_NOTE = re.compile(
    r"\b(?:remember|note|keep\s+in\s+mind|bear\s+in\s+mind|for\s+the\s+record)\b", re.I
)
_PREFERENCE_WORD = re.compile(r"\b(?:only|no|not|never|pure|nothing|without|avoid)\b|100%", re.I)


@dataclass
class Clause:
    text: str
    start: int
    kind: str  # "statement", "request" or "question"
    about_shopper: bool
    other_person: bool
    other_possessive: bool
    past: bool
    hard: bool  # begins after "but", "though"...: a list does not go on across it
    supposed: bool = False  # a supposition: nothing in it holds
    hedged: bool = False  # unsure: it keeps at most a budget


@dataclass
class Sentence:
    text: str
    start: int
    clauses: list[Clause] = field(default_factory=list)


_TERM_IS = re.compile(
    r"\b("
    + "|".join(
        sorted(
            (re.escape(word) for terms in (COLOUR_TERMS, MATERIAL_TERMS) for word in terms),
            key=len,
            reverse=True,
        )
    )
    + r")'s\b",
    re.I,
)


# Contractions typed without their apostrophe: "i dont mind", "its fine", "cant stand".
_BARE_CONTRACTIONS = re.compile(
    r"\b(do|does|did|is|are|was|were|would|could|should|ca|wo|have|has)nt\b|\b(i)(m|ve)\b", re.I
)


def _contraction(match: re.Match) -> str:
    if match.group(1):
        return f"{match.group(1)}n't"
    return f"{match.group(2)}'{match.group(3)}"


def normalise(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u00a0", " ")
    text = _BARE_CONTRACTIONS.sub(_contraction, text)
    # "vintage-looking", "sporty-style": the word before is the term.
    text = re.sub(r"(?<=\w)-(?=(?:looking|style|inspired|ish)\b)", " ", text, flags=re.I)
    text = re.sub(r"\b(budget|size)-wise\b,?", r"\1", text, flags=re.I)  # "budget-wise, 60"
    text = re.sub(r"\b(?:spending|price|money|cost)-wise\b,?", "budget", text, flags=re.I)
    text = re.sub(r"(?<=\w)-and-(?=\w)", " and ", text)  # "black-and-white"
    text = _TERM_IS.sub(r"\1 is", text)  # "navy's my colour": the 's is "is"
    text = re.sub(r"\b(my|our|your|the|a)\s+go\s+to\b", r"\1 go-to", text, flags=re.I)
    # "polyester and I don't get along": the fabric is the subject of the predicate.
    text = re.sub(
        r"\s+and\s+i\s+(?:just\s+|really\s+)?(?:don't|do not|never)\s+get\s+(?:along|on)\b",
        " doesn't get along with me",
        text,
        flags=re.I,
    )
    # Wide or narrow feet need that width of shoe: "I have wide feet", "my feet are narrow".
    text = re.sub(
        r"\b(?:i\s+have|i've\s+got|i've|i\s+got)\s+(?:really\s+|quite\s+|very\s+|rather\s+|"
        r"pretty\s+|super\s+)?(wide|narrow)\s+(?:feet|foot)\b"
        r"|\bmy\s+feet\s+are\s+(?:really\s+|quite\s+|very\s+|rather\s+|pretty\s+|super\s+)?"
        r"(wide|narrow)\b",
        lambda m: f"I like {(m.group(1) or m.group(2)).lower()}-fit shoes",
        text,
        flags=re.I,
    )
    return numbers_in_digits(text)


def sentences_read(text: str) -> list[Sentence]:
    sentences = []
    position = 0
    for part in _SENTENCE_END.split(text):
        start = text.find(part, position) if part else position
        position = start + len(part)
        if part.strip():
            sentence = Sentence(text=part.strip(), start=start)
            sentence.clauses = _clauses(sentence.text)
            sentences.append(sentence)
    return sentences


def _clauses(sentence: str) -> list[Clause]:
    pieces: list[tuple[str, int, bool]] = []
    supposed: set[int] = set()  # starts of the clauses that state a supposition
    noted: set[int] = set()  # starts of the clauses after "remember that", said outright
    last, hard, condition = 0, False, False
    for match in _CLAUSE_SEP.finditer(sentence):
        pieces.append((sentence[last : match.start()], last, hard))
        if condition:
            supposed.add(last)
        separator = match.group(0).strip(" ,;").lower()
        if separator.endswith(" that"):
            noted.add(match.end())
        hard = separator in _HARD_SEPS or separator in _CONDITIONS
        condition = separator in _CONDITIONS
        if condition and not sentence[: match.start()].strip(" ,"):
            # "If I were an M, would it fit?": what follows the condition is supposed too.
            supposed.add(-1)
        last = match.end()
    pieces.append((sentence[last:], last, hard))
    if condition:
        supposed.add(last)
    if -1 in supposed:
        condition_starts = sorted(start for start in supposed if start >= 0)
        after = [s for _, s, _ in pieces if condition_starts and s > condition_starts[0]]
        supposed.update(after[:1])
    question_sentence = sentence.rstrip().endswith("?")
    first_person = any(
        FIRST_PERSON.search(text) and not _OTHER_PERSON.search(text.strip())
        for text, _, _ in pieces
    )
    kept = [(text.strip(), start, hard) for text, start, hard in pieces if text.strip()]
    kinds = []
    for index, (text, start, _) in enumerate(kept):
        if start in noted or (index and _WHO.match(text)):
            kinds.append("statement")  # "someone who loves linen" asks nothing
        elif (question_sentence and index == len(kept) - 1) or _QUESTION_START.search(text):
            kinds.append("question")
        elif _REQUEST.search(text) or (
            # "XL please" asks; "cotton only please" states a preference.
            not first_person
            and _PLEASE.search(text)
            and not _PREFERENCE_WORD.search(text)
            and not _NOTE.search(text)
        ):
            kinds.append("request")
        else:
            kinds.append("statement")
    asks = any(
        kind != "statement" and not _PLEASE.fullmatch(text.rstrip(" .!"))
        for kind, (text, _, _) in zip(kinds, kept, strict=True)
    )
    clauses = []
    # "XS, love pink, vegan only": a bare size among the shopper's own words is theirs.
    elided = not asks and any(_ELIDED_I.search(text) for text, _, _ in kept)
    # Once the talk is of someone else, a clause that names no one goes on about them:
    # "for my husband: he's an XL and hates yellow", "my dad, who loves Vela".
    about_other = False
    for (text, start, hard), kind in zip(kept, kinds, strict=True):
        other = bool(_OTHER_PERSON.search(text) or _OTHER_OBJECT.search(text))
        if _WHO.match(text) and about_other:
            other = True
        elif not other and (about_other or _FOR_SOMEONE.search(text)):
            other = not speaks_of_self(text)
        about_other = other or bool(_ENDS_WITH_PERSON.search(text) or _FOR_SOMEONE.search(text))
        possessive = bool(_OTHER_POSSESSIVE.search(text))
        if _PRODUCT_SUBJECT.match(text) and not FIRST_PERSON.search(text):
            # "This shirt is 100% cotton" describes a product, not the shopper.
            clauses.append(Clause(text, start, kind, False, False, False, False, hard))
            continue
        about = (
            not other
            and not possessive
            and bool(
                FIRST_PERSON.search(text)
                or first_person
                or _ELIDED_I.search(text)
                or (not asks and (_FACT_NOUN.search(text) or _PREFERENCE_WORD.search(text)))
                or (elided and BARE_SIZE.match(text))
                or (not asks and _SIZE_FOR.match(text))
                or (not asks and BRAND_SUBJECT.match(text))
                or (not asks and VERDICT.search(text))
            )
        )
        past = bool(_PAST.search(_SINCE_THEN.sub(" ", text))) and not _STILL.search(text)
        clause = Clause(text, start, kind, about, other, possessive, past, hard)
        clause.supposed = start in supposed or bool(_SUPPOSED.search(text))
        clause.hedged = clause.supposed or bool(_HEDGED.search(text))
        clauses.append(clause)
    return clauses
