"""Changes of mind: how a message says a fact no longer holds and what holds instead.

- `plain_readings` rewrites the ways of stating a change or a standing refusal into the
  plain statement the clause readers already understand. A change is read by its
  structure, whatever the slot: an old value and a new one joined by "from ... to",
  "to ... from", "<dropped> ... for", "instead of", "... is out, ... is in", or a past
  state followed by "now it's ...". The new value is liked (or becomes the size); the old
  one is given up, which for a preference is a dislike and for a size or a figure is
  nothing. "Never show me orange" dislikes orange (a standing dislike, not an
  instruction); "make that a 41" states 41.
Lifts ("yellow's fine now", "any brand is fine") are read in `lifts`; one-offs, irony and
one brand's sizing in `once`.
"""

from __future__ import annotations

import re

from llm.offline.judge.once import places_named
from llm.offline.judge.predicates import NOT_BRANDS, PHRASES, TOKEN
from llm.offline.judge.restated import figure_restated, style_restated
from llm.offline.judge.words import FIRST_PERSON
from llm.shopper_words import CURRENCY_WORD_ALTERNATIVES
from llm.shopper_words import LETTER_SIZE_ALTERNATIVES as _LETTER

# --- Plain readings --------------------------------------------------------------------

_NEVER_SHOW = re.compile(
    r"^(?P<lead>\W*(?:please\s+)?)(?:(?:never|don't\s+ever|do\s+not\s+ever|don't|do\s+not)\s+"
    r"(?:ever\s+)?(?:show|suggest|recommend|offer|send|include)(?:\s+me)?|i\s+never\s+want\s+to\s+see|"
    r"i\s+don't\s+(?:ever\s+)?want\s+to\s+see)\s+"
    r"(?:(?:me\s+)?(?:anything|any|stuff|things|items|clothes)\s+(?:in|with|from|made\s+(?:of|from)|by)\s+|"
    r"any\s+)?(?P<what>.+?)(?P<tail>(?:\s+to\s+me)?(?:\s+(?:again|ever|any\s?more|please))*)"
    r"(?P<end>\s*(?:[,;]\s*(?P<reason>.*))?[.!]*)$",
    re.I,
)
# A "don't show me" is standing only with a sign that it is: "ever", "again", a reason.
_STANDING = re.compile(r"\b(?:never|ever|again|any\s?more)\b", re.I)
# "No more orange suggestions": a standing refusal of what would be suggested.
_NO_MORE_SHOWN = re.compile(
    r"^(?P<lead>\W*)no\s+more\s+(?P<what>.+?)\s+(?:suggestions|recommendations|options|"
    r"results|stuff|things|items)\b",
    re.I,
)
# "Please update my shoe size to 43", "my budget used to be 100 but it's 60 these days".
_MEASURE_NOW = re.compile(
    r"^(?P<lead>\W*)(?:please\s+)?(?:update|change|set|put)\s+my\s+(?P<noun>budget|shoe\s+size|size|"
    r"waist|inseam)\s+(?:to|as)\s+(?P<new>[^,;.!?]+)"
    r"|\bmy\s+(?P<noun2>budget|shoe\s+size|size|waist|inseam)\s+(?:used\s+to\s+be|was)\s+[^,;]+?"
    r"(?:,\s*|\s+)(?:but\s+|and\s+)?(?:now\s+)?(?:it's|it\s+is)\s+(?P<new2>[^,;.!?]+)",
    re.I,
)
# A preference said as an idiom of choosing: "give me black any day", "I'll take linen every time".
_ANY_DAY = re.compile(
    r"^(?P<lead>\W*)(?:give\s+me|i'll\s+(?:take|pick|choose))\s+(?P<what>.+?)(?:\s+(?:any\s+day|"
    r"every\s+time|any\s+time)\b|(?=\s+over\s))",
    re.I,
)
# A figure retracted for a new one: "scratch the budget of 50, it's 70 now".
_RETRACTED = re.compile(
    r"^(?P<lead>\W*)(?:scratch|forget|ignore|cancel|disregard|strike)\s+(?:that|what\s+i\s+said\s+"
    r"about\s+)?(?:the|my)?\s*(?:[\d.]+\s*)?(?P<noun>budget|shoe\s+size|size|waist|inseam)\b[^,;]*[,;]\s*"
    r"(?:(?:now|actually)\s+)?(?:it's|it\s+is|make\s+it|it\s+should\s+be)\s+(?P<new>[^,;.!?]+)",
    re.I,
)
_KEEP_AWAY = re.compile(
    r"^(?P<lead>\W*(?:please\s+)?)keep\s+(?P<what>.+?)\s+away\s+from\s+me\b", re.I
)
# Verbs of a change, in every form a shopper says them in ("switched", "I'm switching").
_CHANGE_VERB = (
    r"(?:switch(?:ed|ing)?|mov(?:e|ed|ing)|chang(?:e|ed|ing)|go|went|gone|going|"
    r"swap(?:ped|ping)?|convert(?:ed|ing)?|jump(?:ed|ing)?(?:\s+ship)?|drop(?:ped|ping)?|"
    r"shift(?:ed|ing)?|transition(?:ed|ing)?|migrat(?:e|ed|ing)|upgrad(?:e|ed|ing)|"
    r"graduat(?:e|ed|ing))"
)
# Verbs that give the old value up for the new one: "I ditched Vela for Tern".
_GIVE_UP_VERB = (
    r"(?:ditch(?:ed|ing)?|swap(?:ped|ping)?(?:\s+out)?|trad(?:e|ed|ing)(?:\s+in)?|"
    r"exchang(?:e|ed|ing)|replac(?:e|ed|ing)|dump(?:ed|ing)?|gave\s+up|given\s+up|"
    r"giving\s+up|dropp(?:ed|ing)|drop|abandon(?:ed|ing)?|left)"
)
_WHO = (
    r"(?:i|i've|i\s+have|i'm|i\s+am|we|we've|we're|i\s+just|i\s+recently|i\s+finally|"
    # "my style has shifted from sporty to classic": the shopper's own taste as the subject.
    r"my\s+(?:style|taste|tastes|look|wardrobe|go-to|preference|preferences)(?:\s+has|'s)?)"
)
# Where the new value ends: a time, a reason or the end of the clause.
_REST = (
    r"(?P<rest>\s+(?:this|last|in|for|since|a|recently|lately|now|these|nowadays|because|"
    r"after|when|and|but|instead|completely|entirely|altogether)\b.*|[,.;!?].*|$)"
)
_FROM_TO = re.compile(
    rf"(?:\b{_WHO}\s+(?:\w+\s+)?|^){_CHANGE_VERB}(?:\s+(?:over|up|down|back|across|away))?\s+"
    # "I switched my usual brand from ...": what was changed, named between verb and "from".
    rf"(?:(?:my|our)\s+(?P<what>(?:\w+\s+){{0,2}}?))?from\s+(?P<old>.+?)\s+(?:over\s+|across\s+|straight\s+)?(?:to|towards?|into)\s+"
    rf"(?P<new>.+?){_REST}",
    re.I,
)
_TO_FROM = re.compile(
    rf"(?:\b{_WHO}\s+(?:\w+\s+)?|^){_CHANGE_VERB}(?:\s+(?:over|across))?\s+to\s+(?P<new>.+?)\s+from\s+"
    rf"(?P<old>.+?){_REST}",
    re.I,
)
_GIVEN_FOR = re.compile(
    rf"(?:\b{_WHO}\s+(?:\w+\s+)?|^){_GIVE_UP_VERB}\s+(?P<old>.+?)\s+(?:for|with|in\s+favou?r\s+of)\s+"
    rf"(?P<new>.+?){_REST}",
    re.I,
)
_OUT_IN = re.compile(
    r"^(?P<old>[^,;]+?)(?:\s+(?:is|are)|'s)\s+out\s*[,;]?\s*(?:and\s+)?(?P<new>[^,;]+?)"
    r"(?:\s+(?:is|are)|'s)\s+in\b(?!\s+stock)(?P<rest>.*)$"
    # "Goodbye Mistral, hello Copperleaf": the old one seen off, the new one greeted.
    r"|^\W*(?:good\s*bye|bye(?:\s+bye)?|farewell|so\s+long)\s+(?P<old2>[^,;]+?)\s*[,;]?\s*(?:and\s+)?"
    r"(?:hello|hi|welcome)\s+(?P<new2>[^,;.!]+?)(?P<rest2>[,;.!].*|$)"
    r"|^\W*(?:hello|hi|welcome)\s+(?P<new3>[^,;]+?)\s*[,;]?\s*(?:and\s+)?"
    r"(?:good\s*bye|bye(?:\s+bye)?|farewell|so\s+long)\s+(?P<old3>[^,;.!]+?)(?P<rest3>[,;.!].*|$)",
    re.I,
)
# "I'm off stripes these days": a taste left, with a sign that the mind changed.
_OFF_NOW = re.compile(
    r"\b(?P<who>i'm|i\s+am)\s+(?:totally\s+|completely\s+|a\s+bit\s+|right\s+)?off\s+(?!to\b)"
    r"(?P<what>[^,;.!?]+?)\s+(?P<when>these\s+days|now|nowadays|lately|at\s+the\s+moment)\b",
    re.I,
)
# "I said a 30 waist earlier, it's actually 31": what was said before gives way to what is.
_SAID_ACTUALLY = re.compile(
    r"^(?P<lead>\W*)i\s+(?:said|told\s+you|wrote|typed|put)\s+(?P<old>[^,;]+?)"
    r"(?:\s+(?:earlier|before|by\s+mistake))?\s*[,;]\s*(?:but\s+)?(?:it's|it\s+is|i'm|i\s+am)\s+"
    r"actually\s+(?P<new>[^,;.!?]+)",
    re.I,
)
# "I used to buy Harbor Supply but I've switched to Loom & Lane": a habit of the past, then a
# switch away from it; the old taste is given up as in "from ... to".
_HABIT_THEN_SWITCH = re.compile(
    r"\b(?:i\s+used\s+to|i'd\s+been|i\s+had\s+been)\s+(?:buy(?:ing)?|wear(?:ing)?|get(?:ting)?|"
    r"shop(?:ping)?\s+at)\s+(?P<old>[^,;]+?)(?:\s+(?:for\s+(?:years|ages)|all\s+the\s+time))?\s*,?\s+"
    r"(?:but|and|so)\s+(?:now\s+)?(?:i've|i\s+have|i)\s+(?:now\s+)?(?:switched|moved|changed|gone\s+over|"
    r"swapped)\s+(?:over\s+)?to\s+(?P<new>[^,;.!?]+?)(?P<rest>\s+(?:now|these\s+days)\b.*|[,;.!?].*|$)",
    re.I,
)
_MEASURE_NOUN = re.compile(r"\b(?P<noun>budget|shoe\s+size|waist|inseam)\b", re.I)
# "... instead of ..." changes a state only when the sentence says the mind moved.
_INSTEAD = re.compile(
    r"\s+(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+(?P<old>.+?)"
    r"(?P<rest>\s+(?:now|these\s+days|nowadays|from\s+now\s+on|going\s+forward|any\s?more)\b.*|"
    r"[,.;!?].*|$)",
    re.I,
)
_MOVED_ON = re.compile(
    r"\b(?:now|these\s+days|nowadays|from\s+now\s+on|going\s+forward|any\s?more|no\s+longer|"
    r"switch\w*|mov(?:ed|ing)\s+on|changed)\b",
    re.I,
)
# A past state, then "now it's ...": "black was my colour, now it's navy".
_NOW_IT_IS = re.compile(
    r"(?P<lead>[,;]\s*(?:but\s+|and\s+)?)(?:now|these\s+days|nowadays)\s*,?\s+"
    r"(?:it's|it\s+is|they're|they\s+are|its)\s+(?:all\s+(?:about\s+)?)?(?P<new>[^,;.!?]+)",
    re.I,
)
# After a change, "it's all Northwind now", "it's cotton all the way now": the new taste.
_ALL_NOW = re.compile(
    r"(?P<lead>[,;]\s*(?:but\s+|and\s+|so\s+)?)(?:it's|it\s+is|its|they're|they\s+are|give\s+me|"
    r"i'll\s+take|i'll\s+go\s+for)\s+"
    r"(?:all\s+)?(?P<new>[^,;.!?]+?)\s+(?:all\s+the\s+way\s+|only\s+|for\s+me\s+)?"
    r"(?:now|these\s+days|nowadays)(?P<end>\s*[.!]*)$",
    re.I,
)
_WAS_MINE = re.compile(r"\b(?:was|were|used\s+to(?:\s+be)?)\b", re.I)
# A bare term said to hold from now on, after a comma: "no more Mistral, Solstice from now on".
_FROM_NOW_ON = re.compile(
    r"(?P<lead>^|[,;]\s*(?:but\s+|and\s+)?)(?!(?:show|find|give|get|send|please|no|not|"
    r"never|just)\b)(?P<what>[^,;.!?]+?)\s+(?:from\s+now\s+on|going\s+forward|from\s+here\s+on)"
    r"(?P<end>\s*[.!]*)$",
    re.I,
)
_WHEN = re.compile(
    r"\s+(?:(?:this|last|in\s+the)\s+\w+|recently|lately|since\s+\w+|\w+\s+ago|in\s+\d{4})\b", re.I
)
_MEASURE_FROM_TO = re.compile(
    rf"\b(?P<whose>my\s+(?:waist|inseam|shoe\s+size|size|feet|foot|budget))\s+(?:has\s+|'s\s+)?"
    rf"{_CHANGE_VERB}\s+(?:up\s+|down\s+)?from\s+(?:an?\s+|size\s+)?[\w.€£$]+\s+to\s+"
    rf"(?:an?\s+|size\s+)?(?P<new>[\w.€£$]+)",
    re.I,
)
_MAKE_THAT = re.compile(
    r"^(?P<lead>\W*(?:actually|sorry|oops|no|wait)?[\s,]*)(?:make|change)\s+(?:that|it)\s+"
    r"(?:to\s+)?(?=(?:an?\s+|size\s+)?[\dXSMLxsml])",
    re.I,
)
# "Everything M except coats, which are L": the exception gets its own size, the rest theirs.
_ALL_BUT = re.compile(
    r"^(?P<lead>\W*)(?i:i'm\s+|i\s+am\s+|i\s+wear\s+|i\s+take\s+)?(?i:an?\s+)?(?:(?i:everything|all)\s+"
    rf"(?i:in\s+)?(?i:an?\s+)?(?P<rest>{_LETTER})|(?P<rest2>{_LETTER})\s+"
    r"(?i:for|in)\s+(?i:everything|all))\s*,?\s+(?i:except|apart\s+from|but|other\s+than)\s+(?i:for\s+|in\s+)?"
    r"(?P<garment>[a-z-]+)\s*,?\s*(?i:which\s+are|where\s+i'm|i'm|are|in|at|:)?\s*(?i:an?\s+)?"
    rf"(?P<size>{_LETTER})\b"
)
# "Not a small anymore - medium": the old size denied, then the new one.
_NOT_ANY_MORE = re.compile(
    r"^(?P<lead>\W*)(?i:i'm\s+|i\s+am\s+)?(?i:not|no\s+longer)\s+(?i:an?\s+|size\s+)?"
    rf"(?:\d{{1,2}}(?:\.5)?|{_LETTER}|(?i:small|medium|large))(?:\s+(?i:any\s?more))?"
    r"\s*(?:[-\u2013\u2014,:;]\s*|\s+)(?i:i'm\s+|now\s+|it's\s+|it\s+is\s+)?(?i:an?\s+|size\s+)?"
    rf"(?P<new>\d{{1,2}}(?:\.5)?|{_LETTER}|(?i:small|medium|large))\b"
)
# "Actually L, not M", "sorry, 42 not 41": a bare size corrected against the old one.
_SIZE_NOT_THAT = re.compile(
    r"^(?P<lead>\W*(?i:actually|sorry|oops|no|nope|wait|correction|update)\b[\s,:!.-]*)"
    rf"(?=(?i:an?\s+|size\s+)?(?:\d{{1,2}}(?:\.5)?|{_LETTER})\b[^,;]*?[,;]?\s*(?i:not)\b)",
)
# "Oops, I meant L not XL": the size meant, against the one said by mistake.
# "Not blue, I meant I like green": the word said by mistake is taken back, not refused.
_NOT_MEANT = re.compile(
    r"^(?P<lead>\W*)(?i:not)\s+[^,;]+?\s*[,;:-]\s*(?i:i\s+)?(?i:meant)\s+(?P<new>.+)$"
)
_NOW_SAID = re.compile(r"\b(?:now|these\s+days|nowadays|instead)\b|[.!]", re.I)
_MEANT_NOT = re.compile(
    r"^(?P<lead>\W*(?:(?i:actually|sorry|oops|typo|no|wait|sorry\s+typo)\b[\s,:!.-]*)*)"
    r"(?i:i\s+)?(?i:meant|mean)\s+"
    rf"(?=(?i:an?\s+|size\s+)?(?:\d{{1,2}}(?:\.5)?|{_LETTER})\b[^,;]*?[,;]?\s*(?i:not)\b)",
)
# "Not Vela any more, Solstice is my brand now": a name denied with a changed mind.
_NAME_DENIED = re.compile(
    r"^(?P<lead>\W*)(?:(?i:i'm|i\s+am)\s+)?(?i:not|no\s+more)\s+(?P<what>[^,;:]+?)\s+"
    r"(?i:any\s?more|these\s+days|nowadays)\s*(?P<sep>[,;:]|\s[-\u2013\u2014])"
)
_SIZE_LIKE = re.compile(
    r"^(?:my\s+)?(?:an?\s+|size\s+|(?:uk|us|eu)\s+)?(?:\d{1,3}(?:[.,]\d{1,2})?|x{0,3}[sl]|xs|m|small|medium|"
    rf"large)(?:\s*(?:uk|us|eu|waist|in\s+\w+|[€£$]|{CURRENCY_WORD_ALTERNATIVES}))?$",
    re.I,
)
_NOW_A = "I'm now a "
_PRODUCT = re.compile(r"^(?:the|that|this|those|these|it|them|one)\b", re.I)


