"""A realistic generated notebook for the speed benchmarks, the same every time.

What an agent's notebook holds after months or years of use, written day by
day as git commits with fixed dates (one `git fast-import`):

- daily logs, `daily/YYYY-MM-DD.md`: `## HH:MM — ...` entries of one to three
  sentences, committed twice a day (morning and evening);
- pages, `people/`, `projects/`, `knowledge/`, `reference/`, `lists/`: H2
  sections of bullets, edited along the way (a bullet added, reworded or
  dropped, a new section, a new page), so the history holds superseded text;
- sessions, `sessions/YYYY-MM-DD-HHMM.md`: chat transcripts of short turns.

Words come from fixed lists (people, places, projects, everyday and work
nouns) drawn with a Zipf-like skew, so some words are on every other page and
some on a handful; a few tagged ids (`INV-1234`) are rare on purpose. The
notes are short (most chunks are one daily entry or one section of bullets,
100-600 characters): that is what agent notebooks look like, and it keeps the
embedding of a 100k-chunk notebook within minutes (a 1,600-character chunk
embeds about 15x slower than a 150-character one). Same seed, same bytes, so
the embedding cache of an earlier run is reused.
"""

from __future__ import annotations

import random
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import IO, Callable

VERSION = 1  # bump whenever the generated text changes (names the cached notebooks)

FIRST = ("Sarah Bob Dana Eli Farah Gus Hana Ivo Jun Kai Lena Milo Nora Omar Pia Quinn Rosa Sven Tara Uma "
         "Victor Wendy Xavier Yara Zoe Amir Bianca Carlos Dmitri Elena Felix Greta Hugo Ines Jonas Keiko "
         "Liam Maya Nikos Olga Pablo Rania Stefan Tomas Ursula Vera Wim Yusuf").split()
LAST = ("Chen Marsh Okafor Lindqvist Patel Romero Novak Tanaka Fischer Haddad Costa Kowalski Murphy Silva "
        "Nakamura Berg Duarte Ivanova Moreau Schmidt").split()
PLACES = ("Lisbon Berlin Oslo Lyon Porto Vienna Kyoto Denver Austin Leeds Ghent Turin Bergen Krakow Seville "
          "Zurich Dublin Nantes Graz Malmo").split() + ["the office", "the warehouse", "the lab", "the harbour"]
PROJECTS = ("Apollo Borealis Cedar Dynamo Ember Falcon Granite Harbor Iris Juniper Kestrel Lumen Meridian "
            "Nimbus Onyx Pelican Quartz Rover Sequoia Tundra").split()
THINGS = ("budget contract invoice prototype sensor firmware dashboard roadmap release backup server router "
          "laptop printer battery cable charger deadline review demo design spec migration database schema "
          "index query cache queue deployment pipeline test suite benchmark report draft proposal survey "
          "interview hiring offer visa passport flight hotel taxi train ticket lunch dinner coffee tea "
          "birthday gift dentist doctor gym garden tomato boiler heater window roof plumber insurance tax "
          "receipt refund warranty subscription password vault calendar meeting agenda minutes retro "
          "sprint backlog ticket outage incident alert pager metric latency throughput memory disk "
          "certificate domain email newsletter webinar conference talk slides workshop training manual "
          "vendor supplier courier shipment pallet warehouse inventory forecast quote discount").split()
ADJECTIVES = ("late early urgent blocked done flaky slow fast cheap expensive broken fixed new old final "
              "rough quiet busy tricky solid risky").split()
VERBS = ("reviewed signed sent fixed moved cancelled approved postponed booked ordered tested shipped "
         "drafted rewrote merged paid renewed measured profiled").split() + ["rolled back"]
DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()

