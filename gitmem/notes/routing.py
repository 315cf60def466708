"""Where `remember` puts a fact when it is not told: its category, from the wording.

The rules are tried in this order, and the first category with a matching
rule wins (the order settles a fact that fits two: "Need to buy a present
for Jake's birthday" is shopping, "Reply to Tom's email" a todo):

1. shopping: buying or running out: buy, groceries, shopping list, pick up,
   order new/more, get more, out of / ran out of / running low on, or a
   line that starts with "need" and a thing ("Need printer paper");
2. todo: an intention anywhere (need to, have to, must, should, remember to,
   don't forget, remind me, make sure, todo, due on/by), or a line that
   starts with a task verb (call, email, book, renew, pay, follow up, ...);
3. contact: a person's details: a phone number (7 to 15 digits, not a date
   or a year-serial like 2026-0042), an e-mail address, a @handle, an
   address, where someone lives, a birthday, anniversary or birth date,
   how to reach someone;
4. preference: likes and dislikes (prefers, likes, loves, hates, favourite,
   allergic, can't stand, enjoys, rather, vegetarian, doesn't eat), how to
   treat the user (please reply/answer/use..., don't use, keep my, wants
   answers...), and a person who always/never does something ("I always
   take the window seat"; "The server never restarts" is not one);
5. fact: anything else.

Measured on tests/data/routing.tsv (119 hand-labelled memories, 2026-11-23):
see docs/commands.md for the figure, and tests/test_routing.py for the floor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    category: str
    name: str  # what the rule looks for, as the docs and `explain` say it
    pattern: re.Pattern[str]


def _rule(category: str, name: str, pattern: str) -> Rule:
    return Rule(category, name, re.compile(pattern, re.IGNORECASE))


TASK_VERBS = ("call|ring|phone|e-?mail|text|message|reply|respond|write|send|submit|file|book|schedule|arrange|"
              "organi[sz]e|renew|cancel|pay|return|sign|fix|repair|finish|complete|prepare|update|check|review|"
              "clean|tidy|wash|follow up|chase|ask|tell|invite|confirm|register|apply|print|post|back up|install|"
              "upgrade|move|get|make|take|bring|drop off|collect|visit|meet|plan|try|read|watch|practi[cs]e|study|"
              "look into|sort out|set up|water|feed|walk|clear|change|replace|order|reserve|remind|"
              "sort|tidy up|charge|refill|empty|defrost|vacuum|hoover|mow")
# a phone number: 7-15 digits with separators, not a date (2026-03-14), a time (10:00) or a year-serial (2026-0042)
PHONE = (r"(?<![\w-])(?!(?:19|20)\d\d-\d)(?!\d{4}-\d{2}-\d{2}\b)\+?\(?\d[\d ().-]{5,}\d(?![\w-])")

# "Water boils at 100 degrees": a noun that a verb follows is a subject, not a task
NOT_AN_OBJECT = r"(is|are|was|were|has|had|boils|runs|works|means|takes|starts|needs|comes|goes|lasts|costs)"
HOW_TO_TREAT = _rule("preference", "how to treat the user",
                     r"\b(please (reply|answer|respond|write|use|keep|don'?t|always|never)|don'?t use|reply in|"
                     r"answer in|keep my|wants? (answers|replies|responses|reports|updates))\b|^\s*use\b")

RULES: tuple[Rule, ...] = (
    _rule("shopping", "buying", r"\b(buy|buying|groceries|grocery|shopping|pick up|order (new|more|some|a|an))\b"),
    _rule("shopping", "running out", r"\b(get more|we'?re out of|(ran|run|running|are) (out|low) (of|on))\b"),
    _rule("shopping", "needing a thing", r"^\s*(i |we )?need (some |more |a |an |new )*(?!to\b)[a-z]"),
    HOW_TO_TREAT,  # before the task verbs: "Please reply in short bullet points" is not a task
    _rule("todo", "an intention", r"\b(need to|needs to|have to|has to|must|should|got to|remember to|don'?t forget|"
                                  r"do not forget|remind me|make sure|todo|to-do|(is|are) due|due (on|by|next|this))\b"),
    _rule("todo", "a task verb first", rf"^\s*(please\s+)?({TASK_VERBS})\b(?! me\b)(?!\s+{NOT_AN_OBJECT}\b)"),
    _rule("contact", "a phone number", PHONE),
    _rule("contact", "an e-mail address or handle", r"[\w.+-]+@[\w-]+\.[\w.]+|(?<![\w@])@\w{2,}"),
    _rule("contact", "a person's details", r"\b(phone|mobile|cell|e-?mail|address|lives (at|in|on)|"
                                           r"birthday|born (on|in)|anniversary|reach(ed)? (at|on)|contact for)\b"),
    _rule("preference", "a like or dislike", r"(?<!looks )(?<!seems )(?<!feels )(?<!just )\b(prefers?|preferred|"
                                             r"likes?|loves?|hates?|dislikes?|favou?rite|allergic|can'?t stand|"
                                             r"enjoys?|rather|vegetarian|vegan|(doesn'?t|don'?t|never) (eat|drink|like)s?)\b"),
    # a person, not a thing: "I always ...", "Sarah never ...", not "The server never ..."
    Rule("preference", "always or never", re.compile(r"^\s*(?i:always|never)\b|\b(I|[Ww]e|[Hh]e|[Ss]he|[Tt]hey|"
                                                      r"[Uu]ser|[A-Z][a-z]+)\s+(?i:always|never)\b")),
)


def explain(text: str) -> tuple[str, str | None]:
    """(category, the rule that chose it); None for the default, fact."""
    for rule in RULES:
        if rule.pattern.search(text):
            return rule.category, rule.name
    return "fact", None


def classify(text: str) -> str:
    """The category `remember` routes a fact to when not told (see the module docstring)."""
    return explain(text)[0]