def plain_readings(text: str) -> str:
    """The message with its changes and standing refusals said plainly, sentence by sentence
    (the readers take it from there)."""
    text = _NOW_AFTER_STOP.sub(r", \g<when> I'm a \g<size>", text)
    text = _GIVEN_UP_AFTER_STOP.sub(r", not \g<tail>", text)
    parts = re.split(r"(?<=[.!?])\s+", text)
    return " ".join(_plain(figure_restated(part)) for part in parts)


# "Used to love Kestrel. Now? Not so much.": a liking taken back after a stop takes back
# the sentence before it, so the two are read as one.
_GIVEN_UP_AFTER_STOP = re.compile(
    r"(?<=\w)\s*[.;!]\s+(?:(?i:now|these\s+days|nowadays)\s*[?,.]*\s+)?(?i:but\s+)?(?i:not)\s+"
    r"(?P<tail>(?i:so\s+much|any\s?more)(?:\s+(?i:now|these\s+days))?)\s*(?=[.!]*\s*$)"
)
# "Used to be a 38 in shoes. These days a 39.": the new size goes with the old one's words.
_NOW_AFTER_STOP = re.compile(
    r"[.;]\s+(?P<when>(?i:now|these\s+days|nowadays|today))[,]?\s+(?:(?i:i'm|im|i\s+am)\s+)?"
    rf"(?:(?i:an?)\s+)?(?P<size>\d{{1,2}}(?:\.5)?|{_LETTER})(?=\s*[.!]?\s*$|\s*[.!]\s)"
)


