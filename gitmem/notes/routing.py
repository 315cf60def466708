"""Where `remember` puts a fact when it is not told: its category, from the wording.

The rules are tried in this order, and the first category with a matching
rule wins (the order settles a fact that fits two: "Need to buy a present
for Jake's birthday" is shopping, "Reply to Tom's email" a todo, "Jamal from
legal must review any contract over $50k" a rule, not a todo):

0. todo: a line marked as a task ("TODO: ...", "Task - ...");
1. shopping: buying or running out: buy, groceries, shopping list, pick up,
   order new/more, get more, out of / ran out of / running low on, or a
   line that starts with "need" and a thing ("Need printer paper");
2. preference, how to treat the user (please reply/answer/use..., don't use,
   keep my, reply to me, wants answers...);
3. rule: a standing rule or policy: policy, not/never allowed, approval(s) (not a pre-approval),
   sign-off, requires approval/review; an obligation on a whole class (any,
   all, every, each, only, no one ... must/may/has to/gets); "must" with a
   subject that is not the writer ("Visitors must sign in"); always/never/
   don't + a work verb first ("Never deploy on Fridays");
4. todo: an intention anywhere (need to, have to, must, should, remember to,
   don't forget, remind me, make sure, todo, due on/by, not "due on the 1st"), or a line that
   starts with a task verb (call, email, book, renew, pay, follow up, ...);
5. decision: decided, decision:, agreed, chose, settled on, opted for,
   going with, picked ... for, approved;
6. contact, a person's role: account contact, contact for, account
   manager, talk to ... about; what a named person handles, looks after or
   takes care of (not "The API handles 1200 requests"); a named person's job ("Dana Okafor is the tech
   lead of the payments team"; not "Project Falcon is the service I lead");
7. infrastructure: servers, databases, hosts, ports, clusters, cloud,
   CI, deploys, backups, DNS, VPN, IP addresses, internal host names, URLs;
8. contact: a person's details: a phone number (7 to 15 digits, not a date,
   an IP address or a year-serial like 2026-0042), an e-mail address, a
   @handle, a street address, where someone lives, a birthday, anniversary
   or birth date, how to reach someone;
9. preference: what I or we prefer, like, love, hate, enjoy or don't want;
   likes and dislikes (prefers, likes, loves, hates, favourite,
   allergic, can't stand, enjoys, rather, vegetarian, doesn't eat, no longer
   drinks, I drink/eat/take ..., not a dose: "I take 50mg of ..."), and a person who always/never does something
   ("I always take the window seat"; "The server never restarts" is not one);
10. event: a meeting that comes back (a standup every weekday, a weekly
   sync), and a date or time with something that happens then (a meeting,
   launch, release, offsite, flight; is on, takes place, ships on, moved to,
   rescheduled to);
11. fact: anything else.

Measured on benchmarks/sets/routing.json by benchmarks/routing.py (tuned and
held-out parts; docs/benchmarks.md), with floors in tests/test_routing.py.
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
NOT_AN_OBJECT = r"(is|are|was|were|has|had|boils|runs|works|means|takes|starts|needs|comes|goes|lasts|costs|meets)"
HOW_TO_TREAT = _rule("preference", "how to treat the user",
                     r"\b(please (reply|answer|respond|write|use|keep|don'?t|always|never)|don'?t use|reply in|"
                     r"answer in|keep my|wants? (answers|replies|responses|reports|updates)|"
                     r"(reply|answer|write|talk) to me)\b|^\s*use\b")

WORK_VERBS = (r"(deploy|push|merge|commit|release|ship|share|run|restart|delete|drop|store|log|expose|approve|"
              r"sign|send|hard-?code|test|force-?push|rebase|get|use|check in|leave|copy|email|upload)")
DATE = (r"(\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|"
        r"nov(ember)?|dec(ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|"
        r"next (week|month)|every other \w+)\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}(st|nd|rd|th)\b|"
        r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2} ?(am|pm)\b)")
INFRA = (r"\b(servers?|databases?|db|clusters?|hosts?|hostname|bastion|ports?|instances?|vms?|vpn|dns|cdn|"
         r"buckets?|kubernetes|k8s|docker|containers?|registry|ci|pipelines?|deploy(s|ed|ment|ments)?|staging|"
         r"production|prod|replicas?|redis|postgres(ql)?|mysql|mongodb|kafka|nginx|load balancer|terraform|"
         r"grafana|prometheus|sentry|loki|elasticsearch|backups?|cron|nas|router|ssh|api|endpoints?|"
         r"repository|repo|branch|ram|cpus?|github actions|jenkins|cloudflare|aws|gcp|azure|lambda|queues?|"
         r"webhooks?|tls|certificates?|eu-west-\d|us-east-\d)\b|\b[\w-]+\.internal\b|s3://|https?://|"
         r"\b\d{1,3}(\.\d{1,3}){3}\b|[a-z]:\d{2,5}\b")

NTH = r"\d+(st|nd|rd|th)\b"
MONTHLY = rf"on the {NTH}|every|each|monthly|weekly|yearly|annually|quarterly"

TASK_MARK = r"^\s*(todo|to-do|task)(\s*:|\s+[-–]\s)"  # not "Task-force meeting ..."


def unmarked(text: str) -> str:
    """A task without the word that marked it: its checkbox says it is one ("- [ ] TODO: write ..."
    said it twice, a newcomer found)."""
    return re.sub(TASK_MARK + r"\s*", "", text, count=1, flags=re.IGNORECASE) or text


RULES: tuple[Rule, ...] = (
    # said as a task, whatever it names ("TODO: write the data retention policy" went to the rules, a newcomer)
    _rule("todo", "marked as a task", TASK_MARK),
    _rule("shopping", "buying", r"\b(buy|buying|groceries|grocery|shopping|pick up|order (new|more|some|a|an))\b"),
    _rule("shopping", "running out", r"\b(get more|we'?re out of|(ran|run|running|are) (out|low) (of|on))\b|"
                                     r"^\s*(out of|low on)\b"),  # "Out of dishwasher tablets" (a newcomer's)
    _rule("shopping", "needing a thing", r"^\s*(i |we )?need (some |more |a |an |new )*(?!to\b)[a-z]"),
    HOW_TO_TREAT,  # before the task verbs: "Please reply in short bullet points" is not a task
    _rule("rule", "a policy", r"\b(polic(y|ies)|(not|never) (allowed|permitted)|forbidden|prohibited|"
                              r"(?<!pre-)approvals?|sign-?off|"
                              r"requires? (an? |the )?(\w+ )?(approval|review|sign-?off|permission|consent))\b"),
    _rule("rule", "an obligation on a class",
          r"\b(any|all|every|each|only|no one|nobody)\b.*\b(must|may|has to|have to|gets|get|go|goes)\b|"
          r"\b(must|may|has to|have to)\b.*\b(any|all|every|each)\b"),
    _rule("rule", "must, said of others", r"^(?!\s*(i|we|you|must|please)\b)(?!.*\b(by|before) (mon|tues|wednes|"
                                          r"thurs|fri|satur|sun)day\b).*\b(must|mustn'?t|shall)\b"),
    _rule("rule", "always or never, as an order", rf"^\s*(always|never|do not|don'?t)\s+{WORK_VERBS}\b"),
    # "is due on the 1st" / "due monthly": a date that comes back is a fact, not a task (a newcomer's rent line)
    _rule("todo", "an intention", r"\b(need to|needs to|have to|has to|must|should|got to|remember to|"
                                  r"don'?t forget|do not forget|remind me|make sure|todo|to-do|"
                                  rf"(is|are) due(?! ({MONTHLY}))|due (on(?! the {NTH})|by|next|this))\b"),
    # ... not a noun it starts ("Book club meets the first Monday" was a todo, a newcomer's)
    _rule("todo", "a task verb first",
          rf"^\s*(please\s+)?({TASK_VERBS})\b(?! me\b)(?!\s+(?:[a-z]+\s+)?{NOT_AN_OBJECT}\b)"),
    _rule("decision", "a decision", r"\b(decided|decision:|^decision\b|agreed|chose|settled on|opted (for|to)|"
                                    r"going with|went with|picked \w+ (for|as)|approved)\b"),
    _rule("contact", "a person's role", r"\b((account|main|point of) contact|contact (for|person)|"
                                        r"account manager|talk to \w+( \w+)? about|relationship with)\b"),
    # ... and what a named person handles, not a thing ("The API handles 1200 requests per second" went to the
    # contacts, an agent developer's run)
    Rule("contact", "what a person handles", re.compile(r"^\s*[A-Z][a-z'-]+(?: [A-Z][a-z'-]+)?(?: (?:from|at|of) "
                                                         r"[A-Z][\w&-]*(?: [A-Z][\w&-]*)?)? (?:handles|"
                                                         r"looks after|takes care of)\b")),
    # "Dana Okafor is the tech lead of the payments team": a named person and their job
    Rule("contact", "a person's job", re.compile(
        # not a thing someone has that job for ("Project Falcon is the service I lead")
        r"^\s*[A-Z][a-z]+(?: [A-Z][a-z'-]+)+ (?:is|was|has been) (?:the|our|their|a|an|my) "
        r"(?:(?!(?i:i|we|you|they|he|she)\b)[\w-]+ ){0,3}?"
        r"(?i:lead|manager|owner|engineer|designer|director|officer|architect|admin|administrator|"
        r"developer|analyst|accountant|lawyer|counsel|recruiter|founder|ceo|cto|cfo|coo|vp|president|chair|"
        r"coordinator|consultant|contractor|advisor|adviser|mentor|sponsor|champion|approver|reviewer)\b")),
    # "I prefer tabs over spaces in this repo" is how the person likes to work, whatever it names
    _rule("preference", "I or we prefer", r"^\s*(I|we)\s+(really\s+|much\s+|usually\s+)?(prefer|like|love|hate|"
                                          r"dislike|can'?t stand|enjoy)\b|"
                                          # "I don't want meetings before 10am" (an agent developer's run)
                                          r"^\s*I\s+(do not|don'?t|never)\s+want\b"),
    _rule("infrastructure", "servers, databases, hosts", INFRA),
    _rule("contact", "a phone number", PHONE),
    _rule("contact", "an e-mail address or handle", r"[\w.+-]+@[\w-]+\.[\w.]+|(?<![\w@])@\w{2,}"),
    _rule("contact", "a person's details", r"\b(phone|mobile(?! app)|cell|e-?mail|address|lives (at|in|on)|"
                                           r"birthday|born (on|in)|anniversary(?! party)|reach(ed)? (at|on)|"
                                           r"contact for)\b|\b\d+ [A-Z][a-z]+ (Street|St|Road|Rd|Lane|Avenue|Ave|"
                                           r"Way|Close|Drive)\b"),
    _rule("preference", "a like or dislike",
          r"(?<!looks )(?<!seems )(?<!feels )(?<!just )\b(prefers?|preferred|likes?|loves?|hates?|dislikes?|"
          r"favou?rite|allergic|can'?t stand|enjoys?|rather|vegetarian|vegan|"
          r"(doesn'?t|don'?t|never) (eat|drink|like)s?|(no longer|stopped|quit) (drink|eat|like|us|tak|smok)\w*|"
          # a dose a few words on is no taste: "I take atorvastatin 20mg every night" (a newcomer's)
          # (a drink's "330 ml can" is a taste still: a review)
          r"(I|we) (now )?(drink|eat|take)(?! \d+ ?(mg|ml|g|mcg|µg)\b)"
          r"(?!(?: [\w-]+){1,2} \d+(?:\.\d+)? ?(mg|mcg|µg)\b)|"
          r"I (work|sleep|focus|think) best)\b"),
    # a person, not a thing: "I always ...", "Sarah never ...", not "The server never ..."
    Rule("preference", "always or never", re.compile(r"^\s*(?i:always|never)\b|\b(I|[Ww]e|[Hh]e|[Ss]he|[Tt]hey|"
                                                      r"[Uu]ser|[A-Z][a-z]+)\s+(?i:always|never)\b")),
    # "The team standup is at 9:30 every weekday": a meeting that comes back, and when
    _rule("event", "a meeting that comes back",
          # the meeting is the subject, and it is at a time or on a day: "The sync job runs every day at
          # 2am" and "Retro notes are updated weekly" are no meetings
          # ... a team's by its name too ("The Falcon team standup": a newcomer's went to the facts)
          # one way to read each word (a capital word that is one of the others is that one): a word two
          # options could read doubled the time with each, and 26 "Our " took 40 s (a review)
          r"^\s*(the |our |my |team |weekly |daily |monthly |fortnightly |"
          r"(?!(?:the|our|my|team|weekly|daily|monthly|fortnightly) )(?-i:[A-Z][\w-]*) )*"
          r"(standup|stand-up|sync|retro|"
          r"retrospective|planning meeting|1:1|one-on-one|all-hands|town hall)( meeting)?( with \w+( \w+)?)? "
          r"(is|are|happens|takes place|runs)\b.*(\b\d{1,2}(:\d{2})? ?(am|pm)?\b|\b(every|on) \w+day|"
          r"\bdaily\b|\bweekly\b|\b(monday|tuesday|wednesday|thursday|friday)s?\b)"),
    _rule("event", "a date and what happens then",  # anchored: the look-ahead runs once, not at every offset
          rf"(?s)^(?=.*{DATE}).*\b(ships? on|launch(es)?|release|offsite|conference|webinar|meetup|hackathon|party|"
          r"wedding|concert|festival|tournament|agm|summit|workshop|ceremony|appointment|meeting|review|demo|talk|"
          # a doctor's or dentist's: "Next dentist cleaning is Tuesday April 8" went to the facts (a newcomer's)
          r"cleaning|check-?up|physical|vaccination|"
          r"flight|departs|leaves at|arrives|closed on|opens|takes place|happen(s|ed)|rescheduled|postponed|"
          r"moved to|is on|starts on|begins on|runs from|held on|will be held|code freeze)\b"),
)


ROUTE_CHARS = 1000  # the start of a text decides; keeps every pattern's cost linear in a bounded input


def explain(text: str) -> tuple[str, str | None]:
    """(category, the rule that chose it); None for the default, fact."""
    text = text[:ROUTE_CHARS]
    for rule in RULES:
        if rule.pattern.search(text):
            return rule.category, rule.name
    return "fact", None


def classify(text: str) -> str:
    """The category `remember` routes a fact to when not told (see the module docstring)."""
    return explain(text)[0]
