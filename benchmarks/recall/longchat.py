"""The long-chat set: a proxy for the public long-conversation benchmarks, split in two.

Two people talk over 18-24 dated sessions (one block per turn, "Name: what they said"),
each telling the other, one item at a time, about the threads of their life: pets,
instruments, outings, art, books, volunteering, the kids, cooking, courses, travel, sport
(`longchat_tables`). An item is told in one session, the friend reacts or asks a follow-up
and the teller replies with a detail; later sessions come back to it ("Still practising
the violin?") among small talk. The questions are of the public sets' four kinds, each
with the turns that answer it (its evidence):

- `single-hop`: a detail of one item, one turn (mostly the reply to the friend's question,
  so the item's own name is in the turn before);
- `temporal`: when an item happened ("When did Gina adopt a beagle?"), the turn telling it;
- `multi-hop`: the items of one thread ("What pets does Gina have?"), the turns that told
  each, two to four of them in different sessions;
- `open-domain`: what follows from a thread ("Would Gina be a good volunteer at an animal
  shelter?"), two of those turns, sharing almost no word with the question.

Plain BM25 finds about half of the evidence in its top 10, as on the public sets, so a
rule's gain here says something about them; the dialogue set is far harder. Each
conversation has its own seed; the first half of them is for trying rules
(`halves()`: "tuning"), the second half is only ever reported ("held-out").
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import date, timedelta

from benchmarks.recall.conversations import Chat, Conversation, Turn
from benchmarks.recall.longchat_tables import (
    FILLERS,
    OPENERS,
    PEOPLE,
    REACTIONS,
    SMALL_TALK,
    TAILS,
    THREADS,
    WHEN,
)
from benchmarks.recall.words import DEFAULT_SEED, Question, question_kind

KINDS = ("single-hop", "multi-hop", "temporal", "open-domain")
THREADS_PER_SPEAKER = 6


class _Item:
    def __init__(self, thread: str, item: tuple[str, ...]) -> None:
        self.thread = thread
        self.noun, self.statement, self.follow_up, self.detail, self.question, self.event = item
        self.session = 0
        self.echoes = 0  # later sessions that came back to it
        self.told_key = ""
        self.detail_key = ""


class _Builder:
    def __init__(self, rng: random.Random, user_id: str) -> None:
        self.rng = rng
        self.user_id = user_id

    def build(self) -> Conversation:
        rng = self.rng
        speakers = tuple(rng.sample(PEOPLE, 2))
        sessions = rng.randint(18, 24)
        days = [date(2023, 1, 8) + timedelta(days=rng.randint(0, 40))]
        for _ in range(sessions - 1):
            days.append(days[-1] + timedelta(days=rng.randint(6, 20)))
        told: dict[str, list[_Item]] = {}
        for speaker in speakers:
            for thread in rng.sample(sorted(THREADS), THREADS_PER_SPEAKER):
                items = rng.sample(THREADS[thread]["items"], rng.randint(2, 4))
                # Each item in its own session: a thread is spread over the whole talk.
                at = sorted(rng.sample(range(sessions - 1), len(items)))
                told[f"{speaker}/{thread}"] = []
                for item, n in zip(items, at, strict=True):
                    made = _Item(thread, item)
                    made.session = n
                    told[f"{speaker}/{thread}"].append(made)
        chats = [self._chat(n, days[n], speakers, told) for n in range(sessions)]
        blocks = {t.key: t.block for chat in chats for t in chat.turns}
        questions = self._questions(told, blocks)
        return Conversation(self.user_id, speakers, tuple(chats), tuple(questions))

    def _chat(self, n: int, day: date, speakers: tuple[str, str], told) -> Chat:
        rng = self.rng
        a, b = speakers
        parts: list[list[tuple[str, str, _Item | None, str]]] = []
        for key, items in told.items():
            speaker = key.split("/")[0]
            friend = b if speaker == a else a
            for item in items:
                if item.session == n:
                    parts.append(self._told(speaker, friend, item))
                elif item.session < n and item.echoes < 2 and rng.random() < 0.12:
                    item.echoes += 1
                    asked, answered = THREADS[item.thread]["echo"]
                    parts.append([(friend, asked.format(noun=item.noun), None, ""),
                                  (speaker, answered.format(noun=item.noun[:1].upper()
                                                            + item.noun[1:]), None, "")])  # fmt: skip
        for _ in range(rng.randint(3, 6)):
            first, second = rng.choice(SMALL_TALK)
            speaker = rng.choice(speakers)
            friend = b if speaker == a else a
            part = [(speaker, first + rng.choice(TAILS), None, "")]
            if rng.random() < 0.8:
                part.append((friend, second, None, ""))
            parts.append(part)
        rng.shuffle(parts)
        opener = rng.choice(speakers)
        other = b if opener == a else a
        lines = [(opener, rng.choice([f"Hey {other}! How have you been?",
                                      f"Hi {other}, long time no chat!"]), None, ""),
                 (other, rng.choice(["Hey! Doing well, you?", "Hi! Busy, but good."]), None, "")]  # fmt: skip
        for part in parts:
            lines += part
        lines.append(
            (rng.choice(speakers), rng.choice(["Talk soon!", "Take care, bye!"]), None, "")
        )
        turns = []
        for position, (speaker, text, item, role) in enumerate(lines):
            key = f"{self.user_id}/session{n + 1}/t{position + 1}"
            if item is not None:
                setattr(item, f"{role}_key", key)
                if role == "told":  # until a reply of its own tells the detail
                    item.detail_key = key
            turns.append(Turn(key, speaker, text))
        return Chat(f"session{n + 1}", day, tuple(turns))

    def _told(self, speaker: str, friend: str, item: _Item):
        rng = self.rng
        when = rng.choice(WHEN)
        statement = item.statement
        if when:
            keep = statement.startswith(("I ", "I'"))
            statement = when + (statement if keep else statement[0].lower() + statement[1:])
        if rng.random() < 0.7:
            statement += " " + THREADS[item.thread]["says"]
        if rng.random() < 0.4:  # the whole story in one turn, which then answers all
            told = rng.choice(OPENERS) + statement + " " + item.detail
            return [(speaker, told, item, "told"), (friend, self._reaction(item), None, "")]
        statement = rng.choice(OPENERS) + statement + rng.choice(FILLERS)
        part = [(speaker, statement, item, "told")]
        if rng.random() < 0.5:
            part.append((friend, self._reaction(item), None, ""))
        part.append((friend, item.follow_up, None, ""))
        part.append((speaker, item.detail, item, "detail"))
        return part

    def _reaction(self, item: _Item) -> str:
        return self.rng.choice(REACTIONS).format(noun=item.noun)

    def _questions(self, told: dict[str, list[_Item]], blocks: dict[str, str]) -> list[Question]:
        rng = self.rng
        questions: list[Question] = []

        def ask(kind: str, text: str, keys: list[str], needle: str, topic: str) -> None:
            if any(q.text == text for q in questions):
                return
            words = question_kind(text, needle, [blocks[k] for k in keys])
            key = f"{self.user_id}/q{len(questions) + 1}"
            questions.append(Question(key, text, words, topic, tuple(keys), kind))

        for group, items in told.items():
            name, thread = group.split("/")
            for item in items:
                ask("single-hop", item.question.format(name=name), [item.detail_key],
                    item.noun, thread)  # fmt: skip
                if rng.random() < 0.5:
                    ask("temporal", f"When did {name} {item.event}?", [item.told_key],
                        item.noun, thread)  # fmt: skip
            ask("multi-hop", THREADS[thread]["multi"].format(name=name),
                [i.told_key for i in items], "", thread)  # fmt: skip
            pair = rng.sample(items, 2)
            ask("open-domain", THREADS[thread]["open"].format(name=name),
                [i.told_key for i in pair], "", thread)  # fmt: skip
        return questions


def longchat_generate(*, conversations: int = 10, seed: int = DEFAULT_SEED) -> list[Conversation]:
    """The set: conversation n has a seed of its own, so the halves never share one."""
    return [
        _Builder(random.Random(seed * 100_003 + n), f"longchat-{seed}-{n:03d}").build()
        for n in range(conversations)
    ]


def halves(conversations: list[Conversation]) -> tuple[list[Conversation], list[Conversation]]:
    """The tuning half (the first conversations) and the held-out half (the rest)."""
    middle = (len(conversations) + 1) // 2
    return conversations[:middle], conversations[middle:]


def describe_longchat(conversations: list[Conversation]) -> str:
    sessions = [len(c.chats) for c in conversations]
    blocks = [len(c.blocks()) for c in conversations]
    questions = [q for c in conversations for q in c.questions]
    kinds = Counter(q.type for q in questions)
    spread = sum(1 for q in questions if len(q.answers) > 1)
    return (
        f"{len(conversations)} conversations, {sum(sessions)} sessions, {sum(blocks)} turns "
        f"({min(blocks)}-{max(blocks)} each), {len(questions)} questions: "
        + ", ".join(f"{kinds[k]} {k}" for k in KINDS)
        + f"; {spread} with two evidence turns or more"
    )