ENTRY = [
    "Met {person} about the {project} {thing}; {pronoun} wants it {adj} by {day}.",
    "{person} {verb} the {thing} for {project}.",
    "Called {person} in {place}: the {thing} is {adj} again.",
    "The {thing} on {project} is {adj}; {person} will look at the {thing2} first.",
    "Lunch with {person} and {person2} in {place}, mostly about the {thing}.",
    "{verb_cap} the {thing2} and the {thing} before the {project} {thing3}.",
    "Note to self: ask {person} whether the {thing} for {project} needs a {thing2}.",
    "Spent the afternoon on the {project} {thing}; the {thing2} was {adj}.",
    "{person} says the {thing} costs {money} now, up from {money2}.",
    "Booked the {thing} in {place} for {day} at {time}.",
    "Ticket {ticket}: the {thing} {verb} by {person}, {thing2} still {adj}.",
    "Decided: {project} ships the {thing} {day}, {person} owns the {thing2}.",
]
BULLET = [
    "{person} prefers {thing} over {thing2}",
    "{person}'s phone is 555-{num4}, email {first}@{domain}",
    "The {project} {thing} lives in {place}",
    "{thing_cap} budget for {project}: {money}",
    "{person} is allergic to {food}",
    "Ask {person} before touching the {thing}",
    "{project} {thing} is {adj}; see ticket {ticket}",
    "Renew the {thing} every {num1} months",
    "{person} and {person2} own the {thing} together",
    "The {thing} password is in the vault under {project}",
]
FOOD = "peanuts shellfish gluten lactose strawberries sesame eggs soy".split()
DOMAINS = "example.com acme.org mail.test corp.example".split()
SAY = [
    "Can you remind me what we decided about the {project} {thing}?",
    "{person} asked about the {thing} again. What did we tell {obj}?",
    "We agreed the {thing} is {adj}; {person} takes the {thing2} from here.",
    "Last time the {thing} was {adj} because the {thing2} was {adj2}.",
    "Please add the {thing} to the {project} list for {day}.",
    "I looked it up: {person} {verb} the {thing} in {place}.",
    "The {thing} for {project} should cost about {money}.",
    "Noted. I will keep the {thing} and the {thing2} apart.",
]


def _zipf(items: list[str], skew: float = 1.0) -> tuple[list[str], list[float]]:
    weights, total = [], 0.0
    for rank in range(len(items)):
        total += 1.0 / (rank + 1) ** skew
        weights.append(total)
    return items, weights


@dataclass
class Words:
    """Slot values drawn with a Zipf-like skew: the first names on each list are the common ones."""

    rng: random.Random
    people: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        order = random.Random(1)
        self.people = [f"{f} {order.choice(LAST)}" for f in FIRST]
        self._lists = {name: _zipf(items) for name, items in {
            "person": self.people, "place": PLACES, "project": PROJECTS, "thing": THINGS,
            "adj": ADJECTIVES, "verb": VERBS, "day": DAYS, "food": FOOD, "domain": DOMAINS}.items()}

    def pick(self, slot: str) -> str:
        items, weights = self._lists[slot]
        return self.rng.choices(items, cum_weights=weights)[0]

    def fill(self, template: str) -> str:
        rng = self.rng
        person = self.pick("person")
        values = {
            "person": person, "first": person.split()[0].lower(), "person2": self.pick("person"),
            "pronoun": rng.choice(("she", "he", "they")), "obj": rng.choice(("her", "him", "them")),
            "place": self.pick("place"), "project": self.pick("project"), "thing": self.pick("thing"),
            "thing2": self.pick("thing"), "thing3": self.pick("thing"), "adj": self.pick("adj"),
            "adj2": self.pick("adj"), "verb": self.pick("verb"), "day": self.pick("day"),
            "food": self.pick("food"), "domain": self.pick("domain"),
            "time": f"{rng.randint(7, 20):02d}:{rng.choice((0, 15, 30, 45)):02d}",
            "money": f"{rng.randint(2, 900) * 10} EUR", "money2": f"{rng.randint(2, 900) * 10} EUR",
            "ticket": f"INV-{rng.randint(1000, 9999)}", "num4": f"{rng.randint(0, 9999):04d}",
            "num1": str(rng.randint(2, 24)),
        }
        values["verb_cap"] = values["verb"].capitalize()
        values["thing_cap"] = values["thing"].capitalize()
        return template.format(**values)


