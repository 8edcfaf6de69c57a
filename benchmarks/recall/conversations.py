"""The conversational set: two friends chatting over many dated sessions.

Each turn is stored as one block (the regime of public long-conversation sets): what they
did, with whom, where and when, told among reactions, follow-ups and small talk in the same
everyday words. Every question is about one thing one of them said and is answered by that
one turn. The word lists are in `conversation_tables`."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from benchmarks.recall.conversation_tables import (
    CHAT_BOOKS,
    CHAT_CLASSES,
    CHAT_INSTRUMENTS,
    CHAT_JOBS,
    CHAT_PEOPLE,
    CHAT_PETS,
    CHAT_PLACES,
    CHAT_RACES,
    CHAT_REACTIONS,
    CHAT_RELATIVES,
    CHAT_SMALL_TALK,
    PET_NAMES,
    SPEAKERS,
    WEEKDAYS,
)
from benchmarks.recall.shopper_tables import say_date
from benchmarks.recall.words import DEFAULT_SEED, KINDS, Question, question_kind


@dataclass(frozen=True)
class Turn:
    key: str
    speaker: str
    text: str

    @property
    def block(self) -> str:
        """The block's text as stored: the speaker's name, then what they said."""
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class Chat:
    session_id: str
    day: date
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Conversation:
    user_id: str
    speakers: tuple[str, str]
    chats: tuple[Chat, ...]
    questions: tuple[Question, ...]
    # Stored with the server's summary and contexts extraction (context_required) or not.
    context_required: bool = True

    def blocks(self) -> dict[str, str]:
        return {t.key: t.block for chat in self.chats for t in chat.turns}

    @property
    def today_session_id(self) -> str:
        return f"session{len(self.chats) + 1}"


@dataclass
class _Event:
    """One thing a speaker tells the other, a follow-up about it and its questions."""

    topic: str
    statement: str
    follow_up: tuple[str, str]  # (the friend's question, the speaker's answer)
    needle: str
    questions: dict[str, list[str]]
    # Later talk about the same thing (the friend asks, the speaker answers): it names the
    # same pet, place or person without being what a question asks.
    echoes: tuple[tuple[str, str], ...] = ()
    key: str = ""


class _ChatBuilder:
    """Generates one conversation between two speakers from a seeded random source."""

    def __init__(self, *, rng: random.Random, number: int, seed: int, asked: set[str]):
        self.rng = rng
        self.number = number
        self.seed = seed
        self.asked = asked
        self._left: dict[tuple[str, int], list[Any]] = {}

    def _draw(self, speaker: str, table: tuple) -> Any:
        """A value of the table this speaker has not used yet: each event is told once."""
        left = self._left.get((speaker, id(table)))
        if not left:
            left = self._left[(speaker, id(table))] = self.rng.sample(table, len(table))
        return left.pop()

    def build(self) -> Conversation:
        rng = self.rng
        user_id = f"chat-{self.seed}-{self.number:03d}"
        a, b = rng.sample(SPEAKERS, 2)
        sessions = rng.randint(12, 20)
        days = [date(2023, 3, 1) + timedelta(days=rng.randint(0, 20))]
        for _ in range(sessions - 1):
            days.append(days[-1] + timedelta(days=rng.randint(5, 25)))
        people = rng.sample(CHAT_PEOPLE, len(CHAT_PEOPLE))
        events: list[tuple[str, int, _Event]] = []
        for speaker in (a, b):
            makers = [self._class, self._pet, self._trip, self._relative, self._job,
                      self._instrument, self._book, self._race, self._friend_name]  # fmt: skip
            # Some kinds come up twice for a speaker (two classes, two trips), so a
            # question's words alone do not pick out its one answer.
            chosen = makers + rng.sample(makers, 3)
            for make in chosen:
                day = rng.randrange(sessions)
                events.append((speaker, day, make(speaker, days[day], people)))
        echoed: list[list[tuple[str, tuple[str, str]]]] = [[] for _ in days]
        for speaker, day, event in events:
            for echo in event.echoes:
                if day + 1 < sessions:
                    echoed[rng.randint(day + 1, sessions - 1)].append((speaker, echo))
        chats = []
        for n, day in enumerate(days):
            told = [(s, e) for s, d, e in events if d == n]
            chats.append(self._chat(user_id, n, day, (a, b), told, echoed[n]))
        blocks = {t.key: t.block for chat in chats for t in chat.turns}
        questions = []
        for speaker, _, event in events:
            question = self._question(speaker, event, blocks, f"{user_id}/q{len(questions) + 1}")
            if question is not None:
                questions.append(question)
        return Conversation(user_id, (a, b), tuple(chats), tuple(questions))

    def _chat(
        self,
        user_id: str,
        number: int,
        day: date,
        speakers: tuple[str, str],
        told: list[tuple[str, _Event]],
        echoed: list[tuple[str, tuple[str, str]]],
    ) -> Chat:
        rng = self.rng
        lines: list[tuple[str, str, _Event | None]] = []
        opener = rng.choice(speakers)
        other = speakers[1] if opener == speakers[0] else speakers[0]
        lines.append((opener, rng.choice([f"Hey {other}! How's it going?",
                                          f"Hi {other}, long time no talk!",
                                          f"Morning {other}! Got a minute?"]), None))  # fmt: skip
        lines.append((other, rng.choice(["Hey! All good here, you?", "Hi! Busy but fine.",
                                         "Always for you. What's new?"]), None))  # fmt: skip
        parts: list[list[tuple[str, str, _Event | None]]] = []
        for speaker, event in told:
            friend = speakers[1] if speaker == speakers[0] else speakers[0]
            part = [(speaker, event.statement, event), (friend, rng.choice(CHAT_REACTIONS), None)]
            if rng.random() < 0.7:
                part += [(friend, event.follow_up[0], None), (speaker, event.follow_up[1], None)]
            parts.append(part)
        for speaker, (asked, answered) in echoed:
            friend = speakers[1] if speaker == speakers[0] else speakers[0]
            parts.append([(friend, asked, None), (speaker, answered, None)])
        for _ in range(rng.randint(3, 8)):
            speaker = rng.choice(speakers)
            friend = speakers[1] if speaker == speakers[0] else speakers[0]
            part = [(speaker, rng.choice(CHAT_SMALL_TALK), None)]
            if rng.random() < 0.6:
                part.append((friend, rng.choice(CHAT_REACTIONS), None))
            parts.append(part)
        rng.shuffle(parts)
        for part in parts:
            lines += part
        lines.append((rng.choice(speakers), rng.choice(["Talk soon!", "Anyway, I have to run.",
                                                       "Let's catch up again soon."]), None))  # fmt: skip
        turns = []
        for position, (speaker, text, event) in enumerate(lines):
            key = f"{user_id}/session{number + 1}/t{position + 1}"
            if event is not None:
                event.key = key
            turns.append(Turn(key, speaker, text))
        return Chat(f"session{number + 1}", day, tuple(turns))

    def _question(
        self, speaker: str, event: _Event, blocks: dict[str, str], key: str
    ) -> Question | None:
        kinds = list(KINDS)
        self.rng.shuffle(kinds)
        answer = blocks[event.key]
        for kind in kinds:
            templates = list(event.questions.get(kind, []))
            self.rng.shuffle(templates)
            for template in templates:
                text = template.format(name=speaker)
                if text in self.asked:
                    continue
                # The speaker's name is in the question and in every turn they say: a
                # name shared that way says nothing about the kind.
                words = blocks[event.key].split(": ", 1)[1]
                if question_kind(text.replace(speaker, ""), event.needle, [words]) != kind:
                    continue
                self.asked.add(text)
                return Question(key, text, kind, event.topic, (event.key,))
        del answer
        return None

    def _when(self, day: date) -> str:
        rng = self.rng
        choice = rng.randrange(4)
        if choice == 0:
            return "yesterday"
        if choice == 1:
            return f"last {rng.choice(WEEKDAYS)}"
        if choice == 2:
            return "last weekend"
        return f"on {say_date(day - timedelta(days=rng.randint(2, 9)), 0)}"

    # -- what a speaker tells the other --

    def _class(self, name: str, day: date, people: list[str]) -> _Event:
        said, called, other = self._draw(name, CHAT_CLASSES)
        when = self._when(day)
        return _Event(
            "class",
            self.rng.choice(
                [
                    f"I went to {said} {when} and I'm already hooked.",
                    f"Guess what, I finally tried {said} {when}!",
                ]
            ),
            ("How was it? Would you go again?", "Definitely, it was fun and I met nice people."),
            called.split()[0],
            {
                "exact": [
                    f"When did {{name}} go to the {called}?",
                    f"What did {{name}} think of the {called}?",
                ],
                "topic": ["What class did {name} try?", "Which course did {name} sign up for?"],
                "paraphrase": [f"When was {{name}} {other}?"],
            },
            (
                (f"Are you still going to the {called}?", "Every week! I am getting better at it."),
                (f"Did you go back to the {called}?", "Twice, I even brought a friend along."),
            ),
        )

    def _pet(self, name: str, day: date, people: list[str]) -> _Event:
        animal, young, other = self._draw(name, CHAT_PETS)
        pet = self._draw(name, PET_NAMES)
        return _Event(
            "pet",
            self.rng.choice(
                [
                    f"We adopted a {young} {self._when(day)}! We named it {pet}.",
                    f"Meet {pet}, our new {animal} — we brought it home {self._when(day)}.",
                ]
            ),
            ("Send me pictures!", "I will, it is the cutest thing ever."),
            pet,
            {
                "exact": [f"Is {pet} {{name}}'s pet?", f"What kind of animal is {{name}}'s {pet}?"],
                "topic": [
                    f"What is the name of {{name}}'s {animal}?",
                    "What pet did {name} adopt?",
                ],
                "paraphrase": [f"What is {{name}}'s {other} companion called?"],
            },
            (
                (f"How is {pet} doing?", f"{pet} chewed through a cable last night, so: lively."),
                (f"Is {pet} settling in?", f"Yes, {pet} sleeps on my feet every night now."),
            ),
        )

    def _trip(self, name: str, day: date, people: list[str]) -> _Event:
        place = self._draw(name, CHAT_PLACES)
        return _Event(
            "trip",
            self.rng.choice(
                [
                    f"I just got back from {place}, we went {self._when(day)}.",
                    f"We spent a few days in {place} — left {self._when(day)}.",
                ]
            ),
            ("What was the best part?", "The food, honestly. And the long walks."),
            place,
            {
                "exact": [
                    f"When did {{name}} go to {place}?",
                    f"What did {{name}} like about {place}?",
                ],
                "topic": ["Where did {name} travel?", "Which city did {name} just get back from?"],
                "paraphrase": ["Where was {name}'s most recent holiday?"],
            },
            (
                (f"Do you miss {place}?", "All the time, I would go back tomorrow."),
                (f"Did you ever post the {place} photos?", "Not yet, there are hundreds of them."),
            ),
        )

    def _relative(self, name: str, day: date, people: list[str]) -> _Event:
        rel, other = self._draw(name, CHAT_RELATIVES)
        person = people.pop()
        return _Event(
            "person",
            f"My {rel} {person} is moving in with us next month, so it'll be a full house.",
            ("Are you ready for that?", "Not really, but we'll make it work."),
            person,
            {
                "exact": [
                    f"Who is {person} to {{name}}?",
                    f"When is {person} moving in with {{name}}?",
                ],
                "topic": ["Which family member is moving in with {name}?"],
                "paraphrase": [f"Which {other} is coming to share {{name}}'s home?"],
            },
            ((f"How is it with {person} at home?", "Loud, but lovely. We cook together a lot."),),
        )

    def _job(self, name: str, day: date, people: list[str]) -> _Event:
        role, where, other = self._draw(name, CHAT_JOBS)
        return _Event(
            "job",
            f"Big news: I got promoted to {role} at {where} {self._when(day)}!",
            ("You deserve it. Is there more pay?", "A bit more, and a lot more meetings."),
            role.split()[-1],
            {
                "exact": [
                    f"When did {{name}} become {role}?",
                    f"Where did {{name}} become {role}?",
                ],
                "topic": ["What promotion did {name} get?", "What is {name}'s new job title?"],
                "paraphrase": [f"Is {{name}} now {other}?"],
            },
            ((f"How is life as {role}?", "Meetings, meetings and more meetings."),),
        )

    def _instrument(self, name: str, day: date, people: list[str]) -> _Event:
        instrument, other = self._draw(name, CHAT_INSTRUMENTS)
        return _Event(
            "instrument",
            f"I bought a second-hand {instrument} {self._when(day)} and I'm teaching myself.",
            ("Can you play anything yet?", "Two songs, badly. The neighbours love me."),
            instrument.split()[0],
            {
                "exact": [
                    f"When did {{name}} buy the {instrument}?",
                    f"Is {{name}} learning the {instrument}?",
                ],
                "topic": ["What instrument did {name} buy?", "What is {name} teaching themselves?"],
                "paraphrase": [f"Which {other} does {{name}} practise?"],
            },
            (
                (f"How is the {instrument} going?", "I learned a new song this week!"),
                (
                    f"Are you still playing the {instrument}?",
                    "Every evening, the neighbours are thrilled.",
                ),
            ),
        )

    def _book(self, name: str, day: date, people: list[str]) -> _Event:
        title, author, about = self._draw(name, CHAT_BOOKS)
        return _Event(
            "book",
            f"I'm reading {title} by {author} at the moment, I can't put it down.",
            ("What's it about?", f"It's about {about}, and it's beautifully written."),
            author.split()[-1],
            {
                "exact": [
                    f"Which book by {author} is {{name}} reading?",
                    f"What does {{name}} think of {author}?",
                ],
                "topic": ["What book is {name} reading?", "Which novel can't {name} put down?"],
                "paraphrase": ["What story has {name} been hooked on lately?"],
            },
            ((f"Did you finish {title}?", "Almost, I am saving the last chapter."),),
        )

    def _race(self, name: str, day: date, people: list[str]) -> _Event:
        race, other = self._draw(name, CHAT_RACES)
        place = self._draw(name, CHAT_PLACES)
        when = say_date(day + timedelta(days=self.rng.randint(20, 60)), 0)
        return _Event(
            "race",
            f"I signed up for the {place} {race} on {when}, wish me luck.",
            ("Are you training for it?", "Three times a week, and I'm sore every time."),
            race.split()[-1],
            {
                "exact": [f"When is {{name}}'s {race}?", f"Where is {{name}}'s {race}?"],
                "topic": ["What race did {name} sign up for?", "What is {name} training for?"],
                "paraphrase": [f"When is {{name}} doing that {other}?"],
            },
            (
                (
                    f"How is the training for the {race} going?",
                    "I ran fifteen kilometres on Sunday!",
                ),
                (f"Nervous about the {race}?", "A little. Mostly about the hills."),
            ),
        )

    def _friend_name(self, name: str, day: date, people: list[str]) -> _Event:
        person = people.pop()
        place = self.rng.choice(["a bookshop", "the dog park", "a wedding", "the gym"])
        return _Event(
            "friend",
            f"I ran into {person} at {place} {self._when(day)}, we hadn't seen each other in years.",
            ("What a coincidence! Had they changed?", "Not one bit, it was like no time passed."),
            person,
            {
                "exact": [f"Where did {{name}} meet {person}?", f"When did {{name}} see {person}?"],
                "topic": ["Who did {name} run into?"],
                "paraphrase": ["Which old acquaintance did {name} bump into by chance?"],
            },
            ((f"Have you seen {person} again?", "We had coffee last week, actually."),),
        )


def conversations_generate(
    *, conversations: int = 10, seed: int = DEFAULT_SEED
) -> list[Conversation]:
    """The conversational set: the same for the same arguments on every run."""
    rng = random.Random(seed)
    asked: set[str] = set()
    return [
        _ChatBuilder(
            rng=random.Random(rng.randrange(2**32)), number=n, seed=seed, asked=asked
        ).build()
        for n in range(conversations)
    ]


def describe_conversations(conversations: list[Conversation]) -> str:
    sessions = [len(c.chats) for c in conversations]
    blocks = [len(c.blocks()) for c in conversations]
    questions = [q for c in conversations for q in c.questions]
    kinds = Counter(q.kind for q in questions)
    return (
        f"{len(conversations)} conversations, {sum(sessions)} sessions, {sum(blocks)} turns "
        f"({min(blocks)}-{max(blocks)} per conversation), {len(questions)} questions: "
        + ", ".join(f"{kinds[k]} {k}" for k in KINDS)
    )


# A shopper's history or a conversation: both have a user id, blocks, questions and a session
# to ask from.
