"""Domain results as JSON: the one conversion the CLI's --json, the MCP tools and the web API share."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, is_dataclass
from typing import Any


def jsonable(data: Any) -> Any:
    """A result (a dataclass, or plain data) as plain data; one with its own `record()` (search
    results: compact unless asked for in full) as that record, in every face alike."""
    if callable(getattr(data, "record", None)):
        return data.record()
    if is_dataclass(data) and not isinstance(data, type):
        return asdict(data)
    return data


def json_safe(out: str) -> str:
    """JSON as printed or sent: DEL and C1 controls (which JSON may carry raw, and an 8-bit
    terminal obeys) and bidi controls written as \\u escapes; the values are exactly the same."""
    return re.sub(r"[\x7f-\x9f\u202a-\u202e\u2066-\u2069]", lambda m: f"\\u{ord(m.group(0)):04x}", out)


def to_json(data: Any) -> str:
    return json.dumps(jsonable(data), ensure_ascii=False, indent=2)
