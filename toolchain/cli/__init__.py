"""Thin Typer CLI over the core; stdout is data, stderr is progress and errors."""
