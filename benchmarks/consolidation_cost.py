"""What a consolidation costs: characters sent to the LLM per session, on LoCoMo.

Each of the four LoCoMo conversations (../shared/bench-data/locomo-dev) is
saved session by session with `git mem session save` (speaker A as the user,
speaker B as the assistant, a shared photo as its caption), into a fresh
notebook, then `git mem consolidate --dry-run` reports the characters each
session's request would carry (the system prompt, the known facts, the
conversation). No LLM runs: the dry run builds exactly what would be sent.
The known facts start empty in a fresh notebook; in use they add at most
consolidate.RELATED_CHARS (3,000) characters a session.

Run:  python benchmarks/consolidation_cost.py
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import common  # noqa: E402
from benchmarks.locomo import DATA, sessions  # noqa: E402


def transcript(when: str, speaker_a: str, turns: list[dict]) -> str:
    lines = []
    for t in turns:
        text = " ".join(t["text"].split())
        if t.get("blip_caption"):
            text += f" [shares a photo: {t['blip_caption']}]"
        role = "user" if t["speaker"] == speaker_a else "assistant"
        lines.append(json.dumps({"role": role, "content": f"{t['speaker']}: {text}", "timestamp": when}))
    return "\n".join(lines) + "\n"


def measure(sample: dict, work: Path, env: dict[str, str]) -> list[int]:
    """Save the conversation's sessions (the domain functions `session save` calls, in this process,
    to spare a hundred process starts), then the real `git mem consolidate --dry-run --json`."""
    from gitmem.agent import session
    from gitmem.gitops.repo import open_notebook

    conv = sample["conversation"]
    path = work / sample["sample_id"]
    path.mkdir()
    common.git_mem(path, "init", "--no-index", env=env)
    nb = open_notebook(path)
    for n, when, turns in sessions(conv):
        raw = transcript(when.isoformat(), conv["speaker_a"], turns)
        session.save(nb, raw, f"{sample['sample_id']}-{n}", "locomo", "jsonl")
    out = common.git_mem(path, "consolidate", "--dry-run", "--json", "--max-sessions", "10000",
                         "--max-chars", "100000000", env=env).stdout
    return [s["chars"] for s in json.loads(out)["sessions"]]


def main() -> None:
    common.parser(__doc__).parse_args()
    env = {**common.setup(), "GITMEM_HOOKS": "0"}
    data = json.loads(DATA.read_text())
    per_session: list[int] = []
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for sample in data:
            chars = measure(sample, Path(tmp), env)
            per_session += chars
            rows.append([sample["sample_id"], len(chars), sum(chars), round(statistics.mean(chars)), max(chars)])
    summary = {"sessions": len(per_session), "total_chars": sum(per_session),
               "mean": round(statistics.mean(per_session)), "median": round(statistics.median(per_session)),
               "min": min(per_session), "max": max(per_session)}
    print(common.table(["conversation", "sessions", "chars", "mean/session", "max"], rows,
                       "characters a consolidation would send (dry run)"))
    print(json.dumps(summary))
    common.save("consolidation_cost", {"per_conversation": rows, "summary": summary, "machine": common.machine()})


if __name__ == "__main__":
    main()
