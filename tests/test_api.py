"""The public API: ``import gramwright``, the docs/api.md examples, the compiled source's ``$ref``
registry, BOM schemas, and a wheel that installs and runs outside the checkout."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

import gramwright

ROOT = Path(__file__).resolve().parent.parent
API_DOC = ROOT / "docs" / "api.md"


def _python_blocks(markdown: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", markdown, flags=re.S)


def _run(code: str, cwd: Path = ROOT, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def test_help_shows_the_api() -> None:
    out = _run("import gramwright; help(gramwright)")
    assert out.returncode == 0, out.stderr
    for name in ("compile_source", "check_document", "lint_schema", "generate_structured", "GramwrightError"):
        assert name in out.stdout
    assert set(gramwright.__all__) <= set(dir(gramwright))


def test_the_first_api_doc_example_runs() -> None:
    first = _python_blocks(API_DOC.read_text(encoding="utf-8"))[0]
    out = _run(first)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("schema ")
    assert "True" in lines and any(line.startswith("False rejected") for line in lines)
    assert lines[-1].startswith("no such file (no-such-schema.json) — ")


def test_the_validation_doc_example_runs() -> None:
    block = next(b for b in _python_blocks(API_DOC.read_text(encoding="utf-8")) if "validate_output" in b)
    out = _run("import gramwright\n" + block)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("False [{'pointer': '', 'keyword': 'required'")


@pytest.mark.model
def test_the_generation_doc_example_runs() -> None:
    block = next(b for b in _python_blocks(API_DOC.read_text(encoding="utf-8")) if "generate_structured" in b)
    out = _run(block, timeout=600)
    assert out.returncode == 0, out.stderr
    finish, tokens = out.stdout.splitlines()[0].split()
    assert finish in ("stop", "length") and int(tokens) > 0


def _sibling_ref_schema(tmp_path: Path) -> Path:
    (tmp_path / "defs").mkdir()
    (tmp_path / "defs" / "item.json").write_text(
        json.dumps(
            {
                "type": "object",
                "required": ["name", "qty"],
                "properties": {
                    "name": {"type": "string", "maxLength": 8},
                    "qty": {"type": "integer", "minimum": 1},
                },
            }
        ),
        encoding="utf-8",
    )
    main = tmp_path / "order.json"
    main.write_text(
        json.dumps(
            {
                "type": "object",
                "required": ["items"],
                "properties": {
                    "items": {"type": "array", "minItems": 1, "items": {"$ref": "defs/item.json"}}
                },
            }
        ),
        encoding="utf-8",
    )
    return main


def test_a_sibling_file_ref_compiles_checks_and_validates(tmp_path: Path) -> None:
    main = _sibling_ref_schema(tmp_path)
    source = gramwright.compile_source(main)
    assert source.registry is not None
    good = '{"items":[{"name":"pen","qty":2}]}'
    assert gramwright.check_document(source, good).accepted
    assert not gramwright.check_document(source, '{"items":[{"name":"pen","qty":0}]}').accepted
    # validation resolves the $ref through the compile's registry (it raised Unresolvable before)
    ok = gramwright.validate_output(good, source.schema, registry=source.registry)
    assert ok.valid, ok.errors
    bad = gramwright.validate_output(
        '{"items":[{"name":"pen","qty":0}]}', source.schema, registry=source.registry
    )
    assert not bad.valid and bad.issues[0].pointer == "/items/0/qty" and bad.issues[0].keyword == "minimum"


@pytest.mark.model
def test_a_sibling_file_ref_generates_and_validates(tmp_path: Path) -> None:
    main = _sibling_ref_schema(tmp_path)
    result = gramwright.generate_structured(
        main, "One pen.", sampling=gramwright.SamplingOptions(max_tokens=60)
    )
    assert result.validation is not None
    out = result.to_dict()  # what `generate --format json` prints
    assert out["token_ids"] == result.token_ids and len(out["token_ids"]) in (
        result.tokens,
        result.tokens - 1,
    )
    assert (
        out["metrics"]["engine_ms"] > 0
    )  # the engine (and the tokenizer's tables) built before the first mask
    if result.finish_reason == "stop":
        # the mask enforced the $ref'd item schema, so the value validates through the registry
        assert result.validation.valid, (result.text, result.validation.errors)
    else:
        assert result.validation.truncated


def test_a_bom_schema_works_through_the_api(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"type": "integer", "maximum": 9}).encode())
    source = gramwright.compile_source(path)
    assert gramwright.check_document(source, "7").accepted
    assert not gramwright.check_document(source, "12").accepted
    report = gramwright.lint_schema(path)
    assert report.file == str(path)


@pytest.mark.parametrize("command", [["compile"], ["check"], ["lint"]])
def test_a_bom_schema_works_in_every_command(tmp_path: Path, command: list[str]) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"type": "integer", "maximum": 9}).encode())
    doc = tmp_path / "doc.json"
    doc.write_text("7", encoding="utf-8")
    args = [*command, str(path)] + ([str(doc)] if command == ["check"] else [])
    out = subprocess.run(
        [sys.executable, "-m", "gramwright.cli.main", *args], capture_output=True, text=True, timeout=120
    )
    assert out.returncode in (0, 1), out.stderr  # lint may report findings (exit 1), never a usage error
    assert "Traceback" not in out.stderr and "error:" not in out.stderr


def test_a_wheel_installs_and_runs_in_a_fresh_virtualenv(tmp_path: Path) -> None:
    """The wheel (not the editable tree) carries the package, its data and the console script."""
    wheels = tmp_path / "wheels"
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheels),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert build.returncode == 0, build.stderr
    (wheel,) = wheels.glob("gramwright-*.whl")
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # the dependencies (torch, transformers, …) come from this environment, after the wheel's own
    # files, so the gramwright that imports is the one the wheel installed
    deps = [p for p in sys.path if p.endswith("site-packages")]
    (site / "zz-deps.pth").write_text("\n".join(deps) + "\n", encoding="utf-8")
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "-q",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stderr
    probe = subprocess.run(
        [
            str(python),
            "-c",
            "import gramwright, gramwright.editors, gramwright.grammars\n"
            "from gramwright.grammar.bundled import bundled_names\n"
            "from gramwright.lint import available_profiles\n"
            "print(gramwright.__file__); print(bundled_names()); print(len(available_profiles()) > 0)",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert probe.returncode == 0, probe.stderr
    where, names, profiles = probe.stdout.splitlines()
    assert where.startswith(str(site)), where
    assert "json" in names and profiles == "True"
    script = env_dir / "bin" / "gramwright"
    helped = subprocess.run(
        [str(script), "--help"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert helped.returncode == 0 and "compile" in helped.stdout, helped.stderr
    compiled = subprocess.run(
        [str(script), "compile", "json"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert compiled.returncode == 0 and compiled.stdout.startswith("root ::="), compiled.stderr
