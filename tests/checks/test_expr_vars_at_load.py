"""A `vars.x` the case does not define, read by an `expr` check or a transform anywhere in
a case (its checks, a conversation's turns, its `conversation:` checks, a simulated user's
`stop:` checks), is a located load error reported with the suite's other problems: never an
error grade found when the run reaches it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main

SUITE = """\
models: [openai/gpt-4o-mini]
vars: {topic: rome}
test_cases:
  - id: talk
    turns:
      - query: hi
        checks:
          - {type: expr, value: "vars.topc in output"}
      - query: and then?
        checks:
          - {type: contains, value: a, transform: "output ~ vars.tone"}
    conversation:
      checks:
        - {type: expr, value: "vars.limit > 3"}
  - id: simulated
    simulate:
      model: openai/gpt-4o-mini
      goal: Learn about {{ topic }}.
      max_turns: 2
      stop: [{type: expr, value: "vars.stop_word in output"}]
  - id: plain
    query: hi
    checks:
      - {type: expr, value: "vars.topik == 'rome'"}
  - id: misspelt
    query: hi
    checks:
      - {type: contanis, value: x}
  - id: optional
    query: hi
    checks:
      - {type: expr, value: "vars.limit | default(3) == 3 and vars.tone is not defined"}
"""

PROBLEMS = [
    "suite.yaml:8:26: test_cases[0].turns[0].checks[0].value: `vars.topc` is not defined for "
    "this case. Did you mean 'vars.topic'? Define it under `vars` (defined here: topic)",
    "suite.yaml:11:40: test_cases[0].turns[1].checks[0].transform: `vars.tone` is not defined",
    "suite.yaml:14:24: test_cases[0].conversation.checks[0].value: `vars.limit` is not defined",
    "suite.yaml:20:27: test_cases[1].simulate.stop[0].value: `vars.stop_word` is not defined",
    "suite.yaml:24:22: test_cases[2].checks[0].value: `vars.topik` is not defined for this case. "
    "Did you mean 'vars.topic'?",
    "suite.yaml:28:9: test_cases[3].checks[0]: unknown check type 'contanis'",
]


@pytest.mark.parametrize("command", ["validate", "run"])
def test_undefined_vars_are_load_errors_beside_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PROMPTUM_DB", str(tmp_path / "runs.db"))
    Path("suite.yaml").write_text(textwrap.dedent(SUITE), encoding="utf-8")

    result = CliRunner().invoke(main, [command, "suite.yaml"])

    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.output.splitlines()
    for problem in PROBLEMS:
        assert any(line.startswith(problem) for line in lines), (problem, result.output)
    assert "6 problems found" in result.output  # none for the case that only probes its vars
