"""Updates said in time: "moved to", "no longer", "switched from A to B", "now",
"instead of", "changed to", "from now on", "as of".

supersede.py reads a fact as subject, attribute and value when it names an
attribute it knows (a phone, a date). People also write updates without one:
"The default branch is now main", "Bob no longer works at Acme", "We switched
from Jira to Linear", "As of May the rent is 1,450 a month". These say by
their wording that they replace something; what they replace is the line
about the same subject, found here by plain word rules, each bounded so that
a near neighbour stays (another subject, another thing, another verb):

- `S is now V`, `S now VERB V`, `S changed to V`, `S moved to V` (and
  pushed, postponed, rescheduled, delayed, slipped; "slipped again, now V"):
  the old line starts with the same
  subject S (the same words, in order, past "the", "our" ...), then a link
  ("is", ":", "is on", the same verb; a move it said itself, "slipped to")
  and another value. An old value that is the new one with one word changed
  and then goes on ("db-stage-03.lumen.internal port 5433") is only those
  words: the rest of the line stays. A subject that is
  only a name ("Sam is now a manager") is left to supersede.py's attributes:
  a person has many properties at once.
- after "as of X" / "from now on" / "starting X" / "going forward", or before a
  last "from now on" / "going forward" / "henceforth", the same with a plain "is"
  or verb ("As of May the rent is 1,450", "Standup is at 10:00 from now on").
- `S was rewritten/rebuilt/renamed ... V` (the verb done again) against `S is
  written ... V'`, and `we moved the S to V` against `S is at V'`.
- `S no longer VERB O` (stopped, quit): the old line has the same subject,
  then the same verb (or a like: likes, loves, prefers, enjoys) and every word
  of O ("I no longer drink coffee" updates "I prefer dark roast coffee", not
  "Coffee beans are in the cupboard" nor "Sarah prefers coffee").
- `switched/moved/changed/migrated ... from A to B`, `B instead of A`,
  `replaced A with B`: the old line holds A and no other named subject (and
  not B, unless it prefers A over B: "I prefer tea over coffee", which the
  new fact then replaces whole).

Every rule needs the old value and the new one to differ, and the new one not
to be the old one said more fully.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from .markdown import exact_differ, long_form, normalize_fact

LINK = frozenset("the a an our my your their his her its this that is are was were be been has have s".split())
SELF = frozenset("i we me us user".split())
# words between a subject and its value in the old line: "is on", "is scheduled for", "runs at"
JOINS = frozenset("is are was were on at in for by scheduled planned set due will be takes place held happens "
                  "starts begins ships launches goes live runs lives sits hosted located based stored kept stays "
                  "resides".split())
# words of frequency between a subject and its verb: "I always take the aisle seat"
OFTEN = frozenset("always usually often normally generally typically mostly sometimes still really also just "
                  "mainly".split())
STOP = frozenset("a an the to of in on at for by with from and or my our your his her their its is are was "
                 "be it this that any anywhere now also".split())
LIKES = frozenset("like likes love loves prefer prefers enjoy enjoys adore adores".split())
MOVES = r"(?:moved|pushed back|pushed out|pushed|postponed|rescheduled|delayed|brought forward|slipped|bumped)"
# "slipped to May 5", "slipped again, now May 5", "pushed back once more to June"
# ... and an amount that rose or fell ("Our rent went up to 2550 a month as of December": a newcomer's
# stood beside the old rent)
NOW = re.compile(rf"^(?P<s>.+?) (?:(?:is|are|was) now|(?:has |have )?(?:changed|switched) to|"
                 # ... to an amount: "the kids went down to Grandma's" is a trip (a review)
                 r"(?:went|goes|has gone|have gone|is going|are going) (?:up|down) to(?= \S*\d)|"
                 r"(?:has |have )?(?:rose|risen|rises|fell|fallen|falls|dropped|increased|decreased|gone up|"
                 r"gone down) to(?= \S*\d)|"
                 # ... set to an amount, back to a value, or a version ("Coverage target lowered to 70 percent",
                 # "Loki log retention is back to 30 days", "Prod database got upgraded to Postgres 16": an agent
                 # developer's run, 2026-11-27)
                 r"(?:was |has been |have been |got |is )?(?:raised|lowered|reduced|cut) to(?= \S*\d)|"
                 r"(?:is |are |was |went |goes |has gone |have gone )?back to|"
                 r"(?:was |has been |have been |got |is being )?(?:upgraded|downgraded|updated) to|"
                 rf"(?:was |has been |is being |got |is )?{MOVES}(?: again| once more| further)?"
                 rf" (?:to|until|for|now(?: to| until| for)?)) (?P<v>.+)$")
# an old line that says a move itself: "Apollo launch slipped to April 28" (its value follows these)
MOVED = frozenset("moved pushed back postponed rescheduled delayed brought forward slipped bumped out again once more "
                  "further to until now".split())
NOW_VERB = re.compile(r"^(?P<s>.+?) now (?P<verb>[a-z]+) (?P<v>.+)$")
MARKER = re.compile(r"^(?:from now on|going forward|as of|starting|effective|from(?= (?:next )?"
                    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow|week|month)\b))"
                    r"\b ?(?P<rest>.*)$")
NO_LONGER = re.compile(r"^(?P<s>.*?)\s*\b(?:no longer|not anymore|stopped|quit|gave up)\b (?P<rest>.+)$")
FROM_TO = re.compile(r"^(?P<s>.*?)\b(?:switched|moved|changed|migrated|went|converted)\b(?P<mid>.*?)\bfrom "
                     r"(?P<a>.+?) to (?P<b>.+)$")
INSTEAD = re.compile(r"^(?P<left>.+?) instead of (?P<a>.+)$")
# "Sofia Marino takes over from Marcus as product manager" (an agent developer's run, 2026-11-27)
TAKES_OVER = re.compile(r"^(?P<b>.+?) (?:takes|took|has taken|is taking|will take) over from (?P<a>.+?) as "
                        r"(?:the |our |their |a |an )?(?P<role>.+)$")
# "Redis was replaced by Valkey on cache-01", "The Sentry project harbor-api was renamed to harbor-backend" (the
# same run): A, then B up to where it says more (a place, a reason)
REPLACED_BY = re.compile(r"^(?P<a>.+?) (?:was |were |has been |have been |got |is being |is |are )?"
                         r"(?:replaced (?:by|with)|renamed (?:to|as)|swapped (?:for|out for)) (?P<b>.+?)"
                         r"(?: (?:on|in|at|for|with|from|since|because|after)\b.*)?$")
REPLACED = re.compile(r"^(?P<s>.*?)\breplaced (?P<a>.+?) with (?P<b>.+)$")
REASON = re.compile(r" (?:because|due to|owing to|thanks to|following|so that|as a result)\b.*$")
# when it takes effect, said last: "Annual physical moved to June, starting 2027" (a newcomer's was no update)
TAKES_EFFECT = re.compile(r" (?:starting|effective|beginning|as of)(?: \w+){1,3}$")
# ... or that it holds from now, said last: "Standup is at 10:00 from now on" stood beside "Standup is at
# 09:30" (an agent developer's run, 2026-11-27)
FROM_NOW = re.compile(r" (?:from now on|going forward|henceforth|from (?:today|tomorrow)(?: on)?|"
                      r"until further notice)$")
# a thing done again, which replaces what was done before: "The billing service was rewritten in Go"
# stood beside "The billing service is written in Ruby" (the same run)
AGAIN = r"written|built|designed|implemented|named|branded|hosted|priced|assigned|configured|located|organi[sz]ed|" \
        r"structured"  # the verbs done again ("re-" and one of these)
REDONE = re.compile(rf"^(?P<s>.+?) (?:was |were |has been |have been |got |is being |are being )?"
                    rf"re(?P<verb>{AGAIN}) (?P<v>.+)$")
# a thing someone moved: "We moved the office to 22 Queen Street" of "Our office is at 5 King Street"
MOVED_THING = re.compile(r"^(?:i|we|they|he|she|\w+) (?:have |has |just )*(?:moved|relocated|shifted) "
                         r"(?P<s>(?:the|our|my|their|his|her) .+?) (?:to|into) (?P<v>.+)$")
NEGATED = re.compile(r"\b(?:no longer|not|never|don t|doesn t|didn t|stopped|quit)\b")
DAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday today tomorrow january february march "
                 "april may june july august september october november december jan feb mar apr jun jul aug sep "
                 "sept oct nov dec weekend".split())
DATEISH = DAYS | frozenset("next this week month year q1 q2 q3 q4 spring summer autumn fall winter".split())


@dataclass(frozen=True)
class Update:
    """How a new fact updates a line: the old value's words and the new one's (normalised, as in
    the text), or both empty when the new fact takes the whole line's place ("no longer")."""

    old: tuple[str, ...]
    new: tuple[str, ...]