class Notebook:
    """The simulated notebook, one day at a time."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.words = Words(self.rng)
        self.pages: dict[str, list[tuple[str, list[str]]]] = {}  # path -> [(heading, bullets)]
        self.daily: list[str] = []
        self.chunks = 0  # about how many chunks the notebook holds now (see estimate)

    def page_text(self, path: str) -> str:
        title = path.rsplit("/", 1)[-1][:-3].replace("-", " ").title()
        parts = [f"# {title}\n"]
        for heading, bullets in self.pages[path]:
            parts.append(f"\n## {heading}\n\n" + "".join(f"- {b}\n" for b in bullets))
        return "".join(parts)

    def entry(self, when: datetime) -> str:
        rng, w = self.rng, self.words
        first = w.fill(rng.choice(ENTRY))
        body = " ".join(w.fill(rng.choice(ENTRY)) for _ in range(rng.choice((0, 1, 1, 2, 3))))
        self.chunks += 1
        return f"\n## {when:%H:%M} — {first}\n" + (f"\n{body}\n" if body else "")

    def edit_page(self, day: int) -> str:
        """One edit an agent makes to a page; returns the page's path."""
        rng, w = self.rng, self.words
        if not self.pages or rng.random() < 0.04:
            path = self._new_page(day)
        else:
            recent = sorted(self.pages)[-40:]
            path = rng.choice(recent if rng.random() < 0.7 else sorted(self.pages))
        sections = self.pages[path]
        roll = rng.random()
        if not sections or roll < 0.15 or len(sections[-1][1]) >= 8:
            sections.append((self._heading(day), [w.fill(rng.choice(BULLET))]))
            self.chunks += 1
        elif roll < 0.80:
            sections[-1][1].append(w.fill(rng.choice(BULLET)))
        elif roll < 0.95:
            bullets = rng.choice(sections)[1]
            bullets[rng.randrange(len(bullets))] = w.fill(rng.choice(BULLET))
        else:
            bullets = rng.choice(sections)[1]
            if len(bullets) > 1:
                bullets.pop(rng.randrange(len(bullets)))
        return path

    def _new_page(self, day: int) -> str:
        rng, w = self.rng, self.words
        kind = rng.choice(("people", "projects", "knowledge", "knowledge", "reference", "lists"))
        name = {"people": lambda: w.pick("person").lower().replace(" ", "-"),
                "projects": lambda: w.pick("project").lower(),
                "knowledge": lambda: f"{w.pick('thing')}-{w.pick('thing')}",
                "reference": lambda: f"{w.pick('thing')}s",
                "lists": lambda: f"{w.pick('thing')}-list"}[kind]()
        path = f"{kind}/{name}.md"
        n = 2
        while path in self.pages:
            path = f"{kind}/{name}-{n}.md"
            n += 1
        self.pages[path] = []
        return path

    def _heading(self, day: int) -> str:
        w = self.words
        return self.rng.choice((f"Notes {day}", f"{w.pick('thing').capitalize()} decisions",
                                f"Status {day}", f"With {w.pick('person')}", f"{w.pick('project')} {day}"))

    def session(self, when: datetime) -> str:
        rng, w = self.rng, self.words
        turns = []
        for i in range(rng.randint(6, 14)):
            role = "user" if i % 2 == 0 else "assistant"
            turns.append(f"{role}: " + " ".join(w.fill(rng.choice(SAY)) for _ in range(rng.randint(1, 2))))
        text = "\n\n".join(turns)
        self.chunks += max(1, round(len(text) / 1300))
        return (f"---\nchat: \"{when:%Y%m%d%H%M}\"\nagent: \"bench\"\ntime: {when.isoformat()}\n"
                f"messages: {len(turns)}\n---\n# Session {when:%Y-%m-%d %H:%M}\n\n{text}\n")


