"""A cache of the loaded corpus, so that a command which needs the whole corpus
(`topoconf run --id X`, `show`, `list`) does not expand and check every file
again when nothing changed.

One file per corpus location (the corpus folder and the extra folders as
given), in the user's cache folder: `$TOPOCONF_CACHE_DIR`, else
`$XDG_CACHE_HOME/topology-conformance`, else `~/.cache/topology-conformance`.
`TOPOCONF_NO_CACHE=1` (or `topoconf --no-cache`) turns it off.

The file holds the key it was built for: a sha256 over everything that decides
what loading gives (every fixture, block, vocabulary and schema file as the
corpus hash reads them, the extra folders, the harness's own Python source,
the suite version and the Python version). A file whose key differs is stale
and silently rebuilt; a file that is damaged (wrong header, a payload whose
digest does not match, a payload that does not unpickle to a corpus) is never
used: the corpus is loaded from its files, a warning names the file, and the
file is rewritten.

Writers never leave a half-written file: each writes a temporary file in the
same folder and renames it over the old one. Where the platform has `flock`,
one process builds while the others wait for it and then read its file.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from conformance.corpus.files import corpus_hash
from conformance.corpus.records import Corpus

ENV_DIR = "TOPOCONF_CACHE_DIR"
ENV_OFF = "TOPOCONF_NO_CACHE"
MAGIC = b"topoconf corpus cache 1\n"
# Files of other corpus locations kept besides the one written (oldest used go first).
KEEP = 8


def folder() -> Path | None:
    """Where cache files go, or None when the cache is turned off."""
    if os.environ.get(ENV_OFF, "").strip() not in ("", "0"):
        return None
    given = os.environ.get(ENV_DIR, "").strip()
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".cache") / "topology-conformance"


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """A digest of the harness's Python source and version: a change to a check,
    the loader or a model class makes every cached corpus stale."""
    from conformance import __version__  # noqa: PLC0415 - the package imports the corpus

    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(f"{__version__}\0{sys.version_info[:2]}\0{pickle.HIGHEST_PROTOCOL}\0".encode())
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def location(root: Path, extra: Sequence[Path]) -> str:
    """Names the cache file: the corpus folder and the extra folders as given
    (their names appear in problems and cases) and where they resolve to."""
    parts = [str(root.resolve())] + [f"{Path(e).as_posix()}\0{Path(e).resolve()}" for e in extra]
    return hashlib.sha256("\0\0".join(parts).encode()).hexdigest()[:32]


def key(root: Path, extra: Sequence[Path]) -> str:
    resolved = [Path(e).resolve() for e in extra]
    content = corpus_hash(root.resolve(), resolved)
    return hashlib.sha256(f"{code_version()}\0{location(root, extra)}\0{content}".encode()).hexdigest()


def _warn(message: str) -> None:
    print(f"topoconf: warning: {message}", file=sys.stderr)


class Damaged(Exception):
    """A cache file that must not be used."""


def decode(data: bytes, wanted: str) -> Corpus | None:
    """The corpus in a cache file's bytes; None when it was built for another key
    (stale); Damaged when the file is not a sound cache file."""
    if not data.startswith(MAGIC):
        raise Damaged("it does not start with the cache header")
    lines = data[len(MAGIC):].split(b"\n", 2)
    if len(lines) != 3:
        raise Damaged("its header is cut short")
    built_for, payload_digest, payload = lines
    if built_for != wanted.encode():
        return None
    if hashlib.sha256(payload).hexdigest().encode() != payload_digest:
        raise Damaged("its content does not match the digest in its header")
    # Unpickling builds many small objects; the cyclic collector would run over
    # them again and again (several times slower) and finds nothing to free.
    enabled = gc.isenabled()
    gc.disable()
    try:
        corpus = pickle.loads(payload)
    except Exception as exc:  # noqa: BLE001 - whatever a damaged payload raises, it is not used
        raise Damaged(f"its content does not unpickle ({type(exc).__name__})") from None
    finally:
        if enabled:
            gc.enable()
    if not isinstance(corpus, Corpus):
        raise Damaged(f"it holds a {type(corpus).__name__}, not a corpus")
    return corpus


def encode(corpus: Corpus, wanted: str) -> bytes:
    payload = pickle.dumps(corpus, protocol=pickle.HIGHEST_PROTOCOL)
    return MAGIC + wanted.encode() + b"\n" + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload


def read(path: Path, wanted: str) -> Corpus | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        _warn(f"the corpus cache {path} cannot be read ({exc.strerror}); loading the corpus from its files")
        return None
    try:
        return decode(data, wanted)
    except Damaged as exc:
        _warn(f"the corpus cache {path} is damaged ({exc}); it is not used, and is rebuilt from the corpus files")
        return None


def write(path: Path, corpus: Corpus, wanted: str) -> None:
    """Writes through a temporary file and a rename: a reader sees the old file or
    the new one, never part of one."""
    data = encode(corpus, wanted)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_ino, stat.st_mtime_ns, stat.st_size


def _prune(directory: Path, kept: Path) -> None:
    files = sorted((p for p in directory.glob("corpus-*.pickle") if p != kept),
                   key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[KEEP:]:
        for gone in (old, old.with_suffix(".lock")):
            with contextlib.suppress(OSError):
                gone.unlink()


@contextlib.contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    """One builder at a time for a cache file; without flock, no waiting."""
    try:
        import fcntl  # noqa: PLC0415 - POSIX only
    except ImportError:
        yield
        return
    try:
        lock = open(path.with_suffix(".lock"), "a+b")  # noqa: SIM115 - held across the yield
    except OSError:
        yield
        return
    with lock:
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        except OSError:
            pass
        yield


def load(root: Path, extra: Sequence[Path], build: Callable[[], Corpus]) -> Corpus:
    """The corpus of root and the extra folders: from the cache when its file was
    built for exactly these files and this harness, else built and stored."""
    directory = folder()
    if directory is None:
        return build()
    try:
        wanted = key(root, extra)
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        _warn(f"the corpus cache in {directory} cannot be used ({exc}); loading the corpus from its files")
        return build()
    path = directory / f"corpus-{location(root, extra)}.pickle"
    seen = _identity(path)
    cached = read(path, wanted)
    if cached is not None:
        return cached
    with _exclusive(path):
        # Another process may have written it while this one waited.
        if _identity(path) not in (seen, None):
            cached = read(path, wanted)
            if cached is not None:
                return cached
        corpus = build()
        try:
            write(path, corpus, wanted)
            _prune(directory, path)
        except OSError as exc:
            _warn(f"the corpus cache {path} cannot be written ({exc.strerror or exc}); "
                  f"set {ENV_OFF}=1 to stop using it")
    return corpus