def words(text: str) -> list[str]:
    return normalize_fact(text).replace("'", " ").split()


def clauses(text: str) -> list[str]:
    """A new fact's clauses, each as normalised words: "I no longer drink coffee; switched to tea"."""
    # also at a comma before a new subject or a joined clause: "I no longer take the aisle seat, I prefer ..."
    # and at a comma before what says the old value is gone: "switched from dark roast to green tea, no more
    # coffee" took "green tea no more coffee" for the new value (a newcomer, 2026-11-27)
    # and a parenthesis is an aside of its own: "is now Sam (Jess moved to the baby room)" took the aside for
    # part of the new value, and the hand-written update was not linked (a newcomer, 2026-11-27)
    parts = re.split(r";|\s[—–]\s|\.\s|,\s+(?:and|but|so)\s+|,\s+(?=(?:i|we|he|she|they)\s)"
                     r"|,\s+(?=(?:no more|no longer|not|never)\s)|\s*\(|\)", text, flags=re.IGNORECASE)
    return [" ".join(words(part)) for part in parts if words(part)]


def core(clause: str) -> tuple[str, bool]:
    """The clause without a leading time marker ("as of May", "from now on") and a trailing
    reason ("because of the auth bug"), and whether it had a marker."""
    clause = TAKES_EFFECT.sub("", REASON.sub("", clause))
    now = FROM_NOW.search(clause)
    if now is not None:
        return clause[:now.start()], True
    marker = MARKER.match(clause)
    if marker is None:
        return clause, False
    rest = marker["rest"].split()
    while rest and (rest[0] in DATEISH or any(c.isdigit() for c in rest[0])):
        rest = rest[1:]
    return " ".join(rest), True


