"""Dates and periods: properties over generated values."""

from __future__ import annotations

import time
from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem import dates
from gitmem.errors import UsageError

NOW = datetime(2026, 2, 20, 14, 30, 15, tzinfo=timezone.utc)
UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 604800}


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


@given(st.integers(0, 99999), st.sampled_from("mhdw"), st.sampled_from(["", " "]))
def test_a_period_counts_back_from_now(n: int, unit: str, space: str) -> None:
    assert dates.parse(f"{n}{space}{unit}", NOW) == NOW - timedelta(seconds=n * UNITS[unit])
    assert dates.parse(f"{n}{unit.upper()}", NOW) == NOW - timedelta(seconds=n * UNITS[unit])


@given(st.dates(date(1970, 1, 2), date(9998, 12, 30)))
def test_a_day_is_its_start_or_its_end(day: date) -> None:
    start = dates.parse(day.isoformat(), NOW)
    end = dates.parse(day.isoformat(), NOW, end_of_day=True)
    assert start.date() == day == end.date() and (start.hour, start.minute, start.second) == (0, 0, 0)
    assert end - start == timedelta(hours=23, minutes=59, seconds=59)
    w = dates.window(day.isoformat(), day.isoformat(), NOW)
    assert w.start == start.timestamp() and w.end == end.timestamp()


OFFSETS = st.integers(-23 * 60, 23 * 60).map(lambda m: timezone(timedelta(minutes=m)))


@given(st.datetimes(datetime(1971, 1, 1), datetime(9998, 1, 1), timezones=OFFSETS))
def test_a_date_and_time_round_trips(moment: datetime) -> None:
    moment = moment.replace(microsecond=0)
    assert dates.parse(moment.isoformat(), NOW) == moment
    assert dates.parse(moment.replace(tzinfo=None).isoformat(sep=" "), NOW).replace(tzinfo=None) == \
        moment.replace(tzinfo=None)


@given(st.text())
def test_any_text_is_a_moment_or_one_clear_error(text: str) -> None:
    try:
        assert isinstance(dates.parse(text, NOW), datetime)
    except UsageError as exc:
        assert "period like" in (exc.hint or "")
        assert dates.is_date(text) is False


def test_words() -> None:
    assert dates.parse("now", NOW) == NOW
    assert dates.parse("today", NOW) == datetime(2026, 2, 20).astimezone()
    assert dates.parse("Yesterday", NOW, end_of_day=True) == datetime(2026, 2, 19, 23, 59, 59).astimezone()
    # periods as people say them (a newcomer's "last week" and "-3d" were refused, 2026-11-27)
    assert dates.parse("tomorrow", NOW) == datetime(2026, 2, 21).astimezone()
    for said, period in (("-7d", "7d"), ("3 days ago", "3d"), ("3.days.ago", "3d"), ("last week", "1w"),
                         ("Last  Month", "30d"), ("2 hours", "2h"), ("1 week ago", "1w")):
        assert dates.parse(said, NOW) == dates.parse(period, NOW), said
    # a weekday: the latest one, today included (NOW is a Friday; a newcomer's "--since monday" was refused)
    assert dates.parse("Monday", NOW) == datetime(2026, 2, 16).astimezone()
    assert dates.parse("friday", NOW) == datetime(2026, 2, 20).astimezone()
    assert dates.parse("last friday", NOW) == datetime(2026, 2, 13).astimezone()
    for bad in ("2026-02-30", "2026-13-01", "7y", "--7d", "HEAD~3", "2026-02-20T25:00", "last decade", "3 ago"):
        with pytest.raises(UsageError):
            dates.parse(bad, NOW)
    with pytest.raises(UsageError, match="starts"):
        dates.window("2026-02-21", "2026-02-20", NOW)
    assert not dates.window(None, None, NOW)


@given(st.dates(date(1970, 1, 2), date(9998, 12, 30)), st.integers(0, 23), st.integers(0, 59),
       st.sampled_from(["daily/{d}.md", "memory/{d}.md", "x/notes-{d}.md"]))
def test_file_names_give_a_day_or_a_minute(day: date, hour: int, minute: int, pattern: str) -> None:
    start = datetime.combine(day, datetime.min.time()).astimezone().timestamp()
    assert dates.name_span(pattern.format(d=day.isoformat())) == (start, start + 86399)
    session = f"sessions/{day.isoformat()}-{hour:02d}{minute:02d}.md"
    moment = start + hour * 3600 + minute * 60
    assert dates.name_span(session) == (moment, moment + 59)


@given(st.text(alphabet=st.characters(blacklist_categories=["Nd"])))
def test_names_without_digits_have_no_date(name: str) -> None:
    assert dates.name_span(name) is None


@pytest.mark.parametrize("value", ["999999w", "999999d", "9999-12-31", "0001-01-01"])
def test_dates_beyond_a_timestamp_are_usage_errors(value: str) -> None:
    with pytest.raises(UsageError):
        dates.parse(value, end_of_day=True).timestamp()


def test_a_file_named_for_the_last_day_has_no_span() -> None:
    assert dates.name_span("daily/9999-12-31.md") is None


def test_a_since_after_now_says_so(mem) -> None:
    """A newcomer (2026-11-27): `--since 2027-05-01` printed "no results" and nothing more."""
    mem.write("knowledge/k.md", "# K\n\n- kiwi today\n")
    mem.commit("k")
    out = mem.json("recall", "--since", "tomorrow", "kiwi")
    assert out["results"] == [] and out["notes"] == [
        "--since tomorrow is after now: only a page dated later (a daily log named for a later day) could match"]
    assert mem.json("recall", "--since", "last week", "kiwi")["results"]


def test_far_dates_through_the_cli(mem) -> None:
    mem.write("daily/9999-12-31.md", "# Daily Log — 9999-12-31\n\n## 10:00 — far future kiwi\n")
    mem.write("knowledge/k.md", "kiwi today\n")
    mem.commit("far")
    # a file date no timestamp can hold falls back to the commit date, never a crash
    found = mem.json("recall", "--mode", "keyword", "--since", "1d", "kiwi")["results"]
    assert sorted(r["path"] for r in found) == ["daily/9999-12-31.md", "knowledge/k.md"]
    for args in (["recall", "--since", "999999w", "kiwi"], ["recall", "--at", "9999-12-31", "kiwi"],
                 ["log", "--until", "9999-12-31"], ["context", "--date", "0001-01-01"]):
        result = mem(*args, code=None)
        assert result.exit_code in (0, 1, 2) and "Traceback" not in result.output, (args, result.output)
        assert result.exit_code == 0 or result.stderr.startswith("error: ")
