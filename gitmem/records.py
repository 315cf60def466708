"""Domain results as JSON: the one conversion the CLI's --json, the MCP tools and the web API share."""

from __future__ import annotations

import json
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


def to_json(data: Any) -> str:
    return json.dumps(jsonable(data), ensure_ascii=False, indent=2)
