"""The schema editor: a code TextArea with JSON highlighting (when tree-sitter-json is installed)."""

from __future__ import annotations

from typing import ClassVar

from textual.widgets import TextArea

# Textual 8.2's TextArea was seen to crash the interpreter (SIGSEGV) with tree-sitter 0.26.1;
# highlighting is used only with the series it was tested with.
TESTED_TREE_SITTER = "0.25."


def json_language() -> str | None:
    """``"json"`` when Textual can highlight it; plain text otherwise (never an error)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        if not version("tree-sitter").startswith(TESTED_TREE_SITTER):
            return None
    except PackageNotFoundError:
        return None
    # Textual's own lookup (no public one): tree-sitter present but tree-sitter-json absent would
    # otherwise raise LanguageDoesNotExist when the TextArea is built.
    from textual._tree_sitter import get_language

    return "json" if get_language("json") is not None else None


def code_area(text: str = "", *, id: str, read_only: bool = False, json: bool = True) -> TextArea:
    """A code TextArea (line numbers, no soft wrap); JSON-highlighted unless ``json`` is false."""
    return TextArea.code_editor(
        text, language=json_language() if json else None, read_only=read_only, id=id, theme="monokai"
    )


class SchemaEditor(TextArea):
    """The schema text; the app lints and compiles it as it changes."""

    HELP_TOPIC: ClassVar[str] = "editor"

    def __init__(self, text: str, *, id: str) -> None:
        super().__init__(
            text,
            language=json_language(),
            theme="monokai",
            soft_wrap=False,
            tab_behavior="indent",
            show_line_numbers=True,
            id=id,
        )
        self.indent_width = 2

    def goto(self, line: int, column: int) -> None:
        """Move the cursor to a 1-based line and column (clamped to the text) and focus here."""
        row = max(0, min(line - 1, self.document.line_count - 1))
        col = max(0, min(column - 1, len(self.document.get_line(row))))
        self.move_cursor((row, col), center=True)
        self.focus()
