"""`promptum run DIR`, namespaced ids in every output, `--prompt`, comparing variants."""

from __future__ import annotations

import csv
import json
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path

from promptum.reporting import load_run
from promptum.store import RunStore
from tests.support.cli import invoke, write
from tests.support.fault_server import FaultServer


def two_suites_sharing_an_id() -> None:
    check = "checks: [{type: contains, value: nowhere}]"
    write(
        "prompts/geo.yaml",
        f"models: [fault/m]\ntest_cases:\n  - {{id: capital, query: q, {check}}}\n",
    )
    graded = "checks: [{type: min_length, value: 1}]"
    write(
        "prompts/more/hist.yaml",
        f"models: [fault/m]\ntest_cases:\n  - {{id: capital, query: r, {graded}}}\n",
    )
    write("prompts/notes.yml", "title: not a suite\n")


def test_run_dir_namespaces_ids_in_every_output(server: FaultServer) -> None:
    two_suites_sharing_an_id()
    outputs = ["r.json", "r.jsonl", "r.csv", "r.xml", "r.md", "r.html"]
    result = invoke("run", "prompts", "-c", "1", *(arg for o in outputs for arg in ("-o", o)))
    assert result.exit_code == 1, result.output
    out = result.output
    assert "Suites: prompts/geo.yaml, prompts/more/hist.yaml" in out
    assert "skipped prompts/notes.yml: not a suite: no `test_cases` or `cases_from`" in out
    assert "PASS more/hist/capital" in out  # named by its path in the folder run
    assert "FAIL geo/capital" in out

    run = load_run(Path("r.json"))
    assert [(r.suite, r.case_id, r.repeat) for r in run.results] == [
        ("geo", "capital", 1),
        ("more/hist", "capital", 1),
    ]
    lines = [json.loads(line) for line in Path("r.jsonl").read_text().splitlines()]
    assert sorted((line["suite"], line["case_id"]) for line in lines) == [
        ("geo", "capital"),
        ("more/hist", "capital"),
    ]
    with Path("r.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["case_id"], r["repeat"]) for r in rows] == [
        ("geo/capital", "1"),
        ("more/hist/capital", "1"),
    ]
    names = [case.get("name") for case in ET.parse("r.xml").iter("testcase")]
    assert names == ["geo/capital", "more/hist/capital"]
    assert "**geo/capital** on fault/m" in Path("r.md").read_text()
    html = Path("r.html").read_text()
    assert "geo/capital" in html
    assert "more/hist/capital" in html

    stored = RunStore().load("latest")
    assert sorted(r.key for r in stored.results) == ["geo/capital", "more/hist/capital"]
    with sqlite3.connect(".promptum/runs.sqlite") as connection:
        keys = sorted(connection.execute("SELECT suite, case_id, variant, repeat FROM results"))
    assert keys == [("geo", "capital", "", 1), ("more/hist", "capital", "", 1)]
    history = RunStore().case_history("more/hist/capital")
    assert [e.result.key for e in history] == ["more/hist/capital"]


def test_validate_dir_lists_what_it_checked_and_skipped(server: FaultServer) -> None:
    two_suites_sharing_an_id()
    result = invoke("validate", "prompts")
    assert result.exit_code == 0, result.output
    assert "- prompts/notes.yml: skipped, not a suite" in result.output
    assert "✓ prompts/geo.yaml: 1 case," in result.output
    assert "✓ prompts/more/hist.yaml: 1 case," in result.output


VARIANTS = """\
    name: geo
    models: [fault/m]
    prompts:
      short: "{{ query }}"
      long: "Please answer carefully: {{ query }}"
    defaults:
      checks: [{type: min_length, value: 1}]
    test_cases:
      - {id: france, query: Capital of France?}
      - {id: japan, query: Capital of Japan?}
"""


def test_prompt_selects_variants_and_every_output_carries_them(server: FaultServer) -> None:
    write("geo.yaml", VARIANTS)
    result = invoke(
        "run", "geo.yaml", "-c", "1", "-o", "all.json", "-o", "all.csv", "-o", "all.html"
    )
    assert result.exit_code == 0, result.output
    run = load_run(Path("all.json"))
    assert [(r.case_id, r.variant) for r in run.results] == [
        ("france", "short"),
        ("france", "long"),
        ("japan", "short"),
        ("japan", "long"),
    ]
    assert list(run.stats()) == ["fault/m · short", "fault/m · long"]
    assert run.config["prompts"]["geo"].keys() == {"short", "long"}
    assert "Prompt variants on fault/m: short and long tie at 100%" in result.output
    html = Path("all.html").read_text()
    assert "fault/m · short" in html
    assert "Prompt variants on fault/m: short and long tie at 100%" in html
    with Path("all.csv").open(newline="") as handle:
        assert [r["variant"] for r in csv.DictReader(handle)] == ["short", "long"] * 2

    server.requests.clear()
    picked = invoke("run", "geo.yaml", "--prompt", "long", "-o", "long.json", "--no-cache")
    assert picked.exit_code == 0, picked.output
    sent = sorted(r.body["messages"][-1]["content"] for r in server.requests)
    assert sent == [
        "Please answer carefully: Capital of France?",
        "Please answer carefully: Capital of Japan?",
    ]
    assert {r.variant for r in load_run(Path("long.json")).results} == {"long"}
    assert "Running 2 results" in picked.output

    unknown = invoke("run", "geo.yaml", "--prompt", "medium")
    assert unknown.exit_code == 2
    assert "--prompt 'medium': no suite has this variant" in unknown.output
    assert "Variants: short, long." in unknown.output


def test_compare_two_variants_of_one_run_and_a_changed_prompt(server: FaultServer) -> None:
    write("geo.yaml", VARIANTS)
    assert invoke("run", "geo.yaml").exit_code == 0
    compared = invoke("compare", "latest", "--variant-a", "short", "--variant-b", "long", "--json")
    assert compared.exit_code == 0, compared.output
    (pair,) = json.loads(compared.stdout)["pairs"]
    assert (pair["a"]["column"], pair["b"]["column"]) == ("fault/m · short", "fault/m · long")
    assert (pair["a"]["model"], pair["a"]["variant"]) == ("fault/m", "short")
    assert pair["shared"] == 2

    write("geo.yaml", VARIANTS.replace("Please answer carefully", "Answer"))
    assert invoke("run", "geo.yaml").exit_code == 0
    across = invoke("compare", "latest~1", "latest")
    assert across.exit_code == 0, across.output
    assert "prompt geo · long changed (" in across.output
    assert "prompt geo · short" not in across.output
    changes = json.loads(invoke("compare", "latest~1", "latest", "--json").stdout)
    assert [c.split(" (")[0] for c in changes["prompt_changes"]] == ["prompt geo · long changed"]
