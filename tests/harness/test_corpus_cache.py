"""The corpus cache (conformance/corpus/cache.py): a change to any fixture, block,
vocabulary or schema file makes the cached corpus stale; a damaged file is never
used; a cached corpus is the corpus its files give."""

import shutil
import threading
from pathlib import Path

import pytest

from conformance import corpus as corpus_mod
from conformance import schemas
from conformance.cli import main
from conformance.corpus import cache
from conformance.corpus import loader as loader_mod
from conformance.paths import corpus_dir

HERE = Path(__file__).parent


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV_DIR, str(folder))
    monkeypatch.delenv(cache.ENV_OFF, raising=False)
    return folder


@pytest.fixture
def builds(monkeypatch):
    """How many times the corpus was loaded from its files."""
    count = [0]
    real = loader_mod._load

    def counted(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(loader_mod, "_load", counted)
    return count


@pytest.fixture
def root(tmp_path):
    folder = tmp_path / "fixtures"
    shutil.copytree(HERE / "corpus", folder)
    return folder


def cache_file(folder: Path) -> Path:
    (path,) = folder.glob("corpus-*.pickle")
    return path


def same(a, b) -> bool:
    return (a.cases, a.broken, a.problems, a.features, a.files, a.root, a.extra) == (
        b.cases, b.broken, b.problems, b.features, b.files, b.root, b.extra)


def test_a_second_load_comes_from_the_cache_and_equals_the_first(root, cache_dir, builds):
    first = corpus_mod.load(root)
    second = corpus_mod.load(root)
    assert builds[0] == 1
    assert same(first, second) and first.cases
    assert cache_file(cache_dir).is_file()


def test_a_changed_fixture_is_seen(root, cache_dir, builds):
    corpus_mod.load(root)
    path = root / "kubelet" / "basic.yaml"
    path.write_text(path.read_text().replace("title: the narrowest preferred hint wins",
                                             "title: the narrowest preferred hint is chosen"))
    again = corpus_mod.load(root)
    assert builds[0] == 2
    assert again.by_id["harness.narrowest-preferred"].title == "the narrowest preferred hint is chosen"


def test_a_new_fixture_file_is_seen(root, cache_dir, builds):
    before = corpus_mod.load(root)
    text = (root / "kubelet" / "basic.yaml").read_text().replace("id: harness.", "id: other.")
    (root / "kubelet" / "other.yaml").write_text(text)
    after = corpus_mod.load(root)
    assert builds[0] == 2
    assert len(after.cases) == 2 * len(before.cases)


def test_a_changed_block_is_seen(root, cache_dir, builds):
    corpus_mod.load(root)
    block = root / "blocks" / "kubelet" / "two-nodes.yaml"
    block.write_text(block.read_text().replace("20", "21"))
    again = corpus_mod.load(root)
    assert builds[0] == 2
    assert again.by_id["harness.narrowest-preferred"].input["numa"]["distances"] == [[10, 21], [21, 10]]


def test_a_changed_feature_vocabulary_is_seen(root, cache_dir, builds):
    corpus_mod.load(root)
    vocabulary = root / "features" / "kubelet.yaml"
    text = vocabulary.read_text()
    vocabulary.write_text(text.replace("kubelet.policy.best-effort:", "kubelet.policy.best-effort-renamed:", 1))
    again = corpus_mod.load(root)
    assert builds[0] == 2
    assert "kubelet.policy.best-effort-renamed" in again.features
    assert again.problems and "harness.narrowest-preferred" not in again.by_id


def test_a_changed_schema_is_seen(root, cache_dir, builds, tmp_path, monkeypatch):
    copied = tmp_path / "schemas"
    shutil.copytree(schemas.schemas_dir(), copied)
    monkeypatch.setattr(schemas, "schemas_dir", lambda: copied)
    corpus_mod.load(root)
    corpus_mod.load(root)
    assert builds[0] == 1
    fixture_schema = copied / "fixture.schema.json"
    fixture_schema.write_text(fixture_schema.read_text().replace('"description"', '"description" ', 1) + "\n")
    corpus_mod.load(root)
    assert builds[0] == 2


def test_the_harness_source_is_part_of_the_key(root, cache_dir, monkeypatch):
    before = cache.key(root, [])
    monkeypatch.setattr(cache, "code_version", lambda: "another harness")
    assert cache.key(root, []) != before


def test_an_extra_folder_is_part_of_the_key(root, cache_dir, builds, tmp_path):
    mine = tmp_path / "mine" / "kubelet"
    mine.mkdir(parents=True)
    (mine / "own.yaml").write_text((root / "kubelet" / "basic.yaml").read_text().replace("id: harness.", "id: mine."))
    plain = corpus_mod.load(root)
    layered = corpus_mod.load(root, extra=[mine.parent])
    assert builds[0] == 2
    assert len(layered.cases) == 2 * len(plain.cases)
    (mine / "own.yaml").write_text((mine / "own.yaml").read_text().replace("title: the narrowest", "title: a narrow"))
    assert corpus_mod.load(root, extra=[mine.parent]).by_id["mine.narrowest-preferred"].title.startswith("a narrow")
    assert builds[0] == 3


@pytest.mark.parametrize("damage", ["flip", "truncate", "garbage", "empty", "header-only"])
def test_a_damaged_cache_file_is_never_used_and_is_rebuilt_with_a_warning(root, cache_dir, builds, capsys, damage):
    fresh = corpus_mod.load(root)
    path = cache_file(cache_dir)
    data = path.read_bytes()
    damaged = {
        # A byte of the pickled corpus changed: the digest in the header no longer matches.
        "flip": data[:-100] + bytes([data[-100] ^ 0x01]) + data[-99:],
        "truncate": data[: len(data) // 2],
        "garbage": b"\x80\x05not a cache file at all",
        "empty": b"",
        "header-only": cache.MAGIC,
    }[damage]
    path.write_bytes(damaged)
    capsys.readouterr()
    again = corpus_mod.load(root)
    warned = capsys.readouterr().err
    assert builds[0] == 2
    assert same(again, fresh)
    assert str(path) in warned and "damaged" in warned and "rebuilt" in warned
    # Rewritten sound: the next load is from the cache, without a word.
    corpus_mod.load(root)
    assert builds[0] == 2 and capsys.readouterr().err == ""


def test_a_sound_digest_over_something_that_is_not_a_corpus_is_not_used(root, cache_dir, builds, capsys):
    corpus_mod.load(root)
    path = cache_file(cache_dir)
    wanted = cache.key(root, [])
    path.write_bytes(cache.encode({"cases": []}, wanted))  # type: ignore[arg-type]
    again = corpus_mod.load(root)
    assert builds[0] == 2 and again.cases
    assert "not a corpus" in capsys.readouterr().err


def test_a_cache_file_for_other_files_is_stale_and_rebuilt_quietly(root, cache_dir, builds, capsys):
    corpus_mod.load(root)
    path = cache_file(cache_dir)
    path.write_bytes(cache.encode(corpus_mod.load(root), "0" * 64))
    corpus_mod.load(root)
    assert builds[0] == 2 and capsys.readouterr().err == ""


def test_no_cache_turns_it_off(root, cache_dir, builds, monkeypatch):
    monkeypatch.setenv(cache.ENV_OFF, "1")
    corpus_mod.load(root)
    corpus_mod.load(root)
    assert builds[0] == 2
    assert not cache_dir.exists()


def test_the_cli_option_turns_it_off(root, cache_dir, capsys, monkeypatch):
    # The option works through the environment; monkeypatch puts it back afterwards.
    monkeypatch.setenv(cache.ENV_OFF, "0")
    assert main(["--no-cache", "list", "--corpus", str(root), "--ids"]) == 0
    assert "harness.narrowest-preferred" in capsys.readouterr().out
    assert not cache_dir.exists()


def test_the_default_folder_is_in_the_users_cache_folder(monkeypatch, tmp_path):
    monkeypatch.delenv(cache.ENV_DIR, raising=False)
    monkeypatch.delenv(cache.ENV_OFF, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.folder() == tmp_path / "xdg" / "topology-conformance"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.folder() == tmp_path / "home" / ".cache" / "topology-conformance"


def test_an_unwritable_cache_folder_warns_and_loads_from_the_files(root, tmp_path, monkeypatch, builds, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(cache.ENV_DIR, str(blocker / "cache"))
    monkeypatch.delenv(cache.ENV_OFF, raising=False)
    corpus = corpus_mod.load(root)
    assert corpus.cases and builds[0] == 1
    assert "cannot be used" in capsys.readouterr().err


def test_concurrent_loads_build_once_and_leave_no_temporary_file(root, cache_dir, builds):
    results = []
    threads = [threading.Thread(target=lambda: results.append(corpus_mod.load(root))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert builds[0] == 1
    assert all(same(one, results[0]) for one in results)
    assert sorted(p.suffix for p in cache_dir.iterdir()) == [".lock", ".pickle"]


def test_a_load_of_chosen_files_does_not_use_the_cache(root, cache_dir, builds):
    corpus_mod.load(root, paths=[root / "kubelet" / "basic.yaml"])
    assert not cache_dir.exists() or not list(cache_dir.glob("*.pickle"))


def test_the_bundled_corpus_from_the_cache_equals_the_corpus_its_files_give(cache_dir):
    cached_once = corpus_mod.load()
    from_cache = corpus_mod.load()
    built = loader_mod._load(_bundled(), None, ())
    assert same(from_cache, built) and same(cached_once, built)
    assert len(built.cases) > 1000


def _bundled() -> Path:
    return corpus_dir().resolve()


def test_files_of_other_corpus_folders_are_pruned_oldest_first(tmp_path, cache_dir, monkeypatch):
    monkeypatch.setattr(cache, "KEEP", 1)
    for name in ("one", "two", "three"):
        folder = tmp_path / name / "fixtures"
        shutil.copytree(HERE / "corpus", folder)
        corpus_mod.load(folder)
    kept = sorted(p.stem for p in cache_dir.glob("corpus-*.pickle"))
    assert len(kept) == 2
    assert sorted(p.stem for p in cache_dir.glob("corpus-*.lock")) == kept
    # The newest is the one just written.
    assert f"corpus-{cache.location(tmp_path / 'three' / 'fixtures', [])}" in kept