def _strip(seq: list[str] | tuple[str, ...]) -> list[str]:
    return [w for w in seq if w not in LINK and w not in SELF]


def _content(seq: list[str] | tuple[str, ...]) -> set[str]:
    return {w for w in seq if w not in STOP and w not in SELF and w not in LINK}


def _names(raw: str) -> set[str]:
    """Words written with a capital inside a sentence or as its first word: names, mostly."""
    return {w.lower() for w in re.findall(r"\b[A-Z][\w-]*", raw)} - {"i", "the", "our", "my", "we", "a", "an"}


def _name_only(subject: list[str], raw: str) -> bool:
    return bool(subject) and set(subject) <= _names(raw)


def _differ(old: list[str], new: list[str], verb: bool) -> bool:
    """Two values that say different things: neither is the other said more fully; after a plain
    verb ("I now drink ...") they share a thing, both hold a number or both are dates."""
    # as stems: "one approval" and "two approvals" share their thing (a newcomer's update stood beside it)
    a, b = {_stem(w) for w in _content(old)}, {_stem(w) for w in _content(new)}
    if not a or not b or a <= b or b <= a:
        return False
    numbered = [any(any(c.isdigit() for c in w) for w in value) for value in (a, b)]
    if numbered[0] != numbered[1]:
        return False  # "daily at the office" and "9:45" are two kinds of value, not two values
    # two dates are two values too ("... now renews in September" of "... renews in June": a newcomer's
    # update stood beside the line, 2026-11-27)
    dated = all(value and all(w in DATEISH for w in value) for value in (a, b))
    return (bool(a & b) or all(numbered) or dated) if verb else True