def _plain(sentence: str) -> str:
    shown = _NEVER_SHOW.match(sentence)
    if shown and (_STANDING.search(sentence) or shown.group("reason")):
        reason = shown.group("reason")
        lead = re.sub(r"please\s+", "", shown.group("lead"), flags=re.I)
        return f"{lead}I hate {shown.group('what')}" + (f", {reason}" if reason else ".")
    said = _SAID_ACTUALLY.match(sentence)
    if said:
        noun = _MEASURE_NOUN.search(said.group("old"))
        whose = f"My {noun.group('noun').lower()} is" if noun else "I'm"
        return f"{said.group('lead')}{whose} {said.group('new')}" + sentence[said.end() :]
    measure_now = _MEASURE_NOW.search(sentence)
    if measure_now:
        noun = (measure_now.group("noun") or measure_now.group("noun2")).lower()
        new = measure_now.group("new") or measure_now.group("new2")
        lead = measure_now.group("lead") or sentence[: measure_now.start()]
        return f"{lead}My {noun} is {new}" + sentence[measure_now.end() :]
    any_day = _ANY_DAY.match(sentence)
    if any_day:
        return f"{any_day.group('lead')}I love {any_day.group('what')}" + sentence[any_day.end() :]
    no_more = _NO_MORE_SHOWN.match(sentence)
    if no_more:
        return f"{no_more.group('lead')}I hate {no_more.group('what')}" + sentence[no_more.end() :]
    retracted = _RETRACTED.match(sentence)
    if retracted:
        noun, new = retracted.group("noun").lower(), retracted.group("new")
        return f"{retracted.group('lead')}My {noun} is {new}" + sentence[retracted.end() :]
    away = _KEEP_AWAY.match(sentence)
    if away:
        lead = re.sub(r"please\s+", "", away.group("lead"), flags=re.I)
        return f"{lead}I hate {away.group('what')}" + sentence[away.end() :]
    measure = _MEASURE_FROM_TO.search(sentence)
    if measure:
        return (
            sentence[: measure.start()]
            + f"{measure.group('whose')} is {measure.group('new')} now"
            + sentence[measure.end() :]
        )
    changed = _change_said(sentence)
    if changed is not None:
        return changed
    all_but = _ALL_BUT.match(sentence)
    if all_but:
        rest = all_but.group("rest") or all_but.group("rest2")
        said = f"{all_but.group('garment')} in {all_but.group('size')}, everything else {rest}"
        return all_but.group("lead") + said + sentence[all_but.end() :]
    denied = _NOT_ANY_MORE.match(sentence)
    if denied:
        return f"{denied.group('lead')}I'm a {denied.group('new')} now" + sentence[denied.end() :]
    styled = style_restated(sentence)
    if styled is not None:
        return styled
    not_meant = _NOT_MEANT.match(sentence)
    if not_meant:
        return not_meant.group("lead") + not_meant.group("new")
    denied_name = _NAME_DENIED.match(sentence)
    if denied_name and names_only(denied_name.group("what")):
        rest = sentence[denied_name.end() :].lstrip()
        if names_only(_NOW_SAID.sub(" ", rest)):
            rest = f"I love {rest}"  # "Not Vela any more, Solstice now": the new name is liked
        return f"{denied_name.group('lead')}I'm over {denied_name.group('what')}, {rest}"
    made = (
        _MAKE_THAT.match(sentence) or _SIZE_NOT_THAT.match(sentence) or _MEANT_NOT.match(sentence)
    )
    if made:
        return f"{made.group('lead')}I'm " + sentence[made.end() :]
    return sentence


