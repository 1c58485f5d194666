"""The TUI's panels: each one a widget that renders plain data handed to it by the app."""
