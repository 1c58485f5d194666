"""The app's stylesheet (kept in Python so it ships without package-data entries)."""

CSS = """
Screen { layout: vertical; }
#main { height: 1fr; }
#left { width: 1fr; }
#tools { width: 1fr; }

#editor {
    height: 1fr;
    border: round $primary 50%;
    border-title-color: $text;
    border-subtitle-color: $warning;
}
#editor:focus { border: round $primary; }

#diagnostics {
    height: 15;
    border: round $secondary 50%;
    border-title-color: $text;
}
#diagnostics:focus-within { border: round $secondary; }
#diag-bar { height: 1; }
#profile { width: 24; }
#diag-summary { width: 1fr; padding: 0 1; }
#diag-list { height: 1fr; border: none; padding: 0; background: transparent; }
#diag-hint { height: 2; color: $text-muted; }
#diagnostics.-stale #diag-hint { text-opacity: 50%; }

#tools TabPane { padding: 0; }
#grammar, #check, #sample { height: 1fr; }
#grammar-summary { height: auto; max-height: 3; padding: 0 1; }
#grammar-report { height: auto; max-height: 9; padding: 0 1; overflow-y: auto; }
#gbnf { height: 1fr; }
#grammar.-stale #gbnf, #grammar.-stale #grammar-report { text-opacity: 45%; }

#check-doc { height: 1fr; }
#check-result { height: auto; min-height: 3; max-height: 10; padding: 0 1; border-top: solid $secondary 50%; }

#sample-bar { height: 3; }
#prompt { width: 1fr; }
#max-tokens { width: 10; }
#sample-progress-bar { height: 1; }
#sample-status { width: 1fr; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
#sample-progress { width: 24; }
#sample-scroll { height: 1fr; border: round $secondary 50%; }
#sample-output { padding: 0 1; }
#sample-result { height: auto; padding: 0 1; }
#sample-legend { height: 1; padding: 0 1; }

#error-bar, #screen-errors { height: 1; padding: 0 1; background: $panel; }
#error-bar.-error, #screen-errors.-error { background: $error 20%; }

#review-main { height: 1fr; }
#review-tree { width: 2fr; min-width: 30; max-width: 60; border: round $secondary 50%; }
#review-tree:focus { border: round $secondary; }
#review-right { width: 3fr; }
#review-scroll { height: 1fr; border: round $primary 50%; }
#review-detail { padding: 0 1; }
#review-new { height: 12; border: round $accent; }
#edit-main { height: 1fr; }
#edit-tree { width: 1fr; min-width: 20; max-width: 50; border: round $secondary 50%; }
#edit-tree:focus { border: round $secondary; }
#edit-right { width: 3fr; }
#edit-options { height: 3; }
#edit-format { width: 22; }
#edit-model { width: 1fr; }
#edit-max-tokens { width: 14; }
#edit-max-lines { width: 17; }
/* every field named on its border; the focused one in the accent colour, its name bold */
#edit-instruction, #edit-model, #edit-max-tokens, #edit-max-lines, #edit-format {
    border: round $secondary 50%;
    border-title-color: $text-muted;
    background: $surface;
}
#edit-format > SelectCurrent { border: none; height: 1; padding: 0 1; background: $surface; }
#edit-instruction:focus, #edit-model:focus, #edit-max-tokens:focus, #edit-max-lines:focus,
#edit-format:focus-within {
    border: round $accent;
    border-title-color: $accent;
    border-title-style: bold;
    background: $accent 12%;
}
#edit-format:focus-within > SelectCurrent { background: $accent 12%; }
#edit-progress-bar { height: 1; }
#edit-status { width: 1fr; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
#edit-progress { width: 24; }
#edit-stream { height: 1fr; border: round $primary 50%; }
#edit-output { padding: 0 1; }
#edit-result { height: auto; padding: 0 1; }
#edit-legend { height: 1; padding: 0 1; }
#pipe-prompt { height: 3; }
#pipe-main { height: 1fr; }
#pipe-attempts { width: 1fr; height: 1fr; max-height: 100%; border: round $secondary 50%; }
#pipe-attempts:focus { border: round $secondary; }
#pipe-right { width: 1fr; }
#pipe-scroll { height: 1fr; border: round $primary 50%; }
#pipe-detail { padding: 0 1; }
#pipe-grounding { height: 11; }
#grounded-values { width: 1fr; height: 1fr; border: round $secondary 50%; }
#grounded-values:focus { border: round $secondary; }
#grounded-scroll { width: 1fr; height: 1fr; border: round $primary 50%; }
#grounded-source { padding: 0 1; }
#pipe-result { height: auto; max-height: 8; padding: 0 1; border-top: solid $secondary 50%; }
#batch-paths { height: 3; }
#batch-input, #batch-output { width: 1fr; }
#batch-progress-bar { height: 1; }
#batch-status { width: 1fr; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
#batch-progress { width: 40; }
#batch-scroll { height: 1fr; border: round $primary 50%; }
#batch-summary { padding: 0 1; }
#batch-last { height: 1; padding: 0 1; }
#review-summary { height: 1; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }

HelpScreen, ConfirmQuitScreen, ConfirmSaveScreen, ConfirmScreen, PathPrompt, ErrorsScreen {
    align: center middle;
}
#help-body, #errors-body {
    width: 80%; height: 80%; padding: 0 2;
    border: round $primary; background: $surface;
}
#confirm-body, #prompt-body {
    width: 64; height: auto; padding: 1 2;
    border: round $warning; background: $surface;
}
#confirm-question { margin-bottom: 1; }
#confirm-buttons { height: auto; }
#confirm-buttons Button { margin-right: 1; }
.error-line { margin-top: 1; }
"""
