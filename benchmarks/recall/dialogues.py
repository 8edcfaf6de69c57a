"""The dialogue set: long talks between two people over dated sessions, asked by type.

Shaped like the public long-conversation sets rather than like a list of statements: a
friend asks and the other answers, so the answer's words rarely repeat the question's (the
question's words are in the turn before it); later sessions refer back to earlier ones
("How is Pepper settling in?"); news is dated by its session, and said relative to it
("last weekend"). Each question has a type:

- `single`: one fact, answered by one turn (often a reply);
- `across`: answered by turns from two or more sessions ("Which cities has Nadia visited?");
- `temporal`: names the month and year it asks about ("Where did Nadia travel in May
  2023?"), answered by the turn told in a session of that month;
- `inference`: asks what follows from what was said ("Would Nadia enjoy a packed music
  festival?"), answered by the turns that say it, which share few words with it.

Every value is drawn from a seeded random source: the same arguments give the same set.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, timedelta

from benchmarks.recall.conversations import Chat, Conversation, Turn
from benchmarks.recall.words import DEFAULT_SEED, Question, question_kind

TYPES = ("single", "across", "temporal", "inference")
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December")  # fmt: skip

PEOPLE = ("Nadia", "Tomas", "Grace", "Malik", "Iris", "Dev", "Lena", "Oscar", "Yara", "Felix",
          "Amara", "Jonah", "Sofia", "Ravi", "Clara", "Mateo", "Hana", "Elliot", "Zoe", "Idris")  # fmt: skip
# (animal, a pet name, what it has been doing, what it did later)
PETS = (
    ("puppy", "Pepper", "chewing every shoe in the hallway",
     "She worked out how to open the fridge, so now there's a lock on it."),
    ("kitten", "Mochi", "sleeping on my keyboard while I work",
     "He caught his first moth and brought it to my pillow as a gift."),
    ("rabbit", "Clover", "hopping laps around the sofa at night",
     "She chewed through the charger cable, third one this month."),
    ("parrot", "Kiwi", "whistling the ringtone of my phone",
     "He says good morning to the postman now, every single day."),
    ("tortoise", "Bruno", "hiding under the radiator",
     "He ate half the strawberries on the balcony before anyone noticed."),
    ("hamster", "Nacho", "stuffing sunflower seeds into his cheeks",
     "He escaped overnight and we found him inside the piano."),
)  # fmt: skip
# (city, the highlight, something eaten there)
TRIPS = (
    ("Lisbon", "Watching the sunset from the castle walls with a glass of wine.", "custard tarts"),
    ("Kyoto", "Walking through the bamboo forest before the crowds arrived.", "matcha everything"),
    ("Reykjavik", "Swimming in a hot spring while it snowed on us.", "hot dogs at midnight"),
    ("Marrakesh", "Getting lost in the souks and bargaining for a rug.", "slow-cooked tagine"),
    ("Edinburgh", "Climbing Arthur's Seat in the fog at dawn.", "haggis, surprisingly good"),
    ("Cape Town", "Seeing penguins waddle along Boulders Beach.", "grilled fish by the harbour"),
    ("Oaxaca", "The night market full of candles and music.", "mole with hot chocolate"),
    ("Tallinn", "The old town walls lit up after dark.", "black bread and herring"),
)  # fmt: skip
# (company, the role, what the work will be)
JOBS = (
    ("Northwind", "senior analyst", "I'll be leading the quarterly forecasts from now on."),
    ("Bluebird Labs", "product designer", "I get to redesign their whole booking app."),
    ("the city library", "archive manager", "Forty thousand old maps and letters, all mine."),
    ("Harbour Clinic", "head nurse", "A team of twelve on the night shift."),
    ("Greenfield School", "music teacher", "Three choirs and a very loud brass band."),
    ("Atlas Freight", "logistics coordinator", "Trucks, ships, spreadsheets, repeat."),
)  # fmt: skip
# (what calms them, a workshop they would like, a workshop they would not)
HOBBIES = (
    ("Throwing pots at the ceramics studio on Thursday nights.", "glazing", "coding"),
    ("Long bike rides along the canal, no phone, just podcasts.", "cycling", "knitting"),
    ("Baking sourdough; the starter is basically my second pet.", "bread making", "dj"),
    ("Birdwatching at the reservoir with my old binoculars.", "nature photography", "poker"),
    ("Restoring an old wooden sailboat with my uncle.", "carpentry", "makeup"),
    ("Painting watercolours of the rooftops from my window.", "sketching", "karaoke"),
)  # fmt: skip
# (relative, their news, the baby's or partner's name)
RELATIVES = (
    ("sister", "had a baby girl last week", "Ada"),
    ("brother", "got engaged on a boat in the middle of the lake", "Priya"),
    ("cousin", "opened a little bakery downtown", "Crumbs"),
    ("mum", "retired after thirty years at the post office", "Porto"),
    ("dad", "took up salsa dancing at sixty-five", "Rosa"),
)  # fmt: skip
# (race, time, how it felt)
RACES = (
    ("half marathon", "two hours and four minutes", "My legs were jelly for three days."),
    ("10k trail run", "fifty-eight minutes", "Mud up to my knees, best fun in ages."),
    ("charity swim across the bay", "forty minutes", "The water was freezing and full of jellyfish."),
    ("cycling sportive", "five hours", "The last climb nearly broke me."),
)  # fmt: skip
# (a book, what it is about)
BOOKS = (
    ("The Salt Road", "a family of sailors smuggling tea"),
    ("Night Garden", "a botanist who can hear plants"),
    ("Winter Ledger", "a bank clerk who finds a forgotten vault"),
    ("Paper Moons", "two sisters running a travelling cinema"),
    ("The Quiet Orbit", "the last astronaut on a closed station"),
)  # fmt: skip
# (what a person said about themselves, the inference question, in two parts)
TRAITS = (
    (("Big crowds make me so anxious I just want to go home.",
      "Give me a quiet cabin over a city break any day."),
     "Would {name} enjoy a packed music festival?"),
    (("I've been vegetarian since I was fifteen.",
      "The smell of a barbecue honestly puts me off my food."),
     "Would {name} like a steakhouse voucher as a present?"),
    (("I get seasick on anything bigger than a bathtub.",
      "The ferry to the island was the worst two hours of my life."),
     "Would {name} sign up for a sailing holiday?"),
    (("I'm up at five every morning, the sunrise is my favourite part of the day.",
      "By ten at night I can barely keep my eyes open."),
     "Is {name} a night owl?"),
    (("Spiders, snakes, anything with too many legs or none at all, no thank you.",
      "I screamed when a beetle landed on my arm at the picnic."),
     "Would {name} enjoy a visit to the reptile house at the zoo?"),
    (("I've been learning Japanese for two years now.",
      "My tutor says my kanji is getting better."),
     "Could {name} read a menu in Tokyo?"),
)  # fmt: skip

SMALL_TALK = (
    "How was your weekend?", "Pretty quiet, honestly. Laundry and a long nap.",
    "The weather has been so strange lately.", "I know, sun one hour and hail the next.",
    "Did you watch the match on Sunday?", "Only the second half, what a finish!",
    "Work has been really busy this month.", "Same here, I can't wait for the holidays.",
    "I finally fixed the leaking tap.", "Look at you, very handy!",
    "We should get dinner soon.", "Yes! That new place by the station looks good.",
    "My phone died again this morning.", "Time for a new one, maybe?",
    "I've been trying to drink more water.", "Good plan, I always forget.",
)  # fmt: skip
REACTIONS = ("That's amazing!", "No way, really?", "Haha, I love that.", "Wow, good for you!",
             "That sounds lovely.", "Oh, I'm so happy to hear that.", "Tell me more!")  # fmt: skip


@dataclass
class _Line:
    teller: bool  # said by the one whose story it is (else by the friend)
    text: str
    key: str = ""


@dataclass
class _Story:
    """Something one speaker shares in one session: its lines and what they answer."""

    topic: str
    lines: list[_Line]
    # (type, question template, the indexes of the lines that answer it)
    questions: list[tuple[str, str, tuple[int, ...]]] = field(default_factory=list)
    # A later session's talk about the same thing: (friend's line, teller's line, question)
    later: tuple[str, str, str] | None = None


class _DialogueBuilder:
    def __init__(self, *, rng: random.Random, number: int, seed: int) -> None:
        self.rng = rng
        self.number = number
        self.seed = seed

    def build(self) -> Conversation:
        rng = self.rng
        user_id = f"dialogue-{self.seed}-{self.number:03d}"
        speakers = tuple(rng.sample(PEOPLE, 2))
        sessions = rng.randint(16, 24)
        day = date(2023, 1, 5) + timedelta(days=rng.randint(0, 60))
        days = []
        for _ in range(sessions):
            days.append(day)
            day += timedelta(days=rng.randint(7, 24))
        # (session, speaker, story); a later mention lands in a later session
        planned: list[tuple[int, str, _Story]] = []
        across: list[tuple[str, str, list[_Story]]] = []
        for speaker in speakers:
            pets = [self._pet(p) for p in rng.sample(PETS, 2)]
            trips = [self._trip(t) for t in rng.sample(TRIPS, 3)]
            stories = [*pets, *trips, self._job(rng.choice(JOBS)), self._hobby(rng.choice(HOBBIES)),
                       self._relative(rng.choice(RELATIVES)), self._race(rng.choice(RACES)),
                       self._book(rng.choice(BOOKS))]  # fmt: skip
            for trait in rng.sample(TRAITS, 2):
                stories += self._trait(trait)
            across.append((speaker, "Which pets does {name} have?", pets))
            across.append((speaker, "Which cities has {name} travelled to?", trips))
            traits = [s for s in stories if s.topic.startswith("trait")]
            for story in stories:
                if any(story is second for second in traits[1::2]):
                    continue
                planned.append((rng.randrange(sessions - 2), speaker, story))
            # A trait's two remarks fall in different sessions, like its other stories.
            for first, second in zip(traits[::2], traits[1::2], strict=True):
                at = next(n for n, s, st in planned if st is first)
                planned.append((rng.randint(at + 1, sessions - 1), speaker, second))
                first.questions = []
                second.questions = []
                across.append((speaker, "", [first, second]))
        chats, mentions = [], []
        for n in range(sessions):
            told = [(speaker, story) for at, speaker, story in planned if at == n]
            chats.append(self._chat(user_id, n, days[n], speakers, told, mentions))
            mentions = [m for m in mentions if m[0] > n]
            for speaker, story in told:
                if story.later is not None:
                    mentions.append((rng.randint(n + 1, sessions - 1), speaker, story))
        questions = self._questions(user_id, speakers, planned, across, days)
        return Conversation(user_id, speakers, tuple(chats), tuple(questions))

    # -- the sessions --

    def _chat(self, user_id, n, day, speakers, told, mentions) -> Chat:
        rng = self.rng
        a, b = speakers
        parts: list[list[tuple[str, _Line]]] = []
        for speaker, story in told:
            friend = b if speaker == a else a
            parts.append([(speaker if line.teller else friend, line) for line in story.lines])
        for at, speaker, story in mentions:
            if at == n and story.later is not None:
                friend = b if speaker == a else a
                asked, answered, _ = story.later
                line = _Line(True, answered)
                story.lines.append(line)  # the answer of its later question
                parts.append([(friend, _Line(False, asked)), (speaker, line)])
        for _ in range(rng.randint(3, 7)):
            first = rng.randrange(0, len(SMALL_TALK), 2)
            speaker = rng.choice(speakers)
            friend = b if speaker == a else a
            parts.append([(speaker, _Line(False, SMALL_TALK[first])),
                          (friend, _Line(False, SMALL_TALK[first + 1]))])  # fmt: skip
        rng.shuffle(parts)
        opener = rng.choice(speakers)
        other = b if opener == a else a
        lines = [(opener, _Line(False, f"Hey {other}! How have you been?")),
                 (other, _Line(False, "Good, good. It's been a while!"))]  # fmt: skip
        for part in parts:
            lines += part
            if rng.random() < 0.5:  # the one who listened reacts
                listener = b if lines[-1][0] == a else a
                lines.append((listener, _Line(False, rng.choice(REACTIONS))))
        lines.append((rng.choice(speakers), _Line(False, "Talk soon, take care!")))
        turns = []
        for position, (speaker, line) in enumerate(lines):
            line.key = f"{user_id}/session{n + 1}/t{position + 1}"
            turns.append(Turn(line.key, speaker, line.text))
        return Chat(f"session{n + 1}", day, tuple(turns))

    def _questions(self, user_id, speakers, planned, across, days) -> list[Question]:
        questions: list[Question] = []
        texts: dict[str, str] = {}

        def ask(kind: str, text: str, answers: list[_Line], topic: str) -> None:
            keys = tuple(line.key for line in answers if line.key)
            if not keys or any(q.text == text for q in questions):
                return
            words = question_kind(text, "", [line.text for line in answers])
            questions.append(
                Question(f"{user_id}/q{len(questions) + 1}", text, words, topic, keys, kind)
            )
            texts[text] = topic

        for at, speaker, story in planned:
            for kind, template, indexes in story.questions:
                text = template.format(name=speaker, month=MONTH_NAMES[days[at].month - 1],
                                       year=days[at].year)  # fmt: skip
                ask(kind, text, [story.lines[i] for i in indexes], story.topic)
            if story.later is not None and len(story.lines) > len(story.lines_said):
                ask("single", story.later[2].format(name=speaker), story.lines[-1:], story.topic)
        for speaker, template, stories in across:
            if template:
                answers = [s.lines[s.answer] for s in stories]
                ask("across", template.format(name=speaker), answers, stories[0].topic)
            else:  # a trait: its inference question, answered by both remarks
                ask("inference", stories[0].inference.format(name=speaker),
                    [s.lines[0] for s in stories], stories[0].topic)  # fmt: skip
        return questions

    # -- what a speaker shares --

    def _said(self, story: _Story, answer: int = 0) -> _Story:
        story.lines_said = list(story.lines)  # type: ignore[attr-defined]
        story.answer = answer  # type: ignore[attr-defined]
        return story

    def _pet(self, pet: tuple[str, str, str, str]) -> _Story:
        animal, name, habit, later = pet
        story = _Story(
            "pet",
            [_Line(False, f"Did you end up adopting that {animal} from the shelter?"),
             _Line(True, self.rng.choice([f"We did! {name} came home with us on Saturday "
                                          f"and has been {habit} ever since.",
                                          f"Yes, meet {name}! Already {habit}.",
                                          f"Yes! Our little {animal} is called {name}, "
                                          f"and is already {habit}."]))],
            [("single", f"What is the name of {{name}}'s {animal}?", (1,))],
            (f"How is {name} settling in?", later, f"What has {{name}}'s {animal} done lately?"),
        )  # fmt: skip
        return self._said(story, 1)

    def _trip(self, trip: tuple[str, str, str]) -> _Story:
        city, highlight, food = trip
        when = self.rng.choice(["last week", "on Sunday", "a few days ago", "yesterday"])
        story = _Story(
            "trip",
            [_Line(True, self.rng.choice([f"I got back from {city} {when}, still unpacking.",
                                          f"Back from my trip to {city} {when}!"])),
             _Line(False, self.rng.choice(["What was the best part?", "What was the highlight?"])),
             _Line(True, self.rng.choice([highlight, f"The best part? {highlight}"])),
             _Line(False, "And the food?"),
             _Line(True, self.rng.choice([f"I lived on {food}.",
                                          f"I ate so much {food} there."]))],
            [("single", f"What was the best part of {{name}}'s trip to {city}?", (2,)),
             ("temporal", "Where did {name} travel in {month} {year}?", (0,)),
             ("single", f"What did {{name}} eat a lot of in {city}?", (4,))],
        )  # fmt: skip
        return self._said(story, 0)

    def _job(self, job: tuple[str, str, str]) -> _Story:
        company, role, work = job
        story = _Story(
            "job",
            [_Line(False, f"So, how did the interview at {company} go?"),
             _Line(True, self.rng.choice([f"They offered me the {role} role! {work}",
                                          f"I got it! {role.capitalize()}, starting Monday."]))],
            [("single", f"What position was {{name}} offered at {company}?", (1,)),
             ("temporal", "What good news did {name} have about work in {month} {year}?", (1,))],
        )  # fmt: skip
        return self._said(story, 1)

    def _hobby(self, hobby: tuple[str, str, str]) -> _Story:
        calm, liked, _ = hobby
        story = _Story(
            "hobby",
            [_Line(False, "What have you been doing to unwind lately?"), _Line(True, calm)],
            [("single", "What does {name} do to relax?", (1,)),
             ("inference", f"Would {{name}} enjoy a {liked} workshop?", (1,))],
        )  # fmt: skip
        return self._said(story, 1)

    def _relative(self, relative: tuple[str, str, str]) -> _Story:
        who, news, called = relative
        story = _Story(
            "family",
            [_Line(False, f"How's your {who} doing these days?"),
             _Line(True, f"Oh, big news, they {news}."),
             _Line(False, "What's the name?" if "baby" in news or "bakery" in news
                   else "Who's the lucky one?" if "engaged" in news else "Where's the party?"),
             _Line(True, f"{called}, can you believe it?")],
            [("single", f"What news did {{name}} share about their {who}?", (1,)),
             ("temporal", "What happened in {name}'s family in {month} {year}?", (1,))],
        )  # fmt: skip
        return self._said(story, 1)

    def _race(self, race: tuple[str, str, str]) -> _Story:
        what, time, felt = race
        story = _Story(
            "race",
            [_Line(True, f"I did the {what} on the weekend, {time}!"),
             _Line(False, "How did your body hold up afterwards?"),
             _Line(True, felt)],
            [("single", f"How did {{name}} feel after the {what}?", (2,)),
             ("temporal", "Which race did {name} take part in during {month} {year}?", (0,))],
        )  # fmt: skip
        return self._said(story, 0)

    def _book(self, book: tuple[str, str]) -> _Story:
        title, about = book
        story = _Story(
            "book",
            [_Line(False, "Read anything good recently?"),
             _Line(True, self.rng.choice([f"I couldn't put down {title}, it's about {about}.",
                                          f"You have to read {title}! It's about {about}."]))],
            [("single", "Which book did {name} recommend?", (1,))],
        )  # fmt: skip
        return self._said(story, 1)

    def _trait(self, trait: tuple[tuple[str, str], str]) -> list[_Story]:
        (first, second), question = trait
        stories = []
        for remark in (first, second):
            story = self._said(_Story("trait", [_Line(True, remark)]), 0)
            story.inference = question  # type: ignore[attr-defined]
            stories.append(story)
        return stories


def dialogues_generate(*, conversations: int = 10, seed: int = DEFAULT_SEED) -> list[Conversation]:
    """The dialogue set: the same for the same arguments on every run."""
    rng = random.Random(seed * 7919 + 1)
    return [
        _DialogueBuilder(rng=random.Random(rng.randrange(2**32)), number=n, seed=seed).build()
        for n in range(conversations)
    ]


def describe_dialogues(conversations: list[Conversation]) -> str:
    sessions = [len(c.chats) for c in conversations]
    blocks = [len(c.blocks()) for c in conversations]
    questions = [q for c in conversations for q in c.questions]
    types = Counter(q.type for q in questions)
    return (
        f"{len(conversations)} dialogues, {sum(sessions)} sessions, {sum(blocks)} turns "
        f"({min(blocks)}-{max(blocks)} per dialogue), {len(questions)} questions: "
        + ", ".join(f"{types[t]} {t}" for t in TYPES)
    )