def _same_words(a: list[str], b: list[str]) -> bool:
    """The same words in order, a short form being its word ("the prod db", "the production database")."""
    return len(a) == len(b) and all(long_form(x) == long_form(y) for x, y in zip(a, b))


# a word that says what kind of thing a name is, said by one line and left out by the other
# ("Project Atlas launch is planned for March 14", "Atlas launch slipped again, now April 2")
KINDS = frozenset("project product app service client customer company".split())


def _after_subject(subject: list[str], old: list[str], raws: tuple[str, str] = ("", "")) -> list[str] | None:
    """The old line's words after the subject (link words skipped), or None if it has another one.
    `raws`: the new fact and the old line as written (whether a kind word stands before a name)."""
    rest = _strip(old)
    subject = _kind_matched(subject, rest, raws)
    size = len(subject) if _same_words(rest[:len(subject)], subject) else _whose(subject, rest, raws[0])
    if size is None:
        return _loose(subject, old)
    i, seen = 0, 0
    while seen < size:  # the index in `old` just past the subject's words
        if old[i] not in LINK and old[i] not in SELF:
            seen += 1
        i += 1
    return old[i:]


OF = frozenset({"for", "of"})
# where an old line's subject ends: "Log retention in Loki | is 14 days"
VERB_LINKS = frozenset("is are was were runs run lives live sits happens happen takes starts start goes go ships "
                       "need needs uses use has have".split())
# a word that says what kind of thing the subject is, which an update may leave out ("Staging moved to ..." of
# "The staging server is ...")
KIND_WORDS = frozenset("server servers service database cluster host box machine instance repo deadline date"
                       .split())
LOOSE_STOP = frozenset("in of for on at to the a an our my your their all every each".split())


def _loose(subject: list[str], old: list[str]) -> list[str] | None:
    """The old line's words from its verb on, when its subject (the words before its first verb) is
    the new one's in another order ("Loki log retention" of "Log retention in Loki"), or with a kind
    word after it ("staging server" of "Staging"): an agent developer's run wrote updates so,
    2026-11-27. Not with a word before it: "Client meeting room" is another room than "Meeting
    room" (a review), and "Project launch" another launch than "Launch"."""
    at = next((i for i, w in enumerate(old) if w in VERB_LINKS), None)
    said = [long_form(_stem(w)) for w in subject if w not in LOOSE_STOP and w not in LINK and w not in SELF]
    if at is None or not said or any(w[:1].isdigit() for w in said):
        return None
    theirs = [long_form(_stem(w)) for w in old[:at] if w not in LOOSE_STOP and w not in LINK and w not in SELF]
    extra = [w for w in theirs if w not in said]
    if set(said) - set(theirs) or not theirs:
        return None
    if extra and (not set(extra) <= KIND_WORDS or set(theirs[:len(said)]) != set(said)):
        return None
    return old[at:]


def _whose(subject: list[str], rest: list[str], raw: str) -> int | None:
    """How many of the old line's words (`rest`, link words left out) are its subject when the new
    fact says it as whose it is and the line says it with "for" or "of": "Biscuit's vet" is "the
    vet for our dog Biscuit" (a newcomer's update stood beside the line, 2026-11-27); at most two
    words between ("our dog")."""
    if not re.search(r"\w['’]s\b", raw):
        return None
    for k in range(1, len(subject)):
        owner, thing = subject[:k], subject[k:]
        if not _same_words(rest[:len(thing)], thing) or rest[len(thing):len(thing) + 1] not in (["for"], ["of"]):
            continue
        for skip in range(3):
            at = len(thing) + 1 + skip
            if _same_words(rest[at:at + len(owner)], owner):
                return at + len(owner)
    return None


def _kind_matched(subject: list[str], rest: list[str], raws: tuple[str, str]) -> list[str]:
    """The subject as the old line says it when the two differ by a leading kind word before a name
    and a subject of two words or more: "atlas launch" as "project atlas launch", and back; never
    before a word in lower case ("Client meeting room" is another room than "Meeting room", a
    review found)."""
    new_raw, old_raw = raws
    if len(subject) >= 2 and rest[:1] and rest[0] in KINDS and subject[0] not in KINDS \
            and _before_name(old_raw, rest[0]):
        return [rest[0], *subject]
    if len(subject) >= 3 and subject[0] in KINDS and rest[:1] != subject[:1] and _before_name(new_raw, subject[0]):
        return subject[1:]
    return subject


