"""The command line's grounding options: compile lists grounded members, exports say grounding is
not in them, lint reads --source, extract grounds each row in its source (a scripted backend)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from gramwright.cli import grammar_cmds, lint_cmd, pipeline_cmds

ROOT = Path(__file__).resolve().parents[2]
CONTACT = str(ROOT / "docs" / "examples" / "contact_grounded.json")


def app_with(*modules: object) -> typer.Typer:
    app = typer.Typer()
    for module in modules:
        module.register(app)  # type: ignore[attr-defined]
    return app


def test_compile_lists_grounded_members_and_exports_say_so(tmp_path: Path) -> None:
    runner = CliRunner()
    app = app_with(grammar_cmds)
    got = runner.invoke(app, ["compile", CONTACT, "--format", "json"])
    assert got.exit_code == 0, got.output
    pointers = [g["pointer"] for g in json.loads(got.stdout)["grounded"]]
    assert pointers == ["/properties/name", "/properties/city", "/properties/age", "/properties/email"]
    human = runner.invoke(app, ["compile", CONTACT])
    assert "grounded: /properties/age takes an integer written in the source" in human.stderr
    exported = runner.invoke(app, ["compile", CONTACT, "--target", "gbnf"])
    assert exported.exit_code == 0, exported.output
    assert "x-grounded members (/properties/name" in exported.stderr
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "string"}}}))
    ground = runner.invoke(app, ["compile", str(plain), "--ground", "--format", "json"])
    assert [g["pointer"] for g in json.loads(ground.stdout)["grounded"]] == ["/properties/a"]


def test_lint_warns_on_an_empty_source(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("\n")
    app = app_with(lint_cmd)

    @app.command("other")
    def _other() -> None:  # a second command keeps `lint` a named subcommand
        pass

    got = CliRunner().invoke(app, ["lint", CONTACT, "--source", str(empty), "--format", "json"])
    assert "grounded/empty-source" in got.stdout


def test_extract_grounds_each_row_in_its_source(tmp_path: Path) -> None:
    rows = tmp_path / "in.jsonl"
    rows.write_text(
        json.dumps({"id": "1", "text": "Maria Lopez, 34, Seville"})
        + "\n"
        + json.dumps(
            {"id": "2", "prompt": "Contact: Tom Becker from Hamburg", "source": "Tom Becker, Hamburg"}
        )
        + "\n",
        encoding="utf-8",
    )
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {
                    "match": "Maria",
                    "outputs": [{"text": '{"name":"Maria Lopez","city":"Seville","age":34,"email":null}'}],
                },
                {
                    "match": "Tom",
                    "outputs": [{"text": '{"name":"Tom Becker","city":"Hamburg","age":null,"email":null}'}],
                },
            ]
        )
    )
    out = tmp_path / "out.jsonl"
    app = app_with(pipeline_cmds)
    got = CliRunner().invoke(
        app,
        [
            "extract",
            "--schema",
            CONTACT,
            "--input",
            str(rows),
            "--output",
            str(out),
            "--backend",
            f"scripted:{script}",
        ],
    )
    assert got.exit_code == 0, got.output
    results = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    spans = {r["id"]: {g["pointer"]: (g["start"], g["end"]) for g in r["grounded"]} for r in results}
    assert spans["1"] == {"/name": (0, 11), "/city": (17, 24), "/age": (13, 15)}
    assert spans["2"] == {"/name": (0, 10), "/city": (12, 19)}


def test_generate_lists_each_grounded_value_with_its_line_and_column() -> None:
    from gramwright.cli.render.generate import grounded_line
    from gramwright.positions import LineIndex
    from gramwright.schema.grounding import grounded_values

    schema = json.loads(Path(CONTACT).read_text(encoding="utf-8"))
    source = "From: Maria Lopez\nAge 34, Seville (Seville office)\n"
    value = {"name": "Maria Lopez", "city": "Seville", "age": 34, "email": "maria@x"}
    index = LineIndex(source)
    lines = [grounded_line(g, index) for g in grounded_values(value, schema, source)]
    assert lines == [
        "grounded /name: 'Maria Lopez' at characters 6-17 of the source (line 1, column 7)",
        "grounded /city: 'Seville' at characters 26-33 of the source (line 2, column 9), the first of 2",
        "grounded /age: 34 at characters 22-24 of the source (line 2, column 5)",
        "grounded /email: 'maria@x' NOT in the source",
    ]


def test_extract_grounds_prompt_rows_in_their_prompt(tmp_path: Path) -> None:
    """Rows ``{id, prompt}`` (no ``text``, no ``source``): the prompt is the text the grounded
    values come from, so a value it never says is not accepted as grounded (it was: every
    grounded member took any value, and the row was ``ok`` with no grounded spans)."""
    rows = tmp_path / "in.jsonl"
    rows.write_text(
        json.dumps({"id": "said", "prompt": "Contact: Maria Lopez, 34, Seville"})
        + "\n"
        + json.dumps({"id": "invented", "prompt": "Contact: Tom Becker from Hamburg"})
        + "\n",
        encoding="utf-8",
    )
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {
                    "match": "Maria",
                    "outputs": [{"text": '{"name":"Maria Lopez","city":"Seville","age":34,"email":null}'}],
                },
                {
                    # "100.00" and 51 are nowhere in the prompt
                    "match": "Tom",
                    "outputs": [{"text": '{"name":"100.00","city":"Hamburg","age":51,"email":null}'}],
                },
            ]
        )
    )
    out = tmp_path / "out.jsonl"
    got = CliRunner().invoke(
        app_with(pipeline_cmds),
        [
            "extract",
            "--schema",
            CONTACT,
            "--input",
            str(rows),
            "--output",
            str(out),
            "--backend",
            f"scripted:{script}",
        ],
    )
    results = {r["id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    said = results["said"]
    assert said["status"] == "ok", said
    spans = {g["pointer"]: (g["start"], g["end"]) for g in said["grounded"]}
    assert spans == {"/name": (9, 20), "/city": (26, 33), "/age": (22, 24)}
    invented = results["invented"]
    assert invented["status"] != "ok", invented
    assert invented.get("value") is None or invented["value"].get("name") != "100.00", invented
    assert got.exit_code == 1, got.output


@pytest.mark.model
def test_extract_on_the_embedded_model_grounds_prompt_rows_in_the_prompt(tmp_path: Path) -> None:
    """The real model under the grounded masks: every grounded value of a prompt row is copied
    from that prompt (its span is listed and holds it)."""
    prompts = {"1": "Contact: Maria Lopez, 34, Seville", "2": "Write to Tom Becker in Hamburg."}
    rows = tmp_path / "in.jsonl"
    rows.write_text("".join(json.dumps({"id": k, "prompt": v}) + "\n" for k, v in prompts.items()))
    out = tmp_path / "out.jsonl"
    got = CliRunner().invoke(
        app_with(pipeline_cmds),
        ["extract", "--schema", CONTACT, "--input", str(rows), "--output", str(out), "--max-tokens", "80"],
    )
    assert got.exit_code in (0, 1), got.output
    results = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {r["id"] for r in results} == set(prompts)
    for r in results:
        prompt = prompts[r["id"]]
        if r["value"] is None:
            assert r["status"] == "failed" and r["errors"], r
            continue
        assert r["grounded"], r  # the name is required and grounded: at least it is listed
        for g in r["grounded"]:
            assert g["start"] is not None, (r["id"], g)
            assert prompt[g["start"] : g["end"]] == str(g["value"]), (r["id"], g)
