import pytest

from gitmem import config
from gitmem.errors import UsageError


@pytest.mark.parametrize("path, group", [
    ("daily/2026-01-02.md", "daily"),
    ("memory/2026-01-02.md", "daily"),
    ("sessions/2026-01-02-0930.md", "sessions"),
    ("memory/2026-01-02-0930.md", "sessions"),
    ("memory/2026-01-02-0930-chat42.md", "sessions"),
    ("reference/contacts.md", "notebook"),
    ("MEMORY.md", "notebook"),
    ("memory/notes.md", "notebook"),
    ("knowledge/daily/2026-01-02.md", "notebook"),
])
def test_groups_cover_both_layouts(path: str, group: str) -> None:
    assert config.Settings().group_of(path) == group


@pytest.mark.parametrize("path, note", [
    ("a.md", True), ("deep/er/b.markdown", True), ("c.txt", False), (".gitmem.toml", False),
    (".hidden/x.md", False), ("x/.y.md", False),
])
def test_which_files_are_notes(path: str, note: bool) -> None:
    assert config.Settings().is_note(path) is note


def test_round_trip_of_the_rendered_file(tmp_path) -> None:
    settings = config.Settings(path="memory", layout="flat")
    (tmp_path / config.CONFIG_FILE).write_text(config.render(settings))
    loaded = config.load(tmp_path)
    assert (loaded.path, loaded.layout, loaded.daily, loaded.max_chars) == ("memory", "flat", settings.daily, 1600)
    assert loaded == settings and loaded.fusion == "scores"


def test_missing_file_means_defaults(tmp_path) -> None:
    assert config.load(tmp_path) == config.Settings()


@pytest.mark.parametrize("body, word", [
    ("[notebook\n", "not valid TOML"),
    ('[notebook]\nlayout = "tree"\n', "layout must be one of"),
    ('[notebook]\npath = "../elsewhere"\n', "must be a folder inside the repository"),
    ('[notebook]\npath = "x/../../outside"\n', "must be a folder inside the repository"),
    ('[notebook]\npath = ".git/hooks"\n', "must be a folder inside the repository"),
    ('[notebook]\npath = "/etc"\n', "must be a folder inside the repository"),
    ('[context]\nalways_on = ["../../secret"]\n', "could reach outside the notebook"),
    ('[notebook]\ninclude = ["/etc/*"]\n', "could reach outside the notebook"),
    ("[chunking]\nmax_chars = 0\n", "max_chars must be between"),
    ("[chunking]\nmax_chars = 100\noverlap_chars = 100\n", "overlap_chars must be smaller"),
    ("[search]\nrrf_k = -1\n", "rrf_k must be between"),
    ("[search]\nlimit = 0\n", "limit must be between"),
    ("[search]\nmin_score = 2\n", "min_score must be between"),
    ("[search]\nlimit = \"ten\"\n", "must be a int"),
    ("[groups]\ndaily = 3\n", "list of strings"),
    ('[search]\nfusion = "max"\n', "fusion must be one of"),
])
def test_bad_settings_are_one_clear_error(tmp_path, body: str, word: str) -> None:
    (tmp_path / config.CONFIG_FILE).write_text(body)
    with pytest.raises(UsageError) as err:
        config.load(tmp_path)
    assert word in err.value.message


def test_custom_groups(tmp_path) -> None:
    (tmp_path / config.CONFIG_FILE).write_text('[groups]\ndaily = ["journal/**"]\nsessions = []\n')
    s = config.load(tmp_path)
    assert s.group_of("journal/2026/01.md") == "daily"
    assert s.group_of("sessions/2026-01-02-0930.md") == "notebook"


def test_render_quotes_strings_safely(tmp_path) -> None:
    settings = config.Settings(path='my "notes"')
    (tmp_path / config.CONFIG_FILE).write_text(config.render(settings))
    assert config.load(tmp_path).path == 'my "notes"'