def _before_name(raw: str, kind: str) -> bool:
    """Whether the kind word stands before a capitalised word in the text as written ("Project Atlas")."""
    return re.search(rf"(?i:\b{re.escape(kind)})[ \t]+[A-ZÀ-ÖØ-Þ]", raw) is not None


def _now(subject: list[str], verb: str | None, value: list[str], old: list[str], raw: str,
         old_raw: str = "", again: bool = False) -> Update | None:
    """`S is now V` / `S now VERB V` against an old line `S is V` / `S VERB V`; `again`: the verb
    was done again ("rewritten"), so the two values need share nothing."""
    said, subject = subject, _strip(subject)
    # a plural said first with a plural verb is no name ("Deploys now happen on ...", a newcomer's team:
    # a name takes "happens"); capitalised as a sentence starts, it read as one
    plural = verb is not None and not verb.endswith("s") and len(subject) == 1 and subject[0].endswith("s")
    if not subject and not (verb and said and set(said) <= SELF):
        return None  # "I now drink ...": the user; "is now" needs a subject
    # a name's property is one of many ("Sam is now a manager" of "Sam is vegetarian"), unless both say a
    # number ("Rent is now 1520 pounds a month": "Rent" said first read as a name, a newcomer's)
    named = not plural and _name_only(subject, raw)
    after = _after_subject(subject, old, (raw, old_raw))
    if after is None:
        return None
    while after and after[0] in KIND_WORDS and len(after) > 1 and after[1] in JOINS:
        after = after[1:]  # "staging server is ...": a kind word the update left out ("Staging moved to ...")
    if verb is not None:
        while after and (after[0] in SELF or after[0] in LINK):
            after = after[1:]
        if not after or _stem(after[0]) != _stem(verb):
            return None
        after = after[1:]
    moved = verb is None and bool(after) and after[0] in MOVED
    while after and (after[0] in JOINS or moved and after[0] in MOVED):
        after = after[1:]
    if not after:
        return None
    value = [w for w in value if w not in ("now", "also")]
    while value and value[0] in JOINS | LINK:
        value = value[1:]
    after = _like_only(_when_only(after, value), value)
    if named and not (_numbered(after) and _numbered(value)):
        return None
    if not _differ(after, value, verb is not None and not again) and not exact_differ(raw, old_raw):
        return None  # ... unless they name another address or host ("maria.new@example.pt" for "maria@...")
    return Update(tuple(after), tuple(value))


def _numbered(words: list[str]) -> bool:
    return any(any(c.isdigit() for c in w) for w in words)


# what follows a date or time and is no part of it: "on Thursdays at 4pm with Mrs. Lindqvist"
AFTER_WHEN = frozenset("with for because since so every each".split())


def _when_only(old: list[str], value: list[str]) -> list[str]:
    """The old value cut where a date or time ends, when the new one is a date or a time ("thursdays
    at 4pm" of "thursdays at 4pm with mrs lindqvist": the update names when, so the line keeps who)."""
    if not value or not (value[0].rstrip("s") in DATEISH or value[0][:1].isdigit()):
        return old
    cut = next((i for i, w in enumerate(old) if i and w in AFTER_WHEN and w not in value), None)
    return old[:cut] if cut is not None else old


def _like_only(old: list[str], value: list[str]) -> list[str]:
    """The old value cut to its first words when they are the new value with one word changed and
    more follows ("db-stage-03.lumen.internal port 5433" for "db-stage-07.lumen.internal": the
    update names the host, so the line keeps its port; a newcomer's line lost it, 2026-11-26)."""
    size = len(value)
    if size < 2 or len(old) <= size:
        return old
    changed = sum(a != b for a, b in zip(old[:size], value))
    return old[:size] if changed == 1 else old


