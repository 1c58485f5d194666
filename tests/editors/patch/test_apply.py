"""Apply on real files: all-or-nothing, fault injection, hash re-check, backup journal, undo, safety."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from gramwright import fsutil
from gramwright.editors import apply_patch, check_patch, history, parse_patch, preview_diff, undo
from gramwright.editors.patch.undo import UndoRefused
from gramwright.errors import PatchError


def sr(path: str, old: str, new: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n"


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".gramwright" not in p.parts
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_bytes(b"alpha\nbeta")  # no final newline
    (tmp_path / "c.sh").write_bytes(b"#!/bin/sh\necho hi\n")
    os.chmod(tmp_path / "c.sh", 0o755)
    return tmp_path


THREE = (
    sr("a.txt", "two\r\n", "TWO\r\n")
    + sr("sub/b.txt", "beta\n", "BETA\n")
    + sr("c.sh", "echo hi\n", "echo ho\n")
)


def test_three_files_apply_keeping_newlines_and_modes_then_undo_is_byte_identical(project: Path) -> None:
    before = tree(project)
    result = apply_patch(parse_patch(THREE), project)
    assert result.applied and result.entry_id
    assert (project / "a.txt").read_bytes() == b"one\r\nTWO\r\nthree\r\n"
    assert (project / "sub" / "b.txt").read_bytes() == b"alpha\nBETA\n"  # the edit ends the file
    assert stat.S_IMODE((project / "c.sh").stat().st_mode) == 0o755
    assert [e.id for e in history(project)] == [result.entry_id]
    undone = undo(project)
    assert undone.entry.status == "undone"
    assert tree(project) == before
    assert stat.S_IMODE((project / "c.sh").stat().st_mode) == 0o755
    with pytest.raises(PatchError, match="nothing to undo"):
        undo(project)


def test_a_write_failing_on_the_third_file_leaves_all_three_as_before(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tree(project)
    real_replace = os.replace

    def failing_replace(src: str, dst: str) -> None:
        if str(dst).endswith("c.sh"):
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(fsutil.os, "replace", failing_replace)
    with pytest.raises(PatchError) as info:
        apply_patch(parse_patch(THREE), project)
    assert info.value.where == "c.sh"
    assert "the 2 file(s) written before it were restored" in info.value.message
    monkeypatch.undo()
    assert tree(project) == before
    leftovers = [p.name for p in project.rglob("*.tmp")]
    assert leftovers == []
    assert history(project) == []  # the entry of an apply that changed nothing is dropped


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to name a descriptor's file")
def test_a_fault_inside_the_writer_halfway_through_leaves_no_temp_file(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tree(project)
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        # the second file's temporary file is written but not yet synced: fail there
        if ".b.txt." in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(5, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(fsutil.os, "fsync", fsync)
    with pytest.raises(PatchError, match=r"the 1 file\(s\) written before it were restored") as info:
        apply_patch(parse_patch(THREE), project)
    monkeypatch.undo()
    assert info.value.where == "sub/b.txt"
    assert tree(project) == before
    assert not list(project.rglob("*.tmp"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_directory_fails_the_write_and_restores_the_others(project: Path) -> None:
    before = tree(project)
    os.chmod(project / "sub", 0o555)
    try:
        with pytest.raises(PatchError, match="writing failed"):
            apply_patch(parse_patch(THREE), project)
    finally:
        os.chmod(project / "sub", 0o755)
    assert tree(project) == before


def test_a_file_changed_after_the_check_is_refused_and_nothing_is_written(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gramwright.editors.patch import apply as apply_module

    real_check = apply_module.check_patch

    def check_then_edit(*args: object, **kw: object) -> object:
        report = real_check(*args, **kw)  # type: ignore[arg-type]
        (project / "c.sh").write_bytes(b"#!/bin/sh\necho hi\n# edited meanwhile\n")
        return report

    monkeypatch.setattr(apply_module, "check_patch", check_then_edit)
    with pytest.raises(PatchError, match="changed or was removed since the check") as info:
        apply_patch(parse_patch(THREE), project)
    assert info.value.where == "c.sh"
    assert (project / "a.txt").read_bytes() == b"one\r\ntwo\r\nthree\r\n"


def test_an_ambiguous_edit_writes_nothing_and_lists_every_candidate(project: Path) -> None:
    (project / "d.txt").write_text("x\ny\nx\ny\nx\n")
    before = tree(project)
    result = apply_patch(parse_patch(sr("a.txt", "one\r\n", "1\r\n") + sr("d.txt", "x\n", "z\n")), project)
    assert not result.applied
    (bad,) = [e for e in result.report.edits if e.status == "failed"]
    assert bad.location.candidates == (1, 3, 5)
    assert tree(project) == before


def test_undo_refuses_naming_the_file_changed_after_the_apply(project: Path) -> None:
    result = apply_patch(parse_patch(THREE), project)
    (project / "sub" / "b.txt").write_text("someone else\n")
    with pytest.raises(UndoRefused) as info:
        undo(project, result.entry_id)
    assert info.value.where == "sub/b.txt"
    assert (project / "a.txt").read_bytes() == b"one\r\nTWO\r\nthree\r\n"  # nothing restored


@pytest.mark.parametrize(
    "path",
    ["../x.txt", "/etc/passwd", "sub/../../x", ".git/config", ".gramwright/journal/x"],
)
def test_path_escapes_are_refused_before_anything_is_read(project: Path, path: str) -> None:
    (project / "bin.dat").write_bytes(b"\0\1\2")  # would be refused as binary if it were read first
    text = sr("bin.dat", "a\n", "b\n") + sr(path, "root:x\n", "owned\n")
    with pytest.raises(PatchError) as info:
        check_patch(parse_patch(text), project)
    assert info.value.where == "patch line 8"
    assert repr(path.lstrip("/")) in info.value.message or repr(path) in info.value.message


def test_a_symlink_out_of_the_root_is_refused(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.txt").write_text("s\n")
    (project / "link").symlink_to(outside)
    with pytest.raises(PatchError, match="outside the root through a symlink"):
        check_patch(parse_patch(sr("link/secret.txt", "s\n", "x\n")), project)
    assert (outside / "secret.txt").read_text() == "s\n"


def test_binary_and_undecodable_files_are_refused_in_one_line(project: Path) -> None:
    (project / "bin.dat").write_bytes(b"a\n\0b\n")
    (project / "latin.txt").write_bytes(b"caf\xe9\n")
    report = check_patch(parse_patch(sr("bin.dat", "a\n", "b\n") + sr("latin.txt", "x\n", "y\n")), project)
    assert not report.ok
    messages = [p.one_line() for p in report.problems]
    assert any("binary file" in m and "\n" not in m for m in messages)
    assert any("not valid utf-8" in m and "latin.txt:1" in m for m in messages)


def test_utf8_bom_and_utf16_files_keep_their_encoding(project: Path) -> None:
    (project / "bom.txt").write_bytes(b"\xef\xbb\xbfhello\n")
    (project / "wide.txt").write_bytes("\ufeffhi\r\n".encode("utf-16-le"))
    apply_patch(parse_patch(sr("bom.txt", "hello\n", "bye\n") + sr("wide.txt", "hi\r\n", "ho\r\n")), project)
    assert (project / "bom.txt").read_bytes() == b"\xef\xbb\xbfbye\n"
    assert (project / "wide.txt").read_bytes() == "\ufeffho\r\n".encode("utf-16-le")


def test_create_delete_rename_and_their_undo(project: Path) -> None:
    before = tree(project)
    text = (
        "*** Begin Patch\n*** Add File: new/dir/n.txt\n+fresh\n*** Delete File: c.sh\n"
        "*** Update File: a.txt\n*** Move to: moved/a.txt\n-two\r\n+2\r\n*** End Patch\n"
    )
    report = check_patch(parse_patch(text), project)
    assert sorted(f.action for f in report.files) == ["create", "delete", "rename"]
    diff = preview_diff(report)
    assert "deleted file mode 100755" in diff and "rename from a.txt\nrename to moved/a.txt" in diff
    result = apply_patch(parse_patch(text), project)
    assert result.applied
    assert (project / "new" / "dir" / "n.txt").read_text() == "fresh\n"
    assert not (project / "c.sh").exists() and not (project / "a.txt").exists()
    assert (project / "moved" / "a.txt").read_bytes() == b"one\r\n2\r\nthree\r\n"
    undo(project)
    assert tree(project) == before


def test_creating_an_existing_file_and_editing_a_missing_one_are_reported(project: Path) -> None:
    text = "a.txt\n<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE\n" + sr("nope.txt", "x\n", "y\n")
    report = check_patch(parse_patch(text), project)
    assert not report.ok
    assert "already exists" in report.problems[0].message
    assert [e.location.reason for e in report.edits] == ["no-file"]


def test_a_patch_that_changes_nothing_writes_nothing_and_is_not_applied(project: Path) -> None:
    result = apply_patch(parse_patch(sr("a.txt", "two\r\n", "two\r\n")), project)
    assert not result.applied and result.entry_id is None and result.written == ()
    assert [p.reason for p in result.report.problems] == ["no-change"]


def test_a_removal_that_empties_a_directory_removes_it_and_undo_brings_it_back(project: Path) -> None:
    before = tree(project)
    result = apply_patch(parse_patch("*** Begin Patch\n*** Delete File: sub/b.txt\n*** End Patch\n"), project)
    assert result.applied and not (project / "sub").exists()  # as git apply leaves it
    undo(project)
    assert tree(project) == before