def _change_said(sentence: str) -> str | None:
    """The sentence with its old value given up and its new one stated, or None when it
    states no change. The shopper's own change only: "my husband switched" is his."""
    if sentence.rstrip().endswith("?") or places_named(sentence):
        return None  # a question, or a move of house ("moving from Berlin to Oslo soon")
    for pattern in (_FROM_TO, _TO_FROM, _GIVEN_FOR):
        match = pattern.search(sentence)
        if match:
            rest = match.group("rest")
            # When the change was made ("last winter") is past; the state it led to holds now.
            when = _WHEN.match(rest)
            rest = " now" + rest[when.end() :] if when else rest
            stated = _old_and_new(match.group("old"), match.group("new"))
            what = match.groupdict().get("what")
            if stated and what and stated.startswith("I'm now a "):
                # "I moved my budget from 50 to 80": the new figure is the named measure's.
                stated = f"my {what.strip()} is {stated[len(_NOW_A) :]}"
            if stated is None:
                return None
            return sentence[: match.start()] + stated + rest
    habit = _HABIT_THEN_SWITCH.search(sentence)
    if habit and names_only(habit.group("old")) and names_only(habit.group("new")):
        stated = _old_and_new(habit.group("old"), habit.group("new"))
        if stated is not None:
            return sentence[: habit.start()] + stated + habit.group("rest")
    out_in = _OUT_IN.match(sentence)
    if out_in:
        old = out_in.group("old") or out_in.group("old2") or out_in.group("old3")
        new = out_in.group("new") or out_in.group("new2") or out_in.group("new3")
        greeted = not out_in.group("old")
        # "Goodbye Mistral, hello Copperleaf" names tastes; "hello Tern team, goodbye for now" does not.
        stated = (
            None
            if greeted and not (names_only(old) and names_only(new))
            else _old_and_new(old, new)
        )
        return (
            None
            if stated is None
            else stated
            + (out_in.group("rest") or out_in.group("rest2") or out_in.group("rest3") or "")
        )
    off = _OFF_NOW.search(sentence)
    if off and names_only(off.group("what")):
        return sentence[: off.start()] + f"I'm over {off.group('what')} now" + sentence[off.end() :]
    instead = _INSTEAD.search(sentence)
    if instead and _MOVED_ON.search(sentence):
        before, old = sentence[: instead.start()], instead.group("old").strip()
        rest = instead.group("rest")
        if _SIZE_LIKE.match(old):
            return before + rest  # an old size or figure is just gone
        if not FIRST_PERSON.search(before):
            if not names_only(before):
                return None
            # "Navy instead of black from now on": names and a time, no order to anyone.
            before, rest = "I love " + before, _FROM_NOW_ON_WORDS.sub("now", rest)
        return f"{before}{rest}, and I'm over {old}"
    now_it = _NOW_IT_IS.search(sentence)
    if now_it and _WAS_MINE.search(sentence[: now_it.start()]):
        return (
            sentence[: now_it.start()]
            + f"{now_it.group('lead')}now I love {now_it.group('new')}"
            + sentence[now_it.end() :]
        )
    all_now = _ALL_NOW.search(sentence)
    if all_now and names_only(all_now.group("new")):
        return (
            sentence[: all_now.start()]
            + f"{all_now.group('lead')}I love {all_now.group('new')} now"
            + all_now.group("end")
        )
    from_now = _FROM_NOW_ON.search(sentence)
    if from_now and names_only(from_now.group("what")):
        return (
            sentence[: from_now.start()]
            + f"{from_now.group('lead')}I love {from_now.group('what')} now"
            + from_now.group("end")
        )
    return None


