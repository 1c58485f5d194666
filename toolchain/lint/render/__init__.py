"""Renderers: the same diagnostics as human text (rich), JSON, or SARIF 2.1.0."""

from gramwright.lint.render.human import render_human
from gramwright.lint.render.json_out import render_json, report_dicts
from gramwright.lint.render.sarif import render_sarif, sarif_log

__all__ = ["render_human", "render_json", "render_sarif", "report_dicts", "sarif_log"]
