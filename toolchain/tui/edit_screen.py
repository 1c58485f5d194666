"""The edit screen: pick files, write an instruction, and a local model writes a patch for them
under the file-aware grammar (``gramwright edit``'s :func:`generate_edit`), streamed token by token;
then straight into the patch review.

The project tree lists what git tracks or would track (``.gitignore`` respected,
:func:`project_files`); ``enter`` or ``space`` picks a file. Generation runs in a thread worker
(``escape`` cancels: the per-token callback raises), one at a time with the schema workbench's
sampler, sharing its loaded model. Results and errors arrive in :meth:`on_worker_state_changed`.
"""

from __future__ import annotations

import codecs
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, ProgressBar, Select, Static, Tree
from textual.widgets.tree import TreeNode
from textual.worker import Worker, WorkerState, get_current_worker

from gramwright.editors.patch.model import EditFormat
from gramwright.editors.patch.project import project_files
from gramwright.editors.patch.review import Review, open_review
from gramwright.tui.messages import SampleProgress, TokenSampled
from gramwright.tui.sampler import SampleCancelled
from gramwright.tui.widgets.errors import ErrorBar
from gramwright.tui.widgets.sample import legend, shade

if TYPE_CHECKING:
    from gramwright.editors.generate.edit import EditResult
    from gramwright.tui.app import GramwrightApp

DEFAULT_MAX_TOKENS = 256
FORMATS = (EditFormat.SEARCH_REPLACE, EditFormat.UDIFF)
# every focusable field's name, on its border: without them the option fields are bare boxes
# ("embedded", "256") and a key typed into the wrong one changes the model or the budget unseen.
# The focused field's name carries FOCUS_MARK (and the stylesheet colours its border).
FIELD_TITLES = {
    "edit-tree": "Project · enter picks a file",
    "edit-instruction": "instruction · enter generates",
    "edit-format": "format",
    "edit-model": "model",
    "edit-max-tokens": "tokens",
    "edit-max-lines": "new lines",
}
FOCUS_MARK = "▸ "


@dataclass(frozen=True)
class EditRequest:
    files: tuple[str, ...]
    instruction: str
    format: EditFormat
    max_tokens: int
    model: str | None
    max_replace_lines: int | None = None
    regenerate: int | None = None  # the review's edit this request replaces (None: a new patch)


@dataclass(frozen=True)
class _Generated:
    run: int
    request: EditRequest
    result: EditResult
    review: Review | None  # the patch opened for review (None: it did not parse)


def result_text(result: EditResult, max_tokens: int) -> Text:
    """Finish reason, tokens against the budget, whether the budget closed it, and the check."""
    text = Text()
    finish_style = "bold green" if result.finish_reason == "stop" else "bold yellow"
    text.append("finish: ", style="bold")
    text.append(result.finish_reason, style=finish_style)
    text.append(f" · {result.generation.tokens}/{max_tokens} tokens (budget)")
    if result.closed_by_budget:
        cut = ", ".join(f"block {c['block']} ({c['path']})" for c in result.cut) or "the last block"
        text.append(f"\nclosed_by_budget: yes — the budget closed {cut}; its new text may be cut")
        text.stylize("yellow", len(text) - len(cut) - 60, len(text))
    else:
        text.append(" · closed_by_budget: no", style="dim")
    if result.at_bound:
        blocks = ", ".join(f"block {c['block']} ({c['path']})" for c in result.at_bound)
        text.append(
            f"\n{blocks}: reached the new-lines bound, which closed it; a line may be missing", style="yellow"
        )
    text.append(f"\ngrammar {result.grammar_ms:.0f} ms · engine {result.engine_ms:.0f} ms", style="dim")
    if result.parse_error:
        text.append(f"\n✗ the output does not parse: {result.parse_error}", style="red")
    elif result.report is not None:
        status = "applies" if result.report.ok else "does not apply"
        text.append(f"\ncheck: {len(result.report.edits)} edit(s), {status} — opening the review")
    return text


