"""Output paths that are not regular files, as root in a container meets them: a character
device or a pipe is written as a stream and stays what it was, a symlink is followed to its
target, a directory or a socket is refused in one line (exit 2). Every device here is made by the
test in its own folder (``mknod``), never one under /dev."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from gramwright.cli.main import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
CONTACT = str(ROOT / "docs" / "examples" / "contact_grounded.json")


def _device(path: Path, minor: int) -> Path:
    """A character device of the memory driver (major 1): minor 3 is null, 7 is full."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot mknod here: {exc}")
    return path


def _is_chr(path: Path) -> bool:
    return stat.S_ISCHR(os.lstat(path).st_mode)


def _one_error_line(result: Result) -> str:
    stderr = result.stderr
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[tuple[Path, list[bytes]]]:
    """A named pipe with a reader thread collecting what is written to it."""
    path = tmp_path / "pipe"
    os.mkfifo(path)
    got: list[bytes] = []

    def read() -> None:
        with open(path, "rb") as fh:
            got.append(fh.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    yield path, got
    if reader.is_alive():  # nothing opened it for writing: unblock the reader
        with open(path, "wb"):
            pass
    reader.join(5)


def test_compile_to_a_null_device_streams_and_leaves_the_device(tmp_path: Path) -> None:
    null = _device(tmp_path / "null", 3)
    result = runner.invoke(app, ["compile", "json", "-o", str(null)])
    assert result.exit_code == 0, result.output
    assert _is_chr(null)


def test_compile_to_a_full_device_fails_in_one_line_and_never_says_wrote(tmp_path: Path) -> None:
    full = _device(tmp_path / "full", 7)
    result = runner.invoke(app, ["compile", "json", "-o", str(full)])
    assert result.exit_code == 2, result.output
    line = _one_error_line(result)
    assert str(full) in line and "No space left on device" in line
    assert "wrote" not in result.output
    assert _is_chr(full)


def test_compile_to_a_fifo_writes_the_stream_and_keeps_the_pipe(
    fifo: tuple[Path, list[bytes]],
) -> None:
    path, got = fifo
    expected = runner.invoke(app, ["compile", "json"]).stdout
    result = runner.invoke(app, ["compile", "json", "-o", str(path)])
    assert result.exit_code == 0, result.output
    assert stat.S_ISFIFO(os.lstat(path).st_mode)
    for _ in range(50):
        if got:
            break
        threading.Event().wait(0.1)
    assert got == [expected.encode("utf-8")]


def test_compile_through_a_symlink_writes_its_target_and_keeps_the_link(tmp_path: Path) -> None:
    target = tmp_path / "real.gbnf"
    target.write_text("old\n")
    link = tmp_path / "link.gbnf"
    link.symlink_to(target)
    result = runner.invoke(app, ["compile", "json", "-o", str(link)])
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text().startswith("root ::=")
    dangling = tmp_path / "dangling.gbnf"
    dangling.symlink_to(tmp_path / "new.gbnf")
    assert runner.invoke(app, ["compile", "json", "-o", str(dangling)]).exit_code == 0
    assert dangling.is_symlink() and (tmp_path / "new.gbnf").read_text().startswith("root ::=")
    to_device = tmp_path / "to-null"
    to_device.symlink_to(_device(tmp_path / "null", 3))
    assert runner.invoke(app, ["compile", "json", "-o", str(to_device)]).exit_code == 0
    assert to_device.is_symlink() and _is_chr(tmp_path / "null")


def test_a_socket_is_refused_in_one_line_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
        result = runner.invoke(app, ["compile", "json", "-o", str(path)])
    finally:
        sock.close()
    assert result.exit_code == 2
    line = _one_error_line(result)
    assert str(path) in line and "socket" in line
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


def test_our_own_stdout_redirected_to_a_file_is_appended_to_not_replaced(tmp_path: Path) -> None:
    """``-o /dev/stdout > out.txt``, spelled through a link of the test's own to /proc/self/fd/1
    (so a failing run replaces that link, not /dev/stdout)."""
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    out = tmp_path / "out.txt"
    with open(out, "wb") as fh:
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "from gramwright.cli.main import main; main()",
                "compile",
                "json",
                "-o",
                str(link),
            ],
            stdout=fh,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert link.is_symlink()
    assert out.read_text().startswith("root ::=")


def test_lint_baseline_and_export_write_streams(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "string"}}}))
    full = _device(tmp_path / "full", 7)
    null = _device(tmp_path / "null", 3)
    lint = runner.invoke(app, ["lint", str(schema), "--baseline", str(full), "--update-baseline"])
    assert lint.exit_code == 2 and "No space left on device" in _one_error_line(lint)
    exported = runner.invoke(app, ["compile", str(schema), "--target", "gbnf", "-o", str(null)])
    assert exported.exit_code == 0, exported.output
    assert _is_chr(full) and _is_chr(null)


def test_extract_output_and_metrics_to_streams(tmp_path: Path) -> None:
    rows = tmp_path / "in.jsonl"
    rows.write_text(json.dumps({"id": "1", "text": "Maria Lopez, 34, Seville"}) + "\n")
    script = tmp_path / "script.json"
    text = '{"name":"Maria Lopez","city":"Seville","age":34,"email":null}'
    script.write_text(json.dumps([{"match": "Maria", "outputs": [{"text": text}]}]))
    null = _device(tmp_path / "null", 3)
    args = ["extract", "--schema", CONTACT, "--input", str(rows), "--backend", f"scripted:{script}"]
    got = runner.invoke(app, [*args, "--output", str(null), "--metrics", str(null)])
    assert got.exit_code == 0, got.output
    assert _is_chr(null)
    full = _device(tmp_path / "full", 7)
    got = runner.invoke(app, [*args, "--output", str(tmp_path / "out.jsonl"), "--metrics", str(full)])
    assert got.exit_code == 2 and "No space left on device" in _one_error_line(got)
    refused = runner.invoke(app, [*args, "--output", str(tmp_path), "--metrics", str(null)])
    assert refused.exit_code == 2 and "is a directory" in _one_error_line(refused)


def test_output_kind_says_how_each_path_is_written(tmp_path: Path) -> None:
    from gramwright.fsutil import FILE, STREAM, atomic_write_text, output_kind

    new = tmp_path / "new.txt"
    assert output_kind(new) == (FILE, new)
    os.mkfifo(tmp_path / "p")
    assert output_kind(tmp_path / "p") == (STREAM, tmp_path / "p")
    with pytest.raises(OSError, match="is a directory"):
        output_kind(tmp_path)
    with pytest.raises(OSError, match="is a directory"):
        atomic_write_text(tmp_path, "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p"]
