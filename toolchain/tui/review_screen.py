"""The patch review screen: files and edits in a tree, the selected edit as a diff, per-edit
accept/reject, edit an edit's new text, apply / undo / export the accepted set.

A thin adapter over :mod:`gramwright.editors.patch.review` (the same check, apply, journal and
undo that ``gramwright apply`` / ``undo`` use). File work runs in a thread worker; its results and
errors arrive in :meth:`ReviewScreen.on_worker_state_changed`, errors going to the app's one error
place. Nothing is written without a key and a confirmation that names the files; a file changed
on disk since the review read it is never overwritten (the apply is refused, naming it, and the
patch is re-checked against the files as they are now).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static, TextArea, Tree
from textual.worker import Worker, WorkerState

from gramwright.editors import ApplyResult, UndoResult, parse_patch, undo
from gramwright.editors.patch.review import (
    Review,
    StaleFile,
    StaleFiles,
    apply_review,
    export_accepted,
    open_review,
    recheck,
    replace_edit,
    set_accepted,
    set_new_text,
)
from gramwright.errors import PatchError
from gramwright.fsutil import atomic_write_text
from gramwright.tui.screens import ConfirmScreen, PathPrompt
from gramwright.tui.widgets.errors import ErrorBar
from gramwright.tui.widgets.review import edit_detail, edit_label, file_label, status_words, summary

if TYPE_CHECKING:
    from gramwright.editors.generate.edit import EditResult
    from gramwright.tui.app import GramwrightApp

# keys that type text while the new-text editor has focus
_LETTER_ACTIONS = {
    "accept",
    "reject",
    "edit_text",
    "apply",
    "undo",
    "export",
    "recheck",
    "open_patch",
    "regenerate",
}


@dataclass(frozen=True)
class _Loaded:
    review: Review
    source: str


@dataclass(frozen=True)
class _Rechecked:
    review: Review
    stale: tuple[StaleFile, ...]
    why: str


@dataclass(frozen=True)
class _Applied:
    result: ApplyResult


@dataclass(frozen=True)
class _Undone:
    result: UndoResult


class ReviewScreen(Screen[None]):
    HELP_TOPIC: ClassVar[str] = "review"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "accept", "Accept"),
        Binding("x", "reject", "Reject"),
        Binding("e", "edit_text", "Edit text"),
        Binding("w", "apply", "Apply"),
        Binding("u", "undo", "Undo"),
        Binding("s", "export", "Export"),
        Binding("r", "recheck", "Re-check"),
        Binding("g", "regenerate", "Regenerate"),
        Binding("o", "open_patch", "Open patch", show=False),
        Binding("escape", "done_editing", "Done editing"),
    ]

    def __init__(self, root: Path, patch: Path | None = None, *, fuzzy: bool = False) -> None:
        super().__init__(id="review-screen")
        self.root = root.resolve()
        self.patch_path = patch
        self.fuzzy = fuzzy
        self.review: Review | None = None
        self.source = ""
        self.stale: tuple[StaleFile, ...] = ()
        self.last_entry: str | None = None  # the journal entry of this screen's last apply
        # that entry while the review still shows the files as they were before it: the accepted
        # edits are then shown applied (matched against the written files, they would not be
        # found: their old text is gone); a re-check or an undo ends it
        self.applied_entry: str | None = None
        self.editing: int | None = None  # the edit whose new text is in the editor
        # set when the patch was generated: regenerate(index, path) on the edit screen
        self.on_regenerate: Callable[[int, str], bool] | None = None
        self.regenerating: int | None = None
        self._pending: tuple[Review, str] | None = None
        self._edit_nodes: dict[int, Any] = {}
        self._file_nodes: dict[str, Any] = {}

    @property
    def gw(self) -> GramwrightApp:
        return cast("GramwrightApp", self.app)

    # -- layout ---------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="review-main"):
            tree: Tree[int | str] = Tree("patch", id="review-tree")
            tree.show_root = False
            yield tree
            with Vertical(id="review-right"):
                with VerticalScroll(id="review-scroll"):
                    yield Static("", id="review-detail")
                yield TextArea("", id="review-new", soft_wrap=False)
        yield Static("", id="review-summary")
        yield ErrorBar(id="screen-errors")
        yield Footer()

    @property
    def edit_tree(self) -> Tree[int | str]:
        return cast("Tree[int | str]", self.query_one("#review-tree", Tree))

    @property
    def detail(self) -> Static:
        return self.query_one("#review-detail", Static)

    @property
    def new_text(self) -> TextArea:
        return self.query_one("#review-new", TextArea)

    def on_mount(self) -> None:
        self.edit_tree.border_title = "Files and edits"
        self.query_one("#review-scroll").border_title = "Edit"
        self.new_text.display = False
        self.sub_title = f"review · {self.root}"
        if self._pending is not None:
            self._set_loaded(*self._pending)
            self._pending = None
        elif self.patch_path is not None:
            self.load(self.patch_path)
        elif self.review is None:
            self.detail.update(
                Text("No patch loaded: press o to open a patch file (any format), or generate one in Edit.")
            )
        self.edit_tree.focus()

    # -- loading --------------------------------------------------------------------------------------

    def load(self, path: Path) -> None:
        self.patch_path = path
        self.detail.update(Text(f"checking {path} …", style="dim"))
        self.load_worker(path)

    def show_review(self, review: Review, source: str) -> None:
        """Show a review made elsewhere (a generated patch); before the screen is first shown,
        when it mounts."""
        if not self.is_mounted:
            self._pending = (review, source)
            return
        self._set_loaded(review, source)

    @work(thread=True, exclusive=True, group="review", name="load", exit_on_error=False)
    def load_worker(self, path: Path) -> _Loaded:
        text = path.read_bytes().decode("utf-8-sig")
        return _Loaded(open_review(parse_patch(text), self.root, fuzzy=self.fuzzy), str(path))

    def _set_loaded(self, review: Review, source: str) -> None:
        self.review, self.source, self.stale = review, source, ()
        self.last_entry = self.applied_entry = None
        self.regenerating = None
        self._build_tree()
        self.sub_title = f"review · {source}"
        self._refresh()

    def _build_tree(self) -> None:
        review = self.review
        assert review is not None
        tree = self.edit_tree
        tree.clear()
        self._edit_nodes.clear()
        self._file_nodes.clear()
        for path in review.patch.paths():
            checks = [c for c in review.report.edits if c.path == path]
            node = tree.root.add(file_label(review, path, False), data=path, expand=True)
            self._file_nodes[path] = node
            for check in checks:
                self._edit_nodes[check.index] = node.add_leaf(
                    edit_label(review, check, self.applied_entry), data=check.index
                )
        first = next(iter(self._edit_nodes.values()), None)
        if first is not None:
            tree.move_cursor(first)

    # -- rendering ------------------------------------------------------------------------------------

    @property
    def current(self) -> int | None:
        """The highlighted edit (for a file node: its first edit)."""
        if self.review is None:
            return None
        node = self.edit_tree.cursor_node
        data = node.data if node is not None else None
        if isinstance(data, int):
            return data
        if isinstance(data, str):
            return next((c.index for c in self.review.report.edits if c.path == data), None)
        return min(self._edit_nodes, default=None)

    def _refresh(self) -> None:
        review = self.review
        if review is None:
            return
        stale = {s.path for s in self.stale}
        for index, node in self._edit_nodes.items():
            node.set_label(edit_label(review, review.check(index), self.applied_entry))
        for path, node in self._file_nodes.items():
            node.set_label(file_label(review, path, path in stale))
        line = summary(review)
        if self.stale:
            line.append("  ⚠ changed on disk: " + ", ".join(sorted(stale)), style="bold yellow")
        if self.last_entry:
            line.append(f"  · applied {self.last_entry} (u undoes)", style="cyan")
        self.query_one("#review-summary", Static).update(line)
        selected = self.current
        if selected is not None:
            self.detail.update(edit_detail(review, selected))
        self.refresh_bindings()

    @on(Tree.NodeHighlighted, "#review-tree")
    def _highlighted(self) -> None:
        if self.editing is None:
            self._refresh()

    # -- decisions ------------------------------------------------------------------------------------

    def _decide(self, accepted: bool) -> None:
        index = self.current
        if self.review is None or index is None:
            return
        self.review = set_accepted(self.review, index, accepted)
        self._refresh()
        if accepted and self.review.check(index).status == "failed":
            self.notify(f"edit {index} does not apply: the apply will refuse until it is fixed or rejected")

    def action_accept(self) -> None:
        self._decide(True)

    def action_reject(self) -> None:
        self._decide(False)

    def action_edit_text(self) -> None:
        index = self.current
        if self.review is None or index is None:
            return
        self.editing = index
        editor = self.new_text
        editor.load_text("".join(self.review.edit(index).new))
        editor.border_title = f"New text of edit {index} · escape: done, re-check"
        editor.display = True
        editor.select_all()  # typing replaces it; an arrow key keeps it and moves into it
        editor.focus()
        self.refresh_bindings()

    def action_done_editing(self) -> None:
        index, review = self.editing, self.review
        if index is None or review is None:
            return
        self.editing = None
        self.review = set_new_text(review, index, self.new_text.text)
        self.new_text.display = False
        self.edit_tree.focus()
        self._refresh()
        self.notify(f"edit {index} re-checked: {self.review.check(index).status}")

    # -- apply, undo, export, re-check ------------------------------------------------------------------

    def action_apply(self) -> None:
        review = self.review
        if review is None:
            return
        report = review.check_accepted()
        if self.applied_entry is not None:
            self.notify(
                f"already applied as {self.applied_entry}: u undoes it, "
                "r re-checks against the files as written",
                severity="warning",
            )
            return
        if not review.accepted:
            self.notify("no edit accepted: nothing to apply", severity="warning")
            return
        if not report.ok:
            self.notify(
                "the accepted set does not apply: reject or fix the failed edits first",
                severity="warning",
            )
            return
        files = review.files_to_write()
        if not files:
            self.notify("the files already have this content: nothing to write")
            return
        question = (
            f"Apply {len(review.accepted)} accepted edit(s) and write {len(files)} file(s): "
            f"{', '.join(files)}? (backup in .gramwright/journal, u undoes)"
        )

        def go(yes: bool | None) -> None:
            if yes and self.review is not None:
                self.apply_worker(self.review)

        self.app.push_screen(ConfirmScreen("Apply the accepted edits", question, "Apply (y)"), go)

    @work(thread=True, exclusive=True, group="review", name="apply", exit_on_error=False)
    def apply_worker(self, review: Review) -> _Applied:
        return _Applied(apply_review(review))

    def action_undo(self) -> None:
        entry = self.last_entry
        if entry is None:
            self.notify("nothing applied from this screen yet (gramwright undo reverts older applies)")
            return
        files = self.review.files_to_write() if self.review is not None else ()
        question = f"Undo apply {entry}: restore {', '.join(files) or 'its files'} byte for byte?"

        def go(yes: bool | None) -> None:
            if yes:
                self.undo_worker(entry)

        self.app.push_screen(ConfirmScreen("Undo the last apply", question, "Undo (y)"), go)

    @work(thread=True, exclusive=True, group="review", name="undo", exit_on_error=False)
    def undo_worker(self, entry: str) -> _Undone:
        return _Undone(undo(self.root, entry))

    def action_recheck(self) -> None:
        if self.review is not None:
            self.applied_entry = None
            self.recheck_worker(self.review, "re-checked against the files on disk")

    @work(thread=True, exclusive=True, group="review", name="recheck", exit_on_error=False)
    def recheck_worker(self, review: Review, why: str, stale: tuple[StaleFile, ...] = ()) -> _Rechecked:
        return _Rechecked(recheck(review), stale, why)

    def action_export(self) -> None:
        review = self.review
        if review is None:
            return
        try:
            diff = export_accepted(review)
        except PatchError as exc:  # the core's one-line error goes to the error place
            self.gw.report_error("export", exc)
            return

        def chosen(path: str | None) -> None:
            if not path:
                return
            target = Path(path).expanduser()
            target = target if target.is_absolute() else self.root / target
            try:
                atomic_write_text(target, diff)
            except OSError as exc:
                self.gw.report_error("export", exc)
                return
            self.notify(f"wrote the accepted set ({len(review.accepted)} edits) to {target}")

        self.app.push_screen(
            PathPrompt("Export the accepted edits as a unified diff", "accepted.patch"), chosen
        )

    def action_regenerate(self) -> None:
        index, review, again = self.current, self.review, self.on_regenerate
        if index is None or review is None or again is None:
            return
        if not again(index, review.check(index).path):
            self.notify("a generation is running (see the Edit screen)", severity="warning")
            return
        self.regenerating = index
        self.notify(
            f"regenerating edit {index} for {review.check(index).path} (it streams on the Edit screen)"
        )
        self.refresh_bindings()

    def take_regenerated(self, index: int, result: EditResult) -> None:
        """The regenerated edit ``index`` replaces the old one (re-checked; accepted if it applies)."""
        self.regenerating = None
        if self.review is None:
            return
        if result.patch is None:
            self.notify(f"regenerated edit {index} does not parse: {result.parse_error}", severity="warning")
            return
        try:
            self.review = replace_edit(self.review, index, result.patch.edits)
        except PatchError as exc:
            self.gw.report_error("regenerate", exc)
            return
        self._refresh()
        self.notify(f"edit {index} regenerated: {status_words(self.review.check(index))}")

    def action_open_patch(self) -> None:
        def chosen(path: str | None) -> None:
            if path:
                self.load(Path(path).expanduser())

        self.app.push_screen(PathPrompt("Open a patch file (search-replace, udiff, apply-patch)", ""), chosen)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "done_editing":
            return self.editing is not None
        if self.editing is not None and action in _LETTER_ACTIONS:
            return False
        if action in ("accept", "reject", "edit_text", "apply", "export", "recheck"):
            return self.review is not None
        if action == "undo":
            return self.last_entry is not None
        if action == "regenerate":
            return self.review is not None and self.on_regenerate is not None and self.regenerating is None
        return True

    # -- the one place where this screen's worker results and errors arrive --------------------------

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        event.stop()  # this screen's own workers: handled here only
        worker: Worker[Any] = event.worker
        if event.state == WorkerState.SUCCESS:
            self._apply_result(worker.result)
        elif event.state == WorkerState.ERROR and worker.error is not None:
            error = worker.error
            self.gw.report_error(worker.name or "review", error)
            if isinstance(error, StaleFiles) and self.review is not None:
                self.stale = error.stale
                self._refresh()
                why = "refused: " + ", ".join(s.one_line() for s in error.stale)
                self.recheck_worker(self.review, why, error.stale)
            elif self.review is None:
                self.detail.update(Text(f"✗ {error}", style="red"))

    def _apply_result(self, result: object) -> None:
        if isinstance(result, _Loaded):
            self.on_regenerate = None  # a patch file: no instruction to regenerate from
            self._set_loaded(result.review, result.source)
        elif isinstance(result, _Rechecked):
            kept = self.review
            review = result.review
            if kept is not None:  # decisions taken meanwhile stay
                review = Review(
                    review.patch, review.root, review.fuzzy, review.snapshots, review.report,
                    kept.accepted, kept.new_text,
                )  # fmt: skip
            self.review = review
            self.stale = result.stale
            self._refresh()
            self.notify(result.why + (" — re-checked against them" if result.stale else ""))
        elif isinstance(result, _Applied):
            applied = result.result
            self.last_entry = self.applied_entry = applied.entry_id
            # a refusal before this apply (a file changed on disk) is over: it was re-checked and
            # has now been written
            self.stale = ()
            self.gw.clear_error("apply")
            self._refresh()
            self.notify(f"applied: wrote {', '.join(applied.written) or 'nothing'}")
        elif isinstance(result, _Undone):
            self.last_entry = self.applied_entry = None
            self.stale = ()
            self.gw.clear_error("apply")
            self.gw.clear_error("undo")
            self.notify(f"undone {result.result.entry.id}: restored {', '.join(result.result.restored)}")
            if self.review is not None:
                self.recheck_worker(self.review, "undone")
