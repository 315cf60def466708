"""Take the screenshots in docs/images/ of `git mem serve` over a small sample notebook.

    python tests/screenshots.py            (needs /usr/bin/chromium and the test extra)

Not a test: it writes the PNGs that docs/web.md shows."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "images"
SHOTS = [("web-home.png", "", (1000, 1150)), ("web-pages.png", "browse", None),
         ("web-page.png", "page/projects/apollo.md", None), ("web-edit.png", "edit/projects/apollo.md", None),
         ("web-search.png", "search?q=when+does+apollo+ship", None),
         ("web-history.png", "history/projects/apollo.md", None), ("web-status.png", "status?model=1", None),
         ("web-facts.png", "facts", None), ("web-phone.png", "search?q=Sarah+phone", (390, 760)),
         ("web-forget-everything.png", "forget/everything", None),
         ("web-tags.png", "tags", None), ("web-settings.png", "settings", None),
         ("web-preferences.png", "facts/preferences", None), ("web-log.png", "log", None),
         ("web-page-phone.png", "page/projects/apollo.md", (390, 760)), ("web-facts-phone.png", "facts", (390, 760)),
         ("web-rename.png", "rename/projects/apollo.md", None)]


def sample(path: Path) -> None:
    def mem(*args: str, stdin: str | None = None) -> None:
        subprocess.run([sys.executable, "-m", "gitmem", *args], cwd=path, check=True, input=stdin, text=True,
                       capture_output=True)

    subprocess.run(["git", "init", "-q", str(path)], check=True)
    mem("init", "--layout", "folders")
    mem("remember", "Sarah Chen's phone is 555-1234")
    mem("remember", "Prefers tea over coffee in the morning")
    mem("write", "projects/apollo.md", "--", "---\ntags: [project]\ntype: plan\n---\n# Apollo\n\n## Status\n\nOn track.\n\n"
                                       "## Decisions\n\n- Ship on Friday\n- [[contacts|Sarah]] owns the launch checklist #launch\n"
                                       "- Risks are in [[apollo-risks]]\n")
    mem("daily", "Called Sarah about the [[apollo|Apollo]] launch timeline")
    (path / "knowledge").mkdir(exist_ok=True)
    (path / "knowledge" / "people.md").write_text(
        "# People\n\n- Bob plays bass in a jazz trio <!-- gitmem: inferred 0.70 from sessions/2026-11-20-1200-ab12cd34.md -->\n"
        "- Carol may move to Lisbon <!-- gitmem: inferred 0.40 from sessions/2026-11-20-1200-ab12cd34.md -->\n"
        "- Alice leads the Apollo design review\n")
    subprocess.run(["git", "add", "-A"], cwd=path, check=True)
    subprocess.run(["git", "commit", "-qm", "people"], cwd=path, check=True)
    mem("write", "projects/apollo.md", "--section", "Status", "--replace", "Slipped a week: ships on the 14th.")
    mem("goal", "add", "Ship Apollo", "--description", "Launch by the 14th, checklist done")
    mem("goal", "update", "ship-apollo", "--progress", "60")
    mem("plan", "update", "1. Finish the Apollo launch checklist\n2. Write the release notes",
        "--reason", "Apollo slipped a week")
    mem("session", "save", "--chat", "42", "--agent", "helper", "-",
        stdin="user: when does apollo ship?\nassistant: On the 14th, after the slip.\n")


def main() -> None:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        notebook = Path(tmp) / "notes"
        notebook.mkdir()
        sample(notebook)
        server = subprocess.Popen([sys.executable, "-m", "gitmem", "serve", "--port", "0"], cwd=notebook,
                                  stdout=subprocess.PIPE, text=True, env=os.environ)
        try:
            url = (server.stdout.readline() if server.stdout else "").split(" at ", 1)[1].strip()
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=os.environ.get("GITMEM_CHROMIUM", "/usr/bin/chromium"))
                for name, path, size in SHOTS:
                    width, height = size or (1000, 720)
                    page = browser.new_page(viewport={"width": width, "height": height})
                    page.goto(url + path)
                    page.screenshot(path=str(OUT / name))
                    page.close()
                    print(OUT / name, (OUT / name).stat().st_size)
                browser.close()
        finally:
            server.terminate()
            server.wait(10)


if __name__ == "__main__":
    main()
