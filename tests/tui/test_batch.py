"""The batch view driven by real keystrokes: cancel a batch half-way, resume it, no row twice (the
generation backend scripted and slowed down, as the CLI's batch tests do; the pipeline, the JSONL
output and the summary are the real ones)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gramwright.pipeline import ScriptedBackend
from gramwright.tui.app import GramwrightApp
from gramwright.tui.batch_screen import BatchScreen
from gramwright.tui.commands import palette_commands
from tests.support.tui import CAT_SCHEMA, screen_text, wait_for

pytestmark = pytest.mark.anyio
SIZE = (120, 40)
ROWS = 6


def ids(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines() if line]


async def test_cancel_half_way_then_resume_without_duplicates(tmp_path: Path) -> None:
    schema = tmp_path / "cat.json"
    schema.write_text(json.dumps(CAT_SCHEMA), encoding="utf-8")
    source = tmp_path / "cats.jsonl"
    source.write_text(
        "".join(json.dumps({"id": f"c{i}", "prompt": f"cat number {i}"}) + "\n" for i in range(ROWS)),
        encoding="utf-8",
    )
    output = tmp_path / "cats.out.jsonl"
    backend = ScriptedBackend([{"outputs": [{"text": '{"name":"Tom","age":3}'}], "sleep": 0.4}])
    app = GramwrightApp(schema, pipeline_backend=backend)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f9", "f9")  # workbench → pipeline view → batch view
        await wait_for(pilot, lambda: isinstance(app.screen, BatchScreen))
        screen = app.screen
        assert isinstance(screen, BatchScreen)
        assert "batch: Run / resume" in [c.name for c in palette_commands(app)]
        await pilot.press(*str(source), "enter")
        await wait_for(pilot, lambda: screen.new_rows >= 2, 60.0)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.running, 60.0)
        assert "cancelled:" in screen_text(app)
        first = ids(output)
        assert 2 <= len(first) < ROWS and len(set(first)) == len(first)
        kept = output.read_bytes()

        await pilot.press("f8")  # resume: only the rows not in the output yet
        await wait_for(pilot, lambda: "done:" in screen_text(app), 60.0)
        final = ids(output)
        assert sorted(final) == [f"c{i}" for i in range(ROWS)]  # each row once
        assert output.read_bytes().startswith(kept)  # the finished rows were never rewritten
        assert screen.new_rows == ROWS - len(first)
        assert len(backend.requests) == ROWS  # no row was run twice either
        text = screen_text(app)
        assert "rows                    6" in text and "status                  ok 6" in text
        assert "attempts histogram      1: 6" in text


async def test_a_grounded_schema_copies_from_each_rows_text(tmp_path: Path) -> None:
    examples = Path(__file__).resolve().parents[2] / "docs" / "examples"
    schema = tmp_path / "contact.json"
    schema.write_text((examples / "contact_grounded.json").read_text(encoding="utf-8"), encoding="utf-8")
    texts = {"r1": "Anna Lee, 34, lives in Lyon.", "r2": "Anna Lee is 34; no city given."}
    source = tmp_path / "notes.jsonl"
    source.write_text(
        "".join(json.dumps({"id": k, "text": v}) + "\n" for k, v in texts.items()), encoding="utf-8"
    )
    answer = {"name": "Anna Lee", "city": "Lyon", "age": 34, "email": None}
    app = GramwrightApp(schema, pipeline_backend=ScriptedBackend.of(json.dumps(answer)))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.show_workspace("batch")
        assert isinstance(screen, BatchScreen)
        await pilot.pause()
        await pilot.press(*str(source), "enter")
        await wait_for(pilot, lambda: "done:" in screen_text(app), 60.0)
        rows = {r["id"]: r for r in map(json.loads, (tmp_path / "notes.out.jsonl").read_text().splitlines())}
        # the spans are each row's own: "Lyon" is in r1's text, not in r2's — so r2's answer,
        # which says Lyon, is not accepted as grounded (its city is required: the row fails)
        spans = {g["pointer"]: g["start"] for g in rows["r1"]["grounded"]}
        assert spans == {"/name": 0, "/city": texts["r1"].index("Lyon"), "/age": 10}
        assert rows["r1"]["status"] == "ok" and rows["r2"]["status"] == "failed"
        assert {"pointer": "/city", "keyword": "x-grounded"}.items() <= rows["r2"]["errors"][0].items()
        assert "last row: r2 · failed" in screen_text(app)
