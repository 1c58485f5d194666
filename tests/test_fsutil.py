"""Atomic writes: the content arrives whole, and the file gets the mode a plain write would give."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from gramwright.fsutil import atomic_write_bytes, atomic_write_text, current_umask


@pytest.fixture
def umask_027() -> Iterator[int]:
    old = os.umask(0o027)
    try:
        yield 0o027
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_current_umask_reads_without_changing(umask_027: int) -> None:
    assert current_umask() == umask_027
    assert current_umask() == umask_027


def test_a_new_file_gets_the_umask_mode_not_mkstemps_0600(tmp_path: Path, umask_027: int) -> None:
    target = tmp_path / "out.gbnf"
    atomic_write_text(target, 'root ::= "a"\n')
    assert target.read_text() == 'root ::= "a"\n'
    assert _mode(target) == 0o666 & ~umask_027 == 0o640
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    assert _mode(target) == _mode(plain)  # what `open(path, "w")` gives


def test_an_existing_file_keeps_its_mode(tmp_path: Path, umask_027: int) -> None:
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    os.chmod(target, 0o604)
    atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"new" and _mode(target) == 0o604


def test_a_failed_write_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "folder"
    target.mkdir()
    with pytest.raises(IsADirectoryError):
        atomic_write_bytes(target, b"x")
    assert [p.name for p in tmp_path.iterdir()] == ["folder"] and not any(target.iterdir())
