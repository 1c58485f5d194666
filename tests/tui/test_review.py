"""The patch review screen driven by real keystrokes on real files in a real git repository."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from gramwright.tui.app import GramwrightApp
from gramwright.tui.commands import palette_commands
from gramwright.tui.entry import classify
from gramwright.tui.review_screen import ReviewScreen
from gramwright.tui.screens import ConfirmScreen, HelpScreen, PathPrompt
from tests.support.tui import screen_text, wait_for

pytestmark = pytest.mark.anyio
SIZE = (120, 40)

A_PY = b"def total(items):\n    return sum(items)\n\n\nLIMIT = 10\n"
B_TXT = b"alpha\r\nbeta\r\ngamma\r\n"
C_MD = b"# Notes\n\nsome text\nmore text\n"


def sr(path: str, old: str, new: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n"


# edit 2 misremembers b.txt (a line that is not there): it fails
PATCH = (
    sr("a.py", "    return sum(items)\n", "    return sum(items) + 1\n")
    + sr("b.txt", "alpha\nbeta\ngamma\ndelta\n", "ALPHA\n")
    + sr("c.md", "some text\n", "other text\n")
)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_bytes(A_PY)
    (root / "b.txt").write_bytes(B_TXT)
    (root / "c.md").write_bytes(C_MD)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base")
    (tmp_path / "fix.patch").write_text(PATCH, encoding="utf-8")
    return root


def files(root: Path) -> dict[str, bytes]:
    return {name: (root / name).read_bytes() for name in ("a.py", "b.txt", "c.md")}


async def opened(pilot: Pilot[Any]) -> ReviewScreen:
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen.review is not None)
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


async def select(pilot: Pilot[Any], screen: ReviewScreen, index: int) -> None:
    """Move the tree cursor with the arrow keys until edit ``index`` is selected."""
    for _ in range(20):
        node = screen.edit_tree.cursor_node
        if node is not None and node.data == index:
            return
        current = screen.current or 0
        await pilot.press("down" if current <= index else "up")
    raise AssertionError(f"edit {index} not reached")


def app_for(project: Path) -> GramwrightApp:
    return GramwrightApp(None, patch=project.parent / "fix.patch", root=project)


async def test_review_reject_edit_apply_and_undo_byte_for_byte(project: Path) -> None:
    before = files(project)
    async with app_for(project).run_test(size=SIZE) as pilot:
        app = pilot.app
        assert isinstance(app, GramwrightApp)
        screen = await opened(pilot)
        text = screen_text(app)  # type: ignore[arg-type]
        assert "#1 ✓ exact L2" in text and "#2 ✗ failed: not-found" in text and "#3 ✓ exact L3" in text
        assert screen.review is not None and screen.review.accepted == {1, 3}

        # the failed edit: the nearest lines, numbered, and the line the old text has instead
        await select(pilot, screen, 2)
        text = screen_text(app)  # type: ignore[arg-type]
        assert "nearest: lines 1–3" in text
        assert "1 │ alpha" in text and "3 │ gamma" in text
        assert "  - delta" in text
        await pilot.press("a")  # accepted, the apply would refuse: reject it again
        assert 2 in screen.review.accepted
        await pilot.press("x")
        assert screen.review.accepted == {1, 3}

        # edit 3's new text, changed in place and re-checked at once
        await select(pilot, screen, 3)
        assert "- 3 │ some text" in screen_text(app)  # type: ignore[arg-type]
        await pilot.press("e")
        assert app.focused is screen.new_text
        await pilot.press(*"better text", "escape")  # the old new text starts selected
        assert screen.review.new_text == {3: ("better text\n",)}
        assert screen.review.check(3).status == "exact"
        assert "+   │ better text" in screen_text(app)  # type: ignore[arg-type]
        assert "#3 ✓ exact L3 ✎" in screen_text(app)  # type: ignore[arg-type]

        # apply: a confirmation that names the files; nothing written before the y
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert isinstance(app.screen, ConfirmScreen)
        assert "a.py, c.md" in app.screen.question
        assert files(project) == before
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.last_entry is not None)
        assert (project / "a.py").read_bytes() == A_PY.replace(b"sum(items)\n", b"sum(items) + 1\n")
        assert (project / "b.txt").read_bytes() == B_TXT
        assert (project / "c.md").read_bytes() == b"# Notes\n\nbetter text\nmore text\n"
        assert git(project, "status", "--porcelain").split() == ["M", "a.py", "M", "c.md"]
        # the written edits show as applied, not as edits whose old text is no longer found
        await pilot.pause()
        text = screen_text(app)  # type: ignore[arg-type]
        entry = screen.last_entry
        assert f"#1 ✓ applied ({entry})" in text and f"#3 ✓ applied ({entry})" in text, text
        assert "not-found" not in text.replace("#2 ✗ failed: not-found", "")
        await pilot.press("w")  # a second apply of the same set is refused in words, not by a check
        assert files(project) != before and not isinstance(app.screen, ConfirmScreen)

        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.last_entry is None)
        await wait_for(pilot, lambda: files(project) == before)
        assert git(project, "status", "--porcelain") == ""  # .gramwright/ ignores itself
        await wait_for(pilot, lambda: "#1 ✓ exact L2" in screen_text(app))  # type: ignore[arg-type]
        assert "applied (" not in screen_text(app)  # type: ignore[arg-type]


async def test_file_changed_during_review_is_never_overwritten(project: Path) -> None:
    async with app_for(project).run_test(size=SIZE) as pilot:
        app = pilot.app
        assert isinstance(app, GramwrightApp)
        screen = await opened(pilot)
        changed = C_MD + b"a line someone added\n"
        (project / "c.md").write_bytes(changed)
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: bool(app.error_bar.records))
        assert "c.md (changed)" in app.error_bar.records[-1].message
        assert (project / "c.md").read_bytes() == changed
        assert (project / "a.py").read_bytes() == A_PY  # all-or-nothing: not written either
        await wait_for(pilot, lambda: "⚠ changed on disk" in screen_text(app))  # type: ignore[arg-type]
        assert "c.md (changed)" in screen_text(app)  # type: ignore[arg-type]  # the screen's error line
        # re-checked against the file as it is now: the edit still applies, and now it may be written
        assert screen.review is not None and screen.review.snapshots["c.md"].data == changed
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.last_entry is not None)
        assert (project / "c.md").read_bytes() == changed.replace(b"some text", b"other text")
        # the refusal is over: neither the warning nor the old error stays on screen
        await pilot.pause()
        text = screen_text(app)  # type: ignore[arg-type]
        assert "changed on disk" not in text and "c.md (changed)" not in text, text
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: screen.last_entry is None)
        await wait_for(pilot, lambda: (project / "c.md").read_bytes() == changed)
        text = screen_text(app)  # type: ignore[arg-type]
        assert "changed on disk" not in text and "c.md (changed)" not in text, text


async def test_export_help_palette_and_screens(project: Path) -> None:
    async with app_for(project).run_test(size=SIZE) as pilot:
        app = pilot.app
        assert isinstance(app, GramwrightApp)
        screen = await opened(pilot)
        names = [c.name for c in palette_commands(app)]
        assert "review: Apply accepted edits" in names and "screen: Schema workbench" in names
        assert "file: Save" not in names
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert "Patch review" in screen_text(app)  # type: ignore[arg-type]
        await pilot.press("escape")
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, PathPrompt))
        await pilot.press("enter")  # accepted.patch, under the root
        await wait_for(pilot, (project / "accepted.patch").exists)
        git(project, "apply", "--check", "accepted.patch")
        # f9: the schema workbench, whose keys work again; pipeline, batch, edit; the review
        await pilot.press("f9")
        await wait_for(pilot, lambda: app.current_workspace == "schema")
        assert "screen: Patch review" in [c.name for c in palette_commands(app)]
        for name in ("pipeline", "batch", "edit"):
            await pilot.press("f9")
            await wait_for(pilot, lambda n=name: app.current_workspace == n)  # type: ignore[misc]
        await pilot.press("f9")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.review is not None and screen.review.accepted == {1, 3}


def test_classify_paths(project: Path, tmp_path: Path) -> None:
    reply = tmp_path / "reply.txt"
    reply.write_text("Here is the fix:\n\n" + PATCH, encoding="utf-8")
    assert classify([]).screen == "schema"
    assert classify([tmp_path / "new.json"]).screen == "schema"
    assert classify([tmp_path / "fix.patch"]).patch == tmp_path / "fix.patch"
    assert classify([reply]).screen == "review"
    assert classify([project / "a.py"]).screen == "edit"
    assert classify([project]).sources == (project,)


async def test_regenerate_key_asks_for_that_edit_and_takes_the_new_one(project: Path) -> None:
    from gramwright.editors import EditFormat, parse_patch
    from gramwright.editors.generate.edit import EditResult
    from gramwright.generation import Generation

    asked: list[tuple[int, str]] = []
    async with app_for(project).run_test(size=SIZE) as pilot:
        app = pilot.app
        assert isinstance(app, GramwrightApp)
        screen = await opened(pilot)
        assert "review: Regenerate edit" not in [c.name for c in palette_commands(app)]  # a file's patch
        screen.on_regenerate = lambda index, path: asked.append((index, path)) or True
        await select(pilot, screen, 2)
        await pilot.press("g")
        assert asked == [(2, "b.txt")] and screen.regenerating == 2
        await pilot.press("g")  # one regeneration at a time
        assert asked == [(2, "b.txt")]
        # what the edit screen hands back: a patch for b.txt, as the model would have written it
        text = sr("b.txt", "beta\n", "BETA\n")
        generation = Generation(text, "stop", 12, {}, "test")
        result = EditResult(
            EditFormat.SEARCH_REPLACE, True, str(project), ("b.txt",), generation, text,
            parse_patch(text), None, None,
        )  # fmt: skip
        screen.take_regenerated(2, result)
        assert screen.review is not None and screen.review.check(2).status == "exact"
        assert screen.review.accepted == {1, 2, 3} and screen.regenerating is None
        await wait_for(pilot, lambda: "☑ #2 ✓ exact L2" in screen_text(app))