def _stem(word: str) -> str:
    """A crude singular / third person: "drinks" -> "drink", "runs" -> "run" (both sides alike)."""
    for end in ("ies", "es", "s"):
        if word.endswith(end) and len(word) > len(end) + 2:
            return word[:-len(end)] + ("y" if end == "ies" else "")
    return word


def _no_longer(clause: str, old: list[str]) -> Update | None:
    """`S no longer VERB O` against `S VERB ... O` (or a like of O), `S is no longer X` against `S is X`;
    or `S dropped O` (_dropped)."""
    return _no_longer_verb(clause, old) or _dropped(clause, old)


def _no_longer_verb(clause: str, old: list[str]) -> Update | None:
    m = NO_LONGER.match(clause)
    if m is None:
        return None
    subject = _strip(m["s"].split())
    rest = m["rest"].split()
    if not rest or NEGATED.search(" ".join(old)):
        return None  # an old line that already says "not" is no taste to undo
    verb, thing = rest[0], rest[1:]
    if m["s"].split()[-1:] in (["is"], ["are"], ["m"]) or verb in ("a", "an"):
        verb, thing = "", rest
    wanted = _content(thing) - {"anymore"}
    if not wanted:
        return None
    at = next((i for i, w in enumerate(old) if w not in SELF and
               ((verb and (_stem(w) == _stem(verb) or w in LIKES)) or
                (not verb and w in ("is", "are", "m")))), None)
    if at is None or not _same_words([w for w in _strip(old[:at]) if w not in OFTEN], subject):
        return None
    if not wanted <= {_stem(w) for w in old[at + 1:]} | set(old[at + 1:]):
        return None
    return Update((), ())


# a thing let go of, said with no verb of using it: "We dropped Tailwind", "I gave up on vim keybindings, back
# to the default keys" (an agent developer's run, 2026-11-27), up to what is said instead
DROPPED = re.compile(r"^(?P<s>i|we|[a-z][\w'-]*(?: [a-z][\w'-]*)?) (?:have |has |just |finally )*(?:dropped|ditched|"
                     r"gave up on|gave up|have given up on|moved off|moved away from) (?P<o>.+?)"
                     r"(?: (?:back to|in favour of|in favor of|for|now|since|because|instead)\b.*)?$")


def _dropped(clause: str, old: list[str]) -> Update | None:
    """`S dropped O` against a line that starts with S and says every word of O after it: the
    line's thing is let go of, so the new fact takes its place."""
    m = DROPPED.match(clause)
    if m is None or NEGATED.search(" ".join(old)):
        return None
    said = m["s"].split()
    wanted = {_stem(w) for w in _content(m["o"].split())}
    if not wanted or old[:len(said)] != said:
        return None
    return Update((), ()) if wanted <= {_stem(w) for w in old[len(said):]} else None


def _named_elsewhere(old_raw: str, allowed: set[str]) -> bool:
    """Whether the old line names a subject the update does not (a capitalised word outside A, B);
    a name's other parts right after it are the same one ("Omar Haddad, college roommate, now lives
    in Lisbon" for "Omar moved from Lisbon to Berlin": a newcomer's stood beside it, 2026-11-27)."""
    said = re.findall(r"\b[A-Z][\w-]*(?:[ \t]+[A-Z][\w-]*)*", old_raw)
    whole = {w.lower() for run in said if run.split()[0].lower() in allowed for w in run.split()}
    return bool(_names(old_raw) - allowed - whole)


def _from_to(clause: str, old: list[str], old_raw: str, renamed: bool = False) -> Update | None:
    """`switched ... from A to B` / `replaced A with B` against a line holding A and no other name
    (`renamed`: whatever other names it holds: a thing renamed is renamed wherever it is named)."""
    m = FROM_TO.match(clause) or REPLACED.match(clause)
    if m is None:
        return _replaced_by(clause, old, old_raw) or _takes_over(clause, old, old_raw)
    a, b = _content(m["a"].split()), _content(m["b"].split())
    topic = _content(m["s"].split() + (m["mid"].split() if "mid" in m.groupdict() else []))
    have = set(old)
    if not a or not a <= have or b <= have and not _over(old, a, b) or not topic <= have:
        return None
    if not renamed and _named_elsewhere(old_raw, a | b | topic):
        return None
    if b <= have:  # the preference turned round: the new fact takes the whole line's place
        return Update((), ())
    return Update(tuple(w for w in m["a"].split() if w not in STOP),
                  tuple(w for w in m["b"].split() if w not in STOP))