_FROM_NOW_ON_WORDS = re.compile(r"\bfrom\s+now\s+on\b", re.I)
_JOINERS = frozenset("and or only just it's its the all &".split())  # "Loom & Lane"


def names_only(text: str) -> bool:
    """True when a span holds only names of things (colours, fabrics, brands...): "from now
    on" after it states a taste, never an order ("reply in French from now on")."""
    tokens = TOKEN.findall(text)
    index, named = 0, False
    while index < len(tokens):
        for width in range(min(4, len(tokens) - index), 0, -1):
            hit = PHRASES.get(tuple(t.lower() for t in tokens[index : index + width]))
            if hit and hit[0] in ("term", "term+"):
                index, named = index + width, True
                break
        else:
            token = tokens[index]
            if token.lower() in _JOINERS:
                index += 1
            elif token[:1].isupper() and token.lower() not in NOT_BRANDS and token.isalpha():
                index, named = index + 1, True
            else:
                return False
    return named


def _old_and_new(old: str, new: str) -> str | None:
    """The plain statement of a change from `old` to `new`: a new size is the size; a new
    preference is liked and the old one given up."""
    old, new = old.strip(), new.strip()
    if _SIZE_LIKE.match(old) and _SIZE_LIKE.match(new):
        new = re.sub(r"^(?:an?|size)\s+", "", new, flags=re.I)
        return f"{_NOW_A}{new}"
    if _SIZE_LIKE.match(new) or _SIZE_LIKE.match(old):
        return None  # "I swapped the M for a blue one": no change of mind to read
    if _PRODUCT.match(old):
        return f"I love {new}"  # "I swapped the jacket for Tern's": the product is no taste
    return f"I'm over {old}, and I love {new}"
