"""The shoppers' set's word lists: names, sizes, budgets, occasions, designs and small talk.

`say_date` writes a day the ways shoppers write it; the conversational set says its dates so too.
"""

from __future__ import annotations

from datetime import date

SHOPPER_NAMES = (
    "Ana Ruiz", "Bruno Keller", "Chiara Conti", "Dmitri Orlov", "Elif Demir", "Farah Haddad",
    "Greta Lind", "Hugo Marchand", "Ines Duarte", "Jonas Berg", "Kaia Solberg", "Leon Vogel",
    "Mila Novak", "Nadia Rahman", "Oskar Nyberg", "Priya Nair", "Quentin Roux", "Rosa Ferreira",
    "Sami Laine", "Tove Eriksen", "Umar Qureshi", "Vera Kovacs", "Wim de Vries", "Ximena Rojas",
    "Yusuf Arslan", "Zofia Wozniak", "Aiko Tanaka", "Bram Janssen", "Carmen Vidal", "Dario Russo",
)  # fmt: skip
# People the shoppers buy for: rare first names, none shared with the shoppers above.
RECIPIENT_NAMES = (
    "Lena", "Theo", "Margit", "Anselm", "Isolde", "Rafferty", "Beatrix", "Caspian", "Dagny",
    "Emeric", "Fenna", "Gideon", "Hedda", "Ivo", "Jorunn", "Kasimir", "Liesel", "Matthias",
    "Noor", "Ottilie", "Pascal", "Rune", "Saskia", "Tobiah", "Ulla", "Valentin", "Wilma",
    "Xaver", "Ysolde", "Zeno", "Agathe", "Benedikt", "Clementine", "Dorian", "Eulalia",
    "Florian", "Gesine", "Hannes", "Ilse", "Jasper", "Kornelia", "Lorenz", "Magda", "Nepomuk",
    "Odile", "Philippa", "Quirin", "Roswitha", "Severin", "Thekla",
)  # fmt: skip
# (relation as said, a word for it that shares nothing, pronoun)
RELATIONS = (
    ("sister", "sibling", "she"),
    ("brother", "sibling", "he"),
    ("mum", "mother", "she"),
    ("dad", "father", "he"),
    ("husband", "spouse", "he"),
    ("wife", "spouse", "she"),
    ("son", "boy", "he"),
    ("daughter", "girl", "she"),
    ("best friend", "closest pal", "she"),
    ("colleague", "coworker", "he"),
    ("grandmother", "granny", "she"),
    ("nephew", "sibling's boy", "he"),
)
TOP_SIZES = ("XS", "S", "M", "L", "XL", "XXL")
SHOE_SIZES = tuple(str(n) for n in range(36, 47))
WAISTS = ("28", "29", "30", "31", "32", "33", "34", "36", "38")
LEGS = ("30", "32", "34")
BUDGETS = (40, 50, 60, 75, 80, 90, 100, 120, 150, 180, 200, 250, 300, 400)
MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
CITIES = ("Vienna", "Lyon", "Porto", "Ghent", "Aarhus", "Bologna", "Krakow", "Tallinn")
# (occasion as said, what the shopper calls it later, a question that shares no word with it,
# how the fact names it)
OCCASIONS = (
    ("my {rel}'s wedding", "wedding", "When does my {para} get married?", "their {rel}'s wedding"),
    ("a job interview", "interview", "When am I meeting that potential employer?",
     "a job interview"),
    ("my graduation ceremony", "graduation", "When do I collect my degree?",
     "their graduation ceremony"),
    ("a christening", "christening", "When is the baby's baptism?", "a christening"),
    ("our anniversary dinner", "anniversary dinner",
     "When is the meal celebrating our years together?", "an anniversary dinner"),
    ("a hiking trip to the Dolomites", "hiking trip", "When am I off trekking in the mountains?",
     "a hiking trip to the Dolomites"),
    ("a beach holiday in Crete", "beach holiday", "When do I fly off to the seaside?",
     "a beach holiday in Crete"),
    ("the company gala", "gala", "When is that black-tie evening at work?", "the company gala"),
    ("a music festival", "festival", "When is the open-air concert weekend?", "a music festival"),
    ("my first day at a new job", "first day at the new job",
     "When do I start working for the new employer?", "their first day at a new job"),
)  # fmt: skip
# Category words a shopper uses, and words for the same garments that share nothing with them.
CATEGORY_WORDS = {
    "t-shirts": ("t-shirts", ("short-sleeved top", "casual top with short sleeves")),
    "shirts": ("shirts", ("button-up", "collared top")),
    "knitwear": ("jumpers", ("sweater", "woolly pullover", "cosy layer")),
    "jeans": ("jeans", ("five-pocket pants", "pair of pants")),
    "trousers": ("trousers", ("pants", "slacks")),
    "dresses": ("dresses", ("frock", "gown")),
    "skirts": ("skirts", ("flowy bottom piece", "thing I'd wear instead of pants")),
    "jackets": ("jackets", ("coat", "outer layer")),
    "sneakers": ("trainers", ("kicks", "athletic footwear")),
    "boots": ("boots", ("ankle-high footwear", "chunky footwear")),
    "sandals": ("sandals", ("open-toe footwear", "strappy footwear")),
}
DESIGNS = (
    ("I like slim-fit designs.", "The shopper prefers slim-fit designs."),
    ("Only natural fabrics for me, please.", "The shopper prefers natural fabrics."),
    ("I prefer minimalist designs without logos.", "The shopper prefers minimalist designs."),
    ("I go for relaxed, oversized cuts.", "The shopper prefers relaxed, oversized cuts."),
    ("Nothing too flashy, I like classic styles.", "The shopper prefers classic styles."),
)
FILLERS = (
    ("Can I return things I bought on sale?", "Yes, sale items can be returned within 30 days."),
    ("Do you do gift wrapping?", "We do — add it at checkout for €3."),
    ("It's pouring with rain here today.", "Sounds like a day for a waterproof!"),
    ("Has my last order shipped?", "Your confirmation email has a tracking link."),
    ("Is there a discount for students?", "Not at the moment, sorry."),
    ("Can I pay with PayPal?", "Yes, PayPal and all major cards."),
    (
        "What's your most popular item this week?",
        "Our bestsellers change daily — shall I show you what's trending?",
    ),
    ("How do I care for merino?", "Cool hand wash, and dry it flat."),
)
# How a shopper asks for products; {word} is a category word.
REQUESTS = (
    "Do you have any {word}?",
    "I'm looking for {word} for work.",
    "Show me some {word} for the weekend.",
    "Any {word} on sale?",
    "What {word} would you recommend?",
    "Which {word} are new this week?",
)
LEAD_INS = (
    "", "Quick question: ", "Before I forget, ", "Hmm, ", "Sorry, ", "One more thing: ",
    "By the way, ", "Just checking: ", "Out of curiosity, ", "Hey, ", "So, ", "OK, ",
    "Right, ", "Oh, ", "Also, ", "Wait, ",
)  # fmt: skip


def say_date(day: date, fmt: int) -> str:
    if fmt == 0:
        return f"{day.day} {MONTHS[day.month - 1]}"
    if fmt == 1:
        return f"{MONTHS[day.month - 1]} {day.day}"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10 if day.day // 10 != 1 else 0, "th")
    return f"the {day.day}{suffix} of {MONTHS[day.month - 1]}"