def renames(new: str) -> bool:
    """Whether a fact says a thing was replaced or renamed ("Redis was replaced by Valkey"), or a
    person took over from another ("Sofia Marino takes over from Marcus as product manager")."""
    return any(REPLACED_BY.match(clause) or TAKES_OVER.match(clause) for clause in clauses(new))


def _takes_over(clause: str, old: list[str], old_raw: str) -> Update | None:
    """`B takes over from A as ROLE` against a line that names A (first name, with the surname the
    line gives) and says every word of the role: A's name becomes B's ("Marcus Lee is our product
    manager" -> "Sofia Marino is our product manager")."""
    m = TAKES_OVER.match(clause)
    if m is None:
        return None
    a, b = m["a"].split(), [w for w in m["b"].split() if w not in LINK]
    role = {long_form(_stem(w)) for w in _content(m["role"].split())}
    if not a or not b or not role or not role <= {long_form(_stem(w)) for w in old} or a[0] not in old:
        return None
    said = re.search(rf"(?i:\b{re.escape(a[0])})((?: [A-Z][\w'’-]+)*)", old_raw)
    size = max(len(a), 1 + len(said.group(1).split())) if said else len(a)
    at = old.index(a[0])
    return Update(tuple(old[at:at + size]), tuple(b))


def _replaced_by(clause: str, old: list[str], old_raw: str) -> Update | None:
    """`A was replaced by B` / `A was renamed to B` against a line holding A: of A, the last words
    the line holds in a row, as many as B has ("the sentry project harbor api" renamed to "harbor
    backend" changes "harbor api" in "Errors go to the Sentry project harbor-api")."""
    m = REPLACED_BY.match(clause)
    if m is None:
        return None
    a = [w for w in m["a"].split() if w not in LINK]
    b = [w for w in m["b"].split() if w not in LINK]
    if not a or not b:
        return None
    for size in range(min(len(a), max(len(b), 1)), 0, -1):
        said = a[-size:]
        if any(old[i:i + size] == said for i in range(len(old) - size + 1)) and _content(said):
            # the rest of A is its topic, which the line must say too (and may name: "the Sentry project")
            return _from_to(f"{' '.join(a[:-size])} switched from {' '.join(said)} to {' '.join(b)}", old, old_raw,
                            " renamed " in f" {clause} ")
    return None


LIVES = frozenset("live lives living stay stays staying".split())  # where one lives now: not "lived in Paris"
AFTER_PLACE = frozenset("with since for because until and but so now".split())
MOVED_HOME = re.compile(r"^(?P<s>.+?) (?:have |has |just )*(?:moved|relocated) (?:house |home )?(?:to|into) (?P<v>.+)$")
# a place, as written: a name or a house number ("14 Harbor Street", "the Bay Area"), not "weekly sprints"
# or "the data team" (a review: both replaced where we live)
PLACE = re.compile(r"\b(?:moved|relocated)(?: house| home)? (?:to|into) (?:the )?[A-Z0-9]", re.IGNORECASE)


def _moved_home(clause: str, old: list[str], old_raw: str, raw: str) -> Update | None:
    """`S moved to PLACE` against a line that starts with S and says S live(s) in/at a place ("We
    moved to 14 Harbor Street, Alameda" stood beside "We live at 88 Larkspur Lane", a newcomer's)."""
    m = MOVED_HOME.match(clause)
    place = PLACE.search(raw)
    if m is None or place is None or not raw[place.end() - 1].isupper() and not raw[place.end() - 1].isdigit():
        return None
    at = next((i for i, w in enumerate(old[:-1]) if w in LIVES and old[i + 1] in ("in", "at", "on")), None)
    said = m["s"].split()
    subject = _content(said) | (set(said) & SELF)
    if at is None or not subject or not subject <= set(old[:at]):
        return None
    lives = re.search(r"\b(?:live|lives|living|stay|stays|staying)\b", old_raw, re.IGNORECASE)
    # the line is about S, said first ("Sarah's parents live in York" is not where Sarah lives)
    first = re.match(r"\s*([\w-]+)(['’]s\b)?", old_raw)
    if lives is None or first is None or first.group(2) or first.group(1).lower() != said[0] \
            or _named_elsewhere(old_raw[:lives.start()], subject):
        return None  # the place after the verb is the value; a name before it is someone else
    # the place: what the line says before it stays ("Omar Haddad, college roommate"), and after it
    # ("with his two cats")
    value = list(itertools.takewhile(lambda w: w not in AFTER_PLACE, old[at + 2:]))
    return Update(tuple(value), tuple(m["v"].split())) if value else None


