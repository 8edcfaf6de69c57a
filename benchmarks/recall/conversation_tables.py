"""The conversational set's word lists: the friends, their places, classes, pets, people,
jobs, instruments, books and races, and the reactions and small talk around what they say."""

from __future__ import annotations

SPEAKERS = (
    "Caroline", "Melanie", "Joanna", "Nate", "Tim", "John", "Audrey", "Andrew", "Maria",
    "Deborah", "Jolene", "Evan", "Sam", "Calvin", "Dave", "Gina", "Jon", "Gerald", "Priya",
    "Tomas",
)  # fmt: skip
CHAT_PLACES = (
    "Lisbon", "Galway", "Kyoto", "Oaxaca", "Bergen", "Tbilisi", "Cusco", "Hobart", "Ljubljana",
    "Marrakesh", "Quebec", "Seville",
)  # fmt: skip
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
# (as said, what a question calls it, words for it that share nothing)
CHAT_CLASSES = (
    ("a pottery class", "pottery class", "making bowls out of clay"),
    ("salsa lessons", "salsa lessons", "Latin dancing"),
    ("a watercolour workshop", "watercolour workshop", "painting course"),
    ("a bouldering session", "bouldering session", "indoor rock climbing"),
    ("a sourdough baking course", "sourdough course", "learning to make bread"),
    ("a beginners' Italian class", "Italian class", "studying a foreign language"),
    ("a first aid course", "first aid course", "training in emergency care"),
    ("a woodworking evening", "woodworking evening", "building furniture by hand"),
)
# (animal, young name, a word for it that shares nothing)
CHAT_PETS = (
    ("dog", "puppy", "canine"), ("cat", "kitten", "feline"), ("rabbit", "bunny", "long-eared"),
    ("parrot", "chick", "talking bird"), ("tortoise", "hatchling", "slow reptile"),
)  # fmt: skip
PET_NAMES = ("Biscuit", "Pepper", "Mochi", "Ziggy", "Olive", "Bruno", "Luna", "Kiwi", "Nacho")
CHAT_RELATIVES = (
    ("sister", "sibling"), ("brother", "sibling"), ("cousin", "relative"), ("aunt", "relative"),
    ("grandad", "grandparent"), ("niece", "relative"),
)  # fmt: skip
CHAT_PEOPLE = (
    "Rowan", "Imogen", "Bastian", "Noemi", "Cyrus", "Maelle", "Tobin", "Esme", "Leif", "Saoirse",
    "Idris", "Marisol", "Anouk", "Casimir",
)  # fmt: skip
CHAT_JOBS = (
    ("team lead", "the bakery chain", "leading a group"),
    ("head nurse", "the children's hospital", "running a ward"),
    ("senior designer", "the game studio", "creative position"),
    ("assistant principal", "the primary school", "managing teachers"),
    ("project manager", "the solar start-up", "coordinating deliveries"),
)
CHAT_INSTRUMENTS = (
    ("ukulele", "small four-string"), ("cello", "big bowed"), ("keyboard", "electric piano"),
    ("trumpet", "brass horn"), ("drum kit", "percussion set"),
)  # fmt: skip
CHAT_BOOKS = (
    ("The Overstory", "Richard Powers", "trees"),
    ("Piranesi", "Susanna Clarke", "a house of endless halls"),
    ("Educated", "Tara Westover", "growing up without school"),
    ("The Remains of the Day", "Kazuo Ishiguro", "an English butler"),
    ("Station Eleven", "Emily St. John Mandel", "a travelling theatre after a pandemic"),
)
CHAT_RACES = (
    ("half marathon", "twenty-one kilometre run"),
    ("charity 10k", "fundraising run"),
    ("triathlon", "swim-bike-run event"),
    ("cycling sportive", "long group bike ride"),
)  # fmt: skip
CHAT_REACTIONS = (
    "Wow, that's amazing!", "That sounds like so much fun.", "I'm so happy for you!",
    "Haha, that is so you.", "Oh nice, tell me more!", "That's wonderful news.",
    "No way! How did it go?", "I love that for you.", "That must have been a lot of work.",
    "Good for you, seriously.", "How exciting!", "Aw, that's really sweet.",
)  # fmt: skip
CHAT_SMALL_TALK = (
    "Work has been so busy this week, I barely had time to think.",
    "The weather here has been awful, rain every single day.",
    "I finally cleaned out the garage over the weekend.",
    "Did you watch anything good lately? I need a new show.",
    "I've been trying to go to bed earlier, with mixed results.",
    "We had a quiet weekend at home, which was exactly what I needed.",
    "My phone died in the middle of the day and I felt totally lost.",
    "I made a huge pot of soup and we've been eating it all week.",
    "I keep meaning to call my parents more often.",
    "Honestly I just need a holiday at this point.",
    "The kids next door have taken up the drums, so that's fun.",
    "I went for a long walk by the river this morning, it cleared my head.",
    "I've been so tired lately, I think I need more coffee.",
    "We tried a new recipe last night and it was a disaster, haha.",
    "It's been a while since we talked, how have you been?",
    "Things are pretty calm here, nothing new really.",
    "I'm thinking about redecorating the living room.",
    "Can't believe how fast this year is going.",
)  # fmt: skip
