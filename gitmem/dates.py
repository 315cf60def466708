"""Dates and periods as people type them: 24h, 7d, 2w, 2026-02-20, 2026-02-20T14:30.

A period (N followed by m, h, d or w: minutes, hours, days, weeks) counts
back from now. A bare date is a whole day in local time: as a lower bound it
means the start of the day, as an upper bound (or for --at) its end, so
`--from 2026-02-20 --to 2026-02-20` is that one day. A date with a time is
that instant (local time unless it carries an offset). `today`, `yesterday`,
`tomorrow`, `now` and a weekday (the latest one, today included; "last monday"
one before today) are understood too, and periods as said: "3 days ago",
"3.days.ago" (git's spelling), "-7d", "last week" (7 days), "last month" (30).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from .errors import UsageError

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
UNITS = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}
# "7d", "-7d" (as git's --since=-7d is not, but people type it), "3 days ago", "3.days.ago" (git's spelling)
PERIOD = re.compile(r"^-?(\d{1,6})\s*([mhdw])$")
SAID = re.compile(r"^(\d{1,6})[\s.]*(min|mins|minute|minutes|hour|hours|hr|hrs|day|days|week|weeks)(?:[\s.]+ago)?$")
LAST = {"last week": "1w", "last month": "30d", "last year": "52w", "a week ago": "1w", "a month ago": "30d",
        "a year ago": "52w"}
DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
NAME_DAY = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?:[-_T ]?(\d{2}):?(\d{2}))?(?!\d)")
HINT = ("use a period like 30m, 24h, 7d, 2w, '3 days ago', 'last week', a date like 2026-02-20, or a time like "
        "2026-02-20T14:30")


@dataclass(frozen=True)
class Window:
    """An inclusive range of instants (POSIX seconds); None = unbounded."""

    start: float | None = None
    end: float | None = None

    def __bool__(self) -> bool:
        return self.start is not None or self.end is not None

    def describe(self) -> dict[str, str | None]:
        return {"from": iso(self.start) if self.start is not None else None,
                "to": iso(self.end) if self.end is not None else None}


def now() -> datetime:
    return datetime.now().astimezone()


def is_date(value: str) -> bool:
    """Whether `value` reads as a date or a period (rather than a revision)."""
    try:
        parse(value)
        return True
    except UsageError:
        return False


def parse(value: str, current: datetime | None = None, end_of_day: bool = False) -> datetime:
    """An instant from a period, a day, or a date and time; UsageError if none
    (or if it lies outside what a timestamp can hold: 999999w, 9999-12-31)."""
    try:
        moment = _parse(value, current, end_of_day)
        moment.timestamp()
        return moment
    except (OverflowError, OSError) as exc:
        raise UsageError(f"{value!r} is too far from today to be a date gitmem can use", HINT) from exc


def _parse(value: str, current: datetime | None, end_of_day: bool) -> datetime:
    text = " ".join(value.strip().lower().split())
    current = current or now()
    said = SAID.match(text)
    text = LAST.get(text, f"{said.group(1)}{said.group(2)[0]}" if said else text)
    match = PERIOD.match(text)
    if match:
        return current - int(match.group(1)) * UNITS[match.group(2)]
    if text == "now":
        return current
    if text in ("today", "yesterday", "tomorrow"):
        day = current.date() + timedelta(days={"yesterday": -1, "today": 0, "tomorrow": 1}[text])
        return _day_bound(day, end_of_day)
    if text.removeprefix("last ") in WEEKDAYS:  # the latest such day, today included ("--since monday")
        back = (current.weekday() - WEEKDAYS.index(text.removeprefix("last "))) % 7
        return _day_bound(current.date() - timedelta(days=back or (7 if text.startswith("last ") else 0)),
                          end_of_day)
    if DAY.match(text):
        try:
            return _day_bound(date.fromisoformat(text), end_of_day)
        except ValueError as exc:
            raise UsageError(f"{value!r} is not a valid date ({exc})", HINT) from exc
    if re.match(r"^\d{4}-\d{2}-\d{2}[t ]\d", text):
        try:
            moment = datetime.fromisoformat(value.strip().replace("z", "+00:00").replace("Z", "+00:00"))
        except ValueError as exc:
            raise UsageError(f"{value!r} is not a valid date and time ({exc})", HINT) from exc
        return moment if moment.tzinfo else moment.astimezone()
    raise UsageError(f"cannot read {value!r} as a date or a period", HINT)


def _day_bound(day: date, end_of_day: bool) -> datetime:
    start = datetime.combine(day, time()).astimezone()
    if not end_of_day:
        return start
    # The last whole second of the day (commit times are whole seconds), DST-safe.
    following = datetime.combine(day + timedelta(days=1), time()).astimezone()
    return following - timedelta(seconds=1)


def window(since: str | None, until: str | None, current: datetime | None = None) -> Window:
    """The range from `since` (start of a bare day) to `until` (end of a bare day)."""
    current = current or now()
    start = parse(since, current).timestamp() if since else None
    end = parse(until, current, end_of_day=True).timestamp() if until else None
    if start is not None and end is not None and start > end:
        raise UsageError(f"the range starts ({since}) after it ends ({until})", "swap them")
    return Window(start, end)


def name_span(path: str) -> tuple[float, float] | None:
    """The time a file's name gives it: a day (daily/2026-02-20.md) or a
    minute (sessions/2026-02-20-1430.md); None if the name has no date."""
    name = path.rsplit("/", 1)[-1]
    match = NAME_DAY.search(name)
    if not match:
        return None
    year, month, day, hour, minute = (int(g) if g else None for g in match.groups())
    try:
        # NAME_DAY's year, month and day groups are not optional: never None here
        start = _day_bound(date(year, month, day), False)  # type: ignore[arg-type]
        if hour is not None and hour < 24 and minute is not None and minute < 60:
            moment = datetime.combine(start.date(), time(hour, minute)).astimezone()
            return moment.timestamp(), moment.timestamp() + 59
        return start.timestamp(), _day_bound(start.date(), True).timestamp()
    except (ValueError, OverflowError, OSError):  # 9999-12-31 has no next day to end at
        return None


def iso(ts: float) -> str:
    """A timestamp as local ISO 8601 with its UTC offset."""
    return datetime.fromtimestamp(ts).astimezone().isoformat(timespec="seconds")


def date_range(since: str | None, start: str | None, end: str | None,
               day: str | None) -> tuple[str | None, str | None]:
    """--since / --from / --to / --date as one (since, until) pair."""
    if since and start:
        raise UsageError("--since and --from say the same thing", "give one of them")
    if day and (since or start or end):
        raise UsageError("--date is one whole day; it does not combine with --since, --from or --to",
                         "give --date alone, or --from and --to")
    return (day or since or start), (day or end)
