"""YAML aliases cannot blow a small suite up into gigabytes, nor nesting overflow the stack.

The check runs on PyYAML's node graph, where an alias is one more reference to its
anchor's node, before the document is built or walked.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.suites import _yaml_reader, load_suite
from tests.support.cli import write
from tests.support.suites import load_error

# Seven levels of nine aliases: 418 bytes that expand to 9**7 (4.8 million) strings.
BILLION_LAUGHS = """\
a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
test_cases:
  - id: lol
    query: hi
    vars: {laughs: *g}
"""

MEMORY_CAP = 1 << 30  # the unchecked loader needs ~1.7 GB for this file


# `promptum validate`, reporting its own peak memory (VmHWM of the process after exec) on
# stderr when it exits: the child's rusage would also count the test process's memory,
# which it shares until it execs.
VALIDATE_AND_REPORT_PEAK = """\
import atexit, sys
from promptum.cli import main
def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            sys.stderr.write(f"PEAK_KB={line.split()[1]}\\n")
atexit.register(peak)
main(["validate", sys.argv[1]])
"""


def _capped() -> None:
    # A safety net, so that a regression fails this test instead of the machine.
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    resource.setrlimit(resource.RLIMIT_CPU, (120, 120))


def test_billion_laughs_is_refused_located_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(BILLION_LAUGHS, encoding="utf-8")
    assert len(path.read_bytes()) < 500

    done = subprocess.run(
        [sys.executable, "-c", VALIDATE_AND_REPORT_PEAK, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_capped,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "Traceback" not in output
    assert done.stderr.startswith(f"✗ {path}:7:4: g: through its aliases (`*name`), this value ")
    assert "more than 1,000,000 values beyond those written in the file" in output
    peak = int(output.split("PEAK_KB=")[1].split()[0])
    assert peak < 300_000  # kilobytes: about what `promptum validate` needs anyway


def test_the_alias_limit_counts_values_repeated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_yaml_reader, "MAX_ALIAS_VALUES", 20)
    path = write(
        tmp_path / "suite.yaml",
        """\
        test_cases:
          - id: a
            query: hi
            vars:
              one: &one [x, x, x]
              two: &two [*one, *one, *one]
              three: [*two, *two, *two, *two, *two]
        """,
    )
    message = load_error(path)
    assert message.startswith(f"{path}:7:14: test_cases[0].vars.three: through its aliases")
    assert "more than 20 values beyond" in message


def test_the_alias_limit_counts_text_repeated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_yaml_reader, "MAX_ALIAS_CHARACTERS", 1000)
    long_text = "y" * 300
    path = write(
        tmp_path / "suite.yaml",
        f"""\
        test_cases:
          - id: a
            query: hi
            vars: {{text: &t {long_text}, copies: [*t, *t, *t, *t]}}
        """,
    )
    message = load_error(path)
    assert message.startswith(f"{path}:4:11: test_cases[0].vars: through its aliases")
    assert "more than 1,000 characters beyond" in message


def test_anchors_aliases_and_merge_keys_still_work(tmp_path: Path) -> None:
    shared = "".join(
        f"  - {{<<: *base, id: case-{i}, query: 'Question {i}'}}\n" for i in range(2000)
    )
    path = tmp_path / "suite.yaml"
    path.write_text(
        "test_cases:\n"
        "  - &base\n"
        "    id: first\n"
        "    query: Hello\n"
        "    params: &params {temperature: 0, max_tokens: 20}\n"
        "    checks: &checks\n"
        "      - {type: contains, value: hello, case_insensitive: true}\n"
        "      - {type: max_length, value: 200}\n"
        "  - {id: second, query: Hi, params: *params, checks: *checks}\n" + shared,
        encoding="utf-8",
    )
    suite = load_suite(path)
    assert len(suite.cases) == 2002
    last = suite.cases[-1]
    assert last.id == "case-1999"
    assert last.messages[-1].content == "Question 1999"
    assert [check.type for check in last.grading.checks] == ["contains", "max_length"]
    assert last.params.max_tokens == 20
    assert suite.cases[1].grading.checks == suite.cases[0].grading.checks


def test_deep_nesting_is_refused_located(tmp_path: Path) -> None:
    nested = "[" * 150 + "]" * 150
    path = write(
        tmp_path / "suite.yaml",
        f"test_cases:\n  - id: a\n    query: hi\n    vars: {{x: {nested}}}\n",
    )
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert f"{path}:4:" in result.output
    assert ": test_cases[0].vars.x[0][0][0][0]...: values are nested more than 100 levels" in (
        result.output
    )


def test_each_aliased_node_is_located_once(tmp_path: Path) -> None:
    # Locating every expansion of every alias costs memory in proportion to the expanded
    # document (a deep one reached 846 MB from 449 bytes): an aliased node is walked once.
    keys = ", ".join(f"k{i}: {i}" for i in range(50))
    aliases = ", ".join(["*b"] * 200)
    path = write(tmp_path / "suite.yaml", f"base: &b {{{keys}}}\nmany: [{aliases}]\n")
    _, locator = _yaml_reader.read_yaml(path)
    assert len(locator.positions) < 500  # 10,000 expanded values
    assert locator.at(("many", 150, "k7")).startswith(f"{path}:1:")  # the anchored node