@dataclass
class Built:
    path: Path
    commits: int
    days: int
    files: int
    estimated_chunks: int


START = datetime(2020, 1, 6, 7, 0, tzinfo=timezone.utc)
AUTHOR = "Ada Lovelace <ada@example.com>"
SETTINGS = '[notebook]\npath = "."\nlayout = "folders"\n'  # everything else: gitmem's current defaults


def generate(path: Path, chunks: int, seed: int = 7,
             progress: Callable[[int], None] | None = None) -> Built:
    """A notebook of about `chunks` chunks (with gitmem's default chunking) at `path`."""
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=path, check=True)
    nb = Notebook(seed)
    proc = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=path, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    commits = day = 0
    files: set[str] = set()
    _commit(proc.stdin, commits, START - timedelta(days=1), "notebook settings", {".gitmem.toml": SETTINGS})
    commits += 1
    while nb.chunks < chunks:
        date = START + timedelta(days=day)
        nb.daily = [f"# Daily Log — {date:%Y-%m-%d}\n"]
        for half in (0, 1):
            when = date + timedelta(hours=2 + 9 * half)
            changed = {}
            for k in range(nb.rng.randint(3, 12)):
                nb.daily.append(nb.entry(when + timedelta(minutes=20 * k)))
            changed[f"daily/{date:%Y-%m-%d}.md"] = "".join(nb.daily)
            for _ in range(nb.rng.randint(0, 3)):
                page = nb.edit_page(day)
                changed[page] = nb.page_text(page)
            if half and nb.rng.random() < 0.3:
                started = when - timedelta(hours=nb.rng.randint(1, 6))
                changed[f"sessions/{started:%Y-%m-%d-%H%M}.md"] = nb.session(started)
            files.update(changed)
            _commit(proc.stdin, commits, when + timedelta(hours=1), f"mem: {date:%Y-%m-%d} {'pm' if half else 'am'}",
                    changed)
            commits += 1
        day += 1
        if progress and day % 100 == 0:
            progress(nb.chunks)
    proc.stdin.close()
    if proc.wait():
        raise RuntimeError("git fast-import failed")
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=path, check=True)
    return Built(path, commits, day, len(files), nb.chunks)


def _commit(out: IO[bytes], mark: int, when: datetime, message: str, files: dict[str, str]) -> None:
    ts = int(when.timestamp())
    msg = message.encode()
    out.write(f"commit refs/heads/main\nmark :{mark + 1}\nauthor {AUTHOR} {ts} +0000\n"
              f"committer {AUTHOR} {ts} +0000\n".encode() + b"data %d\n%s\n" % (len(msg), msg))
    for rel, text in files.items():
        data = text.encode()
        out.write(f'M 100644 inline "{rel}"\n'.encode() + b"data %d\n%s\n" % (len(data), data))
    out.write(b"\n")


def queries(seed: int = 11, n: int = 20) -> list[str]:
    """Questions an agent asks its notebook, in the notebook's own words and in other words."""
    w = Words(random.Random(seed))
    shapes = [
        lambda: f"{w.pick('person')} phone",
        lambda: f"what did {w.pick('person').split()[0]} say about the {w.pick('thing')}",
        lambda: f"{w.pick('project')} {w.pick('thing')} deadline",
        lambda: f"is the {w.pick('thing')} still {w.pick('adj')}",
        lambda: f"INV-{w.rng.randint(1000, 9999)}",
        lambda: f"who is allergic to {w.pick('food')}",
        lambda: f"trip to {w.pick('place')}",
        lambda: f"how much does the {w.pick('thing')} cost",
    ]
    return [shapes[i % len(shapes)]() for i in range(n)]