def _over(old: list[str], a: set[str], b: set[str]) -> bool:
    """Whether the old line prefers A over B ("I prefer tea over coffee", "tea rather than coffee"):
    switching from A to B turns it round (a newcomer's "I switched from tea to coffee" stood beside
    it, 2026-11-26)."""
    # a like word just before A and the comparison just after it: "tea bags are in the cupboard over the
    # coffee maker" and "I like to keep tea bags on the shelf over the coffee maker" are places (reviews)
    likes = "|".join(sorted(LIKES))
    text = " ".join(old)
    return any(re.search(rf"\b(?:{likes})\s+(?:\w+\s+)?{re.escape(x)}\s+(?:over|rather than|more than|instead of)"
                         rf"\s+(?:\w+\s+)?{re.escape(y)}\b", text) for x in a for y in b)


def _instead(clause: str, old: list[str]) -> Update | None:
    """`... B instead of A` against a line holding A whose other words the update also says."""
    m = INSTEAD.match(clause)
    if m is None:
        return None
    a, left = _content(m["a"].split()), _content(m["left"].split())
    have = _content(old)
    if not a or not a <= have:
        return None
    rest = have - a
    if not rest or not rest <= left:
        return None
    return Update(tuple(w for w in m["a"].split() if w not in STOP and w != "now"), ())


def _marked(clause: str, old: list[str], raw: str, old_raw: str = "") -> Update | None:
    """After "as of X" / "from now on": `S is V` or `S VERB V` with the old line's subject and verb."""
    ws = clause.split()
    for k in range(1, len(ws) - 1):
        if ws[k] in ("is", "are"):
            found = _now(ws[:k], None, ws[k + 1:], old, raw, old_raw)
        else:
            found = _now(ws[:k], ws[k], ws[k + 1:], old, raw, old_raw)
        if found is not None:
            return found
    return None


def _redone(clause: str, old: list[str], raw: str, old_raw: str) -> Update | None:
    """`S was rewritten in V` against `S is written in V'` (the verb done again replaces the value
    of doing it), and `we moved the S to V` against `S is at V'`."""
    m = REDONE.match(clause)
    if m is not None:
        return _now(m["s"].split(), m["verb"], m["v"].split(), old, raw, old_raw, again=True)
    m = MOVED_THING.match(clause)
    return _now(m["s"].split(), None, m["v"].split(), old, raw, old_raw) if m is not None else None


def switch(new: str, old: str) -> Update | None:
    """How the fact `new`, an update said in time, changes the line `old` (None: it does not)."""
    old_words = words(old)
    if not old_words:
        return None
    old_raw = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?", "", old)
    for part in clauses(new):
        clause, marked = core(part)
        found = _no_longer(clause, old_words) or _from_to(clause, old_words, old_raw) or \
            _instead(clause, old_words) or _moved_home(clause, old_words, old_raw, new)
        if found is None:
            now = NOW.match(clause)
            if now is not None:
                found = _now(now["s"].split(), None, now["v"].split(), old_words, new, old_raw)
        if found is None:
            verb = NOW_VERB.match(clause)
            if verb is not None:
                found = _now(verb["s"].split(), verb["verb"], verb["v"].split(), old_words, new, old_raw)
        if found is None:
            found = _redone(clause, old_words, new, old_raw)
        if found is None and marked:
            found = _marked(clause, old_words, new, old_raw)
        if found is not None:
            return found
    return None
