"""`git mem init`: make a folder or repository into a notebook (idempotent)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import config
from ..errors import NotARepo, UsageError
from ..gitops import commits, hookrun, hooks, merge, vectorref
from ..gitops.git import Git
from ..gitops.identity import FALLBACK_HINT, FALLBACK_IDENTITY
from ..gitops.lock import atomic_write
from ..gitops.plumbing import EMPTY_TREE
from ..index.maintenance import HISTORY_AT_INIT, IndexSummary, Progress, catch_up
from ..notebook import Notebook
from ..paths import confine
from . import change, instructions

FLAT_MEMORY = "# Memory\n\nCurated long-term memory. Daily notes live in memory/YYYY-MM-DD.md.\n"


@dataclass
class InitResult:
    repository: str
    notebook: str
    layout: str
    created: list[str]
    commit: str | None
    index: IndexSummary | None
    identity: str | None = None
    notes: list[str] = field(default_factory=list)
    hooks: hooks.HooksChange | None = None


def init(path: Path, layout: str | None = None, folder: str | None = None, build_index: bool = True,
         progress: Progress | None = None, agent_instructions: bool = False,
         install_hooks: bool = True, model_dir: Path | None = None) -> InitResult:
    """Create the notebook at `path` (a git repo is made if there is none);
    with `agent_instructions`, also the agent's instructions page if it is missing;
    with `model_dir`, remember that local model in this clone's git config (mem.modelDir)."""
    if layout is not None and layout not in config.LAYOUTS:
        raise UsageError(f"unknown layout {layout!r}", f"use one of {', '.join(config.LAYOUTS)}")
    # first: a wrong model folder is refused before anything is made (a newcomer's refused init left a .git)
    model = model_folder(model_dir) if model_dir is not None else None
    path.mkdir(parents=True, exist_ok=True)
    try:
        git = Git.find(path)
    except NotARepo as exc:
        if (path / ".git").exists() or "bare" in exc.message:
            raise
        git = Git.init(path)
    assert git.top is not None
    notes: list[str] = []
    if model is not None:
        notes.append(remember_model(git, model))
    created: list[str] = []
    settings = _settings(git.top, layout, folder, notes, created)
    nb = Notebook(git, settings)
    nb.check_root()  # before anything is made: the folder may come from a pulled .gitmem.toml
    if agent_instructions:
        nb.page(instructions.PATH)  # ... and before anything is made, a symlink on the page's way is refused
    nb.root.mkdir(parents=True, exist_ok=True)
    if settings.layout == "flat" and not nb.file("MEMORY.md").exists():
        atomic_write(nb.file("MEMORY.md"), FLAT_MEMORY.encode())
        created.append(nb.repo_path("MEMORY.md"))
    if agent_instructions and instructions.write(nb):
        created.append(nb.repo_path(instructions.PATH))
    attributes = nb.repo_path(".gitattributes")
    theirs = bool(git.status(attributes))  # a person's uncommitted changes to it, staged or not
    if merge.write_attributes(nb.root, settings):
        if not theirs:
            created.append(attributes)
        else:  # committed whole, "mem: init notebook" held the person's changes too (an attack run)
            notes.append(f"{attributes} has uncommitted changes of yours, so gitmem's lines were added to it but "
                         f"not committed; commit them with yours when you are ready: git commit {attributes}")
    commit, identity = None, None
    notes.extend(_cloned(nb, git.head()))
    created = [path for path in created if git.status(path)]  # a file rewritten as HEAD has it is no change
    if created:
        commit, fallback = commits.commit(git, created, "mem: init notebook")
        identity = FALLBACK_IDENTITY if fallback else None
        if fallback and change.first_note(nb):
            notes.append(FALLBACK_HINT)
    merge.configure(git)
    installed = _hooks(nb, notes) if install_hooks else None
    notes.extend(_share_refs(git))
    summary = catch_up(nb, allow_download=True, progress=progress, history_later=HISTORY_AT_INIT) \
        if build_index else None
    if summary:
        notes.extend(summary.notes)
    return InitResult(str(git.top), str(nb.root), settings.layout, created, commit, summary, identity, notes,
                      installed)


def _cloned(nb: Notebook, head: str | None) -> list[str]:
    """The lines of a notebook that came with a clone (its history before gitmem's init) that the
    write guard would refuse, and page names that read as orders, named as a pull's are: only a
    merge's hooks looked, and a fresh `git clone` + `git mem init` said nothing of them (a git user's
    run). At most the hooks' number of pages and bytes."""
    from . import pulled

    if head is None:
        return []
    found = pulled.findings(nb, EMPTY_TREE, head, pulled.HOOK_PAGES)
    return [f"in this clone: {line.removeprefix('pulled ')}" for line in found
            if line.startswith(("pulled text ", "pulled page "))]


def _share_refs(git: Git) -> list[str]:
    """Let plain `git fetch` bring gitmem's refs (the shared embeddings) into each remote's
    remote-tracking namespace, and fetch them once now, so that the index built next reuses the
    vectors another clone computed (docs/git.md). A remote that cannot be reached is a note."""
    notes = []
    for remote in vectorref.configure(git):
        failed = vectorref.fetch(git, remote)
        if failed:
            notes.append(f"could not fetch gitmem's refs from {remote} ({failed}); embeddings are computed here")
    return notes


def model_folder(model_dir: Path) -> Path:
    """The local model's folder, whole; refused when it holds no model."""
    folder = model_dir.expanduser().resolve()
    if not (folder / "tokenizer.json").is_file() or not any(folder.glob("*.onnx")):
        raise UsageError(f"no embedding model in {folder} (a folder with tokenizer.json and an .onnx file)",
                         "name the folder that holds the model's model.onnx and tokenizer.json, "
                         "e.g. git mem init --model-dir ~/models/all-MiniLM-L6-v2-onnx-int8")
    return folder


def remember_model(git: Git, model_dir: Path) -> str:
    """Keep the local model's folder in this clone's git config, so later shells need no
    GITMEM_MODEL_DIR (which, when set, still wins). A folder with no model is refused."""
    folder = model_folder(model_dir)
    git.config_set(config.MODEL_DIR_KEY, str(folder))
    return f"model: {folder} kept in git config {config.MODEL_DIR_KEY}; later shells need no {config.MODEL_DIR_ENV}"


def _hooks(nb: Notebook, notes: list[str]) -> hooks.HooksChange | None:
    """Install the git hooks unless this machine turned them off; a refusal is a note, not a failure."""
    off = hookrun.switched_off(nb.git)
    if off:
        notes.append(f"git hooks not installed ({off}); the index still catches up whenever it is read")
        return None
    try:
        change = hooks.install(nb)
    except hooks.HooksRefused as exc:
        notes.append(exc.line())
        return None
    notes.extend(change.notes)
    return change


def _settings(top: Path, layout: str | None, folder: str | None, notes: list[str],
              created: list[str]) -> config.Settings:
    file = top / config.CONFIG_FILE
    if file.is_file():
        settings = config.load(top)
        if (layout and layout != settings.layout) or (folder and confine(folder) != settings.path):
            notes.append(f"already a notebook ({config.CONFIG_FILE}); edit that file to change its layout or folder")
        return settings
    path = confine(folder) if folder and folder.strip("/.") else "."
    root = top if path == "." else top / path
    chosen = layout or ("flat" if (root / "MEMORY.md").exists() else "folders")
    settings = config.Settings(path=path, layout=chosen)
    atomic_write(file, config.render(settings).encode())
    created.append(config.CONFIG_FILE)
    return settings
