"""Unit tests for report.files: path containment and atomic writes."""

from __future__ import annotations

import os
import stat

import pytest

from runlens.report import files
from runlens.report.files import safe_path, write_atomic, write_if_changed


def mode_of(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_safe_path_joins_under_root(tmp_path):
    root = tmp_path / "reports"
    assert safe_path(root, "coll", "index.md") == tmp_path.resolve() / "reports" / "coll" / "index.md"
    assert safe_path(root) == root.resolve()
    assert safe_path(root, "..dots..", "a.b") == root.resolve() / "..dots.." / "a.b"


@pytest.mark.parametrize(
    "parts",
    [
        ("..",),
        ("a", "..", "..", "b"),
        ("/etc",),
        ("a/../../b",),
        ("a/b",),
        ("a\\..\\b",),
        ("",),
        (".",),
        ("a\0b",),
        ("C:evil",),
        (None,),
    ],
)
def test_safe_path_rejects(tmp_path, parts):
    with pytest.raises(ValueError):
        safe_path(tmp_path, *parts)


def test_safe_path_rejects_symlink_out_of_root(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "link").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ValueError):
        safe_path(root, "link", "x.md")


def leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_write_atomic_creates_parents_and_writes_exact_bytes(tmp_path):
    target = tmp_path / "a" / "b" / "report.md"
    write_atomic(target, "café\nline\r\nend")
    assert target.read_bytes() == "café\nline\r\nend".encode()
    write_atomic(target, b"\x00bytes\n")
    assert target.read_bytes() == b"\x00bytes\n"
    write_atomic(target, bytearray(b"ba"))
    assert target.read_bytes() == b"ba"
    assert leftovers(target.parent) == []


def test_write_atomic_modes(tmp_path):
    target = tmp_path / "new.md"
    write_atomic(target, "x")
    assert mode_of(target) == 0o666 & ~current_umask()  # not the temp file's 0o600
    target.chmod(0o640)
    write_atomic(target, "y")
    assert mode_of(target) == 0o640


def test_write_atomic_rejects_other_types(tmp_path):
    with pytest.raises(TypeError):
        write_atomic(tmp_path / "x.md", 42)
    assert not (tmp_path / "x.md").exists()


class BadText(str):
    def encode(self, *args, **kwargs):
        raise RuntimeError("encode failed")


def test_failed_encode_keeps_old_content(tmp_path):
    target = tmp_path / "report.md"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        write_atomic(target, BadText("new"))
    assert target.read_text() == "old"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("failing", ["replace", "fsync"])
def test_failure_midway_keeps_old_content_and_removes_temp(tmp_path, monkeypatch, failing):
    target = tmp_path / "report.md"
    target.write_text("old")
    seen = []

    def boom(*args, **kwargs):
        seen.append(sorted(p.name for p in tmp_path.iterdir()))
        raise OSError("disk on fire")

    monkeypatch.setattr(files.os, failing, boom)
    with pytest.raises(OSError, match="disk on fire"):
        write_atomic(target, "new content")
    monkeypatch.undo()
    assert seen and any(name.startswith(".report.md.") and name.endswith(".tmp") for name in seen[0])
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]


def test_failure_on_new_file_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(files.os, "replace", lambda *a: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        write_atomic(tmp_path / "fresh.md", "data")
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []


def test_write_if_changed(tmp_path, monkeypatch):
    target = tmp_path / "sub" / "report.md"
    assert write_if_changed(target, "one\n") is True
    os.utime(target, (1_000_000, 1_000_000))

    def no_temp_files(*args, **kwargs):
        raise AssertionError("an unchanged file must not be rewritten")

    monkeypatch.setattr(files.tempfile, "NamedTemporaryFile", no_temp_files)
    assert write_if_changed(target, "one\n") is False
    assert write_if_changed(target, b"one\n") is False
    monkeypatch.undo()
    assert target.stat().st_mtime == 1_000_000

    assert write_if_changed(target, "one\r\n") is True
    assert target.read_bytes() == b"one\r\n"
    assert write_if_changed(target, "two\r\n") is True  # same length, different bytes
    assert target.read_bytes() == b"two\r\n"
    assert leftovers(target.parent) == []