class EditScreen(Screen[None]):
    HELP_TOPIC: ClassVar[str] = "edit"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f8", "generate", "Generate"),
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+l", "clear_files", "Clear files", show=False),
    ]

    def __init__(self, root: Path, sources: Sequence[Path] = (), *, model: str | None = None) -> None:
        super().__init__(id="edit-screen")
        self.root = root.resolve()
        self.model = model
        self.picked: list[str] = []
        for source in sources:
            self._pick_initial(source)
        self.run_id = 0
        self.tokens = 0
        self.running = False
        self.last: _Generated | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._output = Text()
        self._picker_nodes: dict[str, TreeNode[str]] = {}

    def _pick_initial(self, source: Path) -> None:
        real = source.resolve()
        if real.is_dir():
            return  # a folder sets what the tree shows, nothing is picked yet
        try:
            self.picked.append(real.relative_to(self.root).as_posix())
        except ValueError:
            self.picked.append(str(source))  # outside the root: generate_edit refuses it in one line

    @property
    def gw(self) -> GramwrightApp:
        return cast("GramwrightApp", self.app)

    # -- layout ---------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="edit-main"):
            tree: Tree[str] = Tree(self.root.name or "/", id="edit-tree")
            yield tree
            with Vertical(id="edit-right"):
                yield Input(placeholder="what to change (enter or f8 generates)", id="edit-instruction")
                with Horizontal(id="edit-options"):
                    yield Select(
                        [(f.value, f.value) for f in FORMATS],
                        value=FORMATS[0].value,
                        allow_blank=False,
                        id="edit-format",
                    )
                    yield Input(self.model or "", placeholder="embedded", id="edit-model")
                    yield Input(
                        str(DEFAULT_MAX_TOKENS),
                        type="integer",
                        id="edit-max-tokens",
                        tooltip="the token budget",
                    )
                    yield Input(
                        "",
                        type="integer",
                        placeholder="no bound",
                        id="edit-max-lines",
                        tooltip="at most N new lines per block (a small model repeats itself)",
                    )
                with Horizontal(id="edit-progress-bar"):
                    yield Static("", id="edit-status")
                    yield ProgressBar(total=DEFAULT_MAX_TOKENS, show_eta=False, id="edit-progress")
                with VerticalScroll(id="edit-stream"):
                    yield Static("", id="edit-output")
                yield Static("", id="edit-result")
                yield Static(legend(), id="edit-legend")
        yield ErrorBar(id="screen-errors")
        yield Footer()

    @property
    def file_tree(self) -> Tree[str]:
        return cast("Tree[str]", self.query_one("#edit-tree", Tree))

    def on_mount(self) -> None:
        self.query_one("#edit-stream").border_title = "Patch, as the model writes it"
        self.sub_title = f"edit · {self.root}"
        self._build_tree()
        self._show_picked()
        # the first thing to do: pick a file when none is, else write the instruction
        first = self.query_one("#edit-instruction", Input) if self.picked else self.file_tree
        first.focus()
        self._mark_focus(first.id)

    def _mark_focus(self, focused: str | None) -> None:
        """Name every field on its border, the focused one with :data:`FOCUS_MARK`."""
        for ident, title in FIELD_TITLES.items():
            self.query_one(f"#{ident}").border_title = FOCUS_MARK + title if ident == focused else title

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._mark_focus(event.widget.id)

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        if self.focused is None or self.focused is event.widget:
            self._mark_focus(None)

    def _build_tree(self) -> None:
        tree = self.file_tree
        tree.clear()
        tree.root.expand()
        folders: dict[str, TreeNode[str]] = {"": tree.root}
        files = project_files(self.root)
        for name in files:
            parent = ""
            parts = name.split("/")
            for part in parts[:-1]:
                here = f"{parent}/{part}" if parent else part
                if here not in folders:
                    folders[here] = folders[parent].add(part + "/", data="")
                parent = here
            self._picker_nodes[name] = folders[parent].add_leaf(self._label(name), data=name)
        for name in self.picked:  # the picked files are visible at once
            node = self._picker_nodes.get(name)
            while node is not None and node.parent is not None:
                node.parent.expand()
                node = node.parent

    def _label(self, name: str) -> Text:
        picked = name in self.picked
        text = Text("☑ " if picked else "☐ ", style="bold" if picked else "dim")
        text.append(name.rsplit("/", 1)[-1], style="bold" if picked else "")
        return text

    def _show_picked(self) -> None:
        files = ", ".join(self.picked) if self.picked else "none (enter on a file in the tree picks it)"
        if not self.running:
            self.show_status(f"files: {files}")

    def show_status(self, message: str) -> None:
        self.query_one("#edit-status", Static).update(Text(message, style="italic"))

    @on(Tree.NodeSelected, "#edit-tree")
    def _toggle(self, event: Tree.NodeSelected[str]) -> None:
        name = event.node.data
        if not name:
            return  # a folder: enter folds it
        if name in self.picked:
            self.picked.remove(name)
        else:
            self.picked.append(name)
        event.node.set_label(self._label(name))
        self._show_picked()

    def action_clear_files(self) -> None:
        for name in list(self.picked):
            self.picked.remove(name)
            if name in self._picker_nodes:
                self._picker_nodes[name].set_label(self._label(name))
        self._show_picked()

    # -- generate -------------------------------------------------------------------------------------

    def request(self) -> EditRequest:
        raw = self.query_one("#edit-max-tokens", Input).value.strip()
        max_tokens = int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULT_MAX_TOKENS
        fmt = EditFormat(str(self.query_one("#edit-format", Select).value))
        model = self.query_one("#edit-model", Input).value.strip() or None
        instruction = self.query_one("#edit-instruction", Input).value.strip()
        lines = self.query_one("#edit-max-lines", Input).value.strip()
        max_lines = int(lines) if lines.isdigit() else None
        return EditRequest(tuple(self.picked), instruction, fmt, max_tokens, model, max_lines)

    @on(Input.Submitted, "#edit-instruction")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_generate()

    def action_generate(self) -> None:
        request = self.request()
        if not request.files:
            self.notify("pick at least one file in the tree first (enter on a file)", severity="warning")
            self.file_tree.focus()
            return
        if not request.instruction:
            self.notify("write an instruction first", severity="warning")
            self.query_one("#edit-instruction", Input).focus()
            return
        self.start(request)

    def start(self, request: EditRequest) -> None:
        self.run_id += 1
        self.running = True
        self.tokens = 0
        self._decoder.reset()
        self._output = Text()
        self.query_one("#edit-output", Static).update("")
        self.query_one("#edit-result", Static).update("")
        self.query_one("#edit-progress", ProgressBar).update(total=request.max_tokens, progress=0)
        self.show_status("starting…")
        self.generate_worker(self.run_id, request)
        self.refresh_bindings()

    @work(thread=True, exclusive=True, group="edit", name="generate", exit_on_error=False)
    def generate_worker(self, run: int, request: EditRequest) -> _Generated:
        from gramwright.editors.generate.edit import generate_edit
        from gramwright.generation import Generator, SamplingOptions

        worker = get_current_worker()

        def progress(message: str) -> None:
            if worker.is_cancelled:
                raise SampleCancelled()
            self.post_message(SampleProgress(run, message))

        def on_token(step: Any) -> None:
            if worker.is_cancelled:
                raise SampleCancelled()
            self.post_message(TokenSampled(run, step.text, step.clipped_mass))

        app = self.gw
        lock: threading.Lock = app.sample_lock
        progress("waiting for the running generation to stop" if lock.locked() else "reading the files")
        with lock:
            shared = request.model == app.sampler.generator.model_spec
            generator = app.sampler.generator if shared or request.model is None else Generator(request.model)
            result = generate_edit(
                [self.root / name for name in request.files],  # read_targets resolves against the cwd
                request.instruction,
                fmt=request.format,
                root=self.root,
                mode="check",
                sampling=SamplingOptions(max_tokens=request.max_tokens),
                max_replace_lines=request.max_replace_lines,
                generator=generator,
                progress=progress,
                on_token=on_token,
            )
        review = None
        if result.patch is not None and request.regenerate is None:
            review = open_review(result.patch, self.root)
        return _Generated(run, request, result, review)

    @on(SampleProgress)
    def _progress(self, event: SampleProgress) -> None:
        event.stop()
        if event.run == self.run_id and self.running:
            self.show_status(event.message)

    @on(TokenSampled)
    def _token(self, event: TokenSampled) -> None:
        event.stop()
        if event.run != self.run_id or not self.running:
            return
        self.tokens += 1
        self._output.append(self._decoder.decode(event.text), style=shade(event.clipped_mass))
        self.query_one("#edit-output", Static).update(self._output)
        self.query_one("#edit-progress", ProgressBar).advance(1)
        self.query_one("#edit-stream", VerticalScroll).scroll_end(animate=False)
        self.show_status(f"generating · {self.tokens} tokens")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.running
        if action == "generate":
            return not self.running
        return True

    def action_cancel(self) -> None:
        self.workers.cancel_group(self, "edit")

    @property
    def output_text(self) -> str:
        return self._output.plain

    # -- results --------------------------------------------------------------------------------------

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        event.stop()  # this screen's own workers: handled here only
        worker: Worker[Any] = event.worker
        if worker.group != "edit":
            return
        if event.state == WorkerState.SUCCESS:
            done = worker.result
            assert isinstance(done, _Generated)
            if done.run == self.run_id:
                self._finished(done)
        elif event.state == WorkerState.CANCELLED or isinstance(worker.error, SampleCancelled):
            self.running = False
            self.show_status(f"cancelled after {self.tokens} tokens")
        elif event.state == WorkerState.ERROR and worker.error is not None:
            self.running = False
            self.gw.report_error("edit", worker.error)
            self.show_status("failed: see the error line (f2 for detail)")
        self.refresh_bindings()

    def _finished(self, done: _Generated) -> None:
        self.running = False
        self.last = done
        result = done.result
        self.show_status(f"done on {result.generation.model}")
        self.query_one("#edit-result", Static).update(result_text(result, done.request.max_tokens))
        if done.request.regenerate is not None:
            self.gw.regenerated(done.request.regenerate, result)
        elif done.review is not None:
            self.gw.open_generated(done.review, done.request.instruction)

    def regenerate(self, index: int, path: str) -> bool:
        """Regenerate edit ``index`` of the review (a file of the last generated patch) with the
        last instruction, format and budget, for that file alone; False when nothing was generated
        here yet or a generation runs."""
        last = self.last
        if last is None or self.running:
            return False
        base = last.request
        self.start(
            EditRequest((path,), base.instruction, base.format, base.max_tokens, base.model,
                        base.max_replace_lines, regenerate=index)
        )  # fmt: skip
        return True
