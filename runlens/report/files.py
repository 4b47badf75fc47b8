"""Write report files safely (standard library only).

* ``safe_path`` joins path parts under a root and refuses anything that would land outside it.
* ``write_atomic`` replaces a file atomically: a reader, or a crash at any moment, sees either the old
  content or the new, never a half-written file. Text is encoded UTF-8 and written byte for byte (newlines
  exactly as given, no translation). A replaced file keeps its permission bits; a new one gets
  ``0o666`` minus the umask, like ``open()`` would give it (not the temp file's ``0o600``).
* ``remove_partial_files`` removes the temporary files of writes a stopped process left (``.<name>.*.tmp``).
* ``write_if_changed`` does the same but leaves a file that already holds exactly these bytes untouched.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path, PureWindowsPath


def _read_umask() -> int:
    mask = os.umask(0)  # the umask can only be read by setting it; done once, at import
    os.umask(mask)
    return mask


_NEW_FILE_MODE = 0o666 & ~_read_umask()


def safe_path(root: Path, *parts: str) -> Path:
    """Return the resolved ``root/part/...``, raising ``ValueError`` unless it lies inside ``root.resolve()``.

    Each part must be a single plain name: empty, ``.``, ``..``, absolute parts, drive prefixes, NUL and
    ``/`` or ``\\`` separators are rejected outright; symlinks leading out of ``root`` are caught by resolving.
    """
    for part in parts:
        if (
            not isinstance(part, str)
            or part in ("", ".", "..")
            or any(bad in part for bad in ("/", "\\", "\0"))
            or os.path.isabs(part)
            or PureWindowsPath(part).drive
        ):
            raise ValueError(f"unsafe path part: {part!r}")
    base = Path(root).resolve()
    target = base.joinpath(*parts).resolve()
    if not target.is_relative_to(base):
        raise ValueError(f"path escapes {base}: {target}")
    return target


def _encode(data: str | bytes) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8")
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data)
    raise TypeError(f"expected str or bytes, got {type(data).__name__}")


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable; best effort (not every platform can open a directory)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _replace(path: Path, payload: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = _NEW_FILE_MODE
    tmp = tempfile.NamedTemporaryFile(delete=False, dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with tmp:
            tmp.write(payload)
            tmp.flush()
            os.chmod(tmp.name, mode)
            os.fsync(tmp.fileno())
        os.replace(tmp.name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp.name)
        raise
    _fsync_dir(path.parent)


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, fsync, ``os.replace``).

    Parent folders are created. On any exception the temp file is removed and the exception re-raised;
    ``path`` keeps its old content (or stays absent).
    """
    payload = _encode(data)
    _replace(Path(path), payload)


def write_if_changed(path: Path, data: str | bytes) -> bool:
    """Like ``write_atomic``, but return ``False`` without writing when ``path`` already holds exactly
    these bytes (its mtime is then preserved); return ``True`` after writing."""
    path, payload = Path(path), _encode(data)
    try:
        if path.stat().st_size == len(payload) and path.read_bytes() == payload:
            return False
    except OSError:
        pass  # missing or unreadable: write it (and let the write report any real problem)
    _replace(path, payload)
    return True


def remove_stale_pages(out_dir: Path, current: set[str], is_page_file: Callable[[str], bool]) -> list[Path]:
    """Remove the page folders under out_dir that are no longer current: a folder whose name is not
    in `current` and that holds only files a profile writes (`is_page_file`, the page among them), so
    nothing a user put there is ever removed. Returns the folders removed."""
    removed = []
    if not out_dir.is_dir():
        return removed
    for folder in sorted(out_dir.iterdir()):
        if folder.name in current or not folder.is_dir() or folder.is_symlink():
            continue
        names = {entry.name for entry in folder.iterdir()}
        if not names or not all(map(is_page_file, names)) or not any(name.endswith(".md") for name in names):
            continue
        for name in names:
            (folder / name).unlink()
        folder.rmdir()
        removed.append(folder)
    return removed


def remove_unwritten(folder: Path, written: set[str], is_page_file: Callable[[str], bool]) -> None:
    """Remove the files a profile may write (is_page_file) that this rendering did not write into
    folder: a chart the collection no longer has."""
    if not folder.is_dir():
        return
    for entry in folder.iterdir():
        if entry.name not in written and is_page_file(entry.name):
            with contextlib.suppress(FileNotFoundError):
                entry.unlink()


def remove_partial_files(root: Path) -> None:
    """The temporary files of atomic writes that never finished, below root."""
    for partial in Path(root).rglob(".*.tmp"):
        with contextlib.suppress(OSError):
            partial.unlink()
