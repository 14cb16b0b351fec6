"""A suite template reading {{ context }} that cases do not give: one problem, the right fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptum.suites import load_suite
from tests.suites.suite_problems import problems
from tests.support.cli import write

_CASES = """\
test_cases:
  - {id: a, query: What is the refund window?, checks: [{type: contains, value: days}]}
  - {id: b, query: Do you ship abroad?, checks: [{type: contains, value: ship}]}
  - {id: c, query: Can I pay by card?, checks: [{type: contains, value: card}]}
"""


def test_a_system_prompt_reading_context_no_case_gives_is_one_problem(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        "system: |\n  Answer from these documents:\n  {{ context }}\n" + _CASES,
    )
    found = problems(path)
    assert len(found) == 1, found
    assert found[0].startswith(
        f"{path}:1:1: system: reads {{{{ context }}}}, but 3 cases give no `context` "
        f"({path}:5, {path}:6, {path}:7): give the cases `context:`"
    )
    assert "`defaults: {context: ...}`" in found[0]
    assert "not a var" in found[0]
    assert "under `vars`" not in found[0]


@pytest.mark.parametrize(
    ("system", "places"),
    [
        ("", ["prompts.grounded"]),
        ("system: 'Documents: {{ context }}'\n", ["system", "prompts.grounded"]),
    ],
)
def test_each_template_reading_context_is_one_problem(
    system: str, places: list[str], tmp_path: Path
) -> None:
    text = (
        "prompts:\n  plain: '{{ query }}'\n  grounded: 'Use {{ context }} to answer {{ query }}'\n"
    )
    path = write(tmp_path / "suite.yaml", system + text + _CASES)
    found = problems(path)
    assert [line.split(": ", 2)[1] for line in found] == places, found
    assert all("but 3 cases give no `context`" in line for line in found)


def test_the_problem_names_the_cases_without_context(tmp_path: Path) -> None:
    text = "defaults:\n  system: 'Documents: {{ context }}'\n" + _CASES.replace(
        "  - {id: b,", "  - {id: b, context: We ship to the EU.,"
    )
    path = write(tmp_path / "suite.yaml", text)
    found = problems(path)
    assert len(found) == 1, found
    assert found[0].startswith(f"{path}:2:3: defaults.system: reads {{{{ context }}}}")
    assert f"2 cases give no `context` ({path}:4, {path}:6)" in found[0]


def test_a_case_template_reading_context_it_lacks_says_to_give_it_context(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """\
        test_cases:
          - id: a
            query: 'Answer from {{ context }}'
            checks: [{type: contains, value: x}]
        """,
    )
    found = problems(path)
    assert len(found) == 1, found
    assert found[0].startswith(f"{path}:3:5: test_cases[0].query: reads {{{{ context }}}}")
    assert "under `vars`" not in found[0]


def test_defaults_context_fills_the_template_for_every_case(tmp_path: Path) -> None:
    text = "system: 'Documents: {{ context }}'\ndefaults:\n  context: Refunds take 14 days.\n"
    suite = load_suite(write(tmp_path / "suite.yaml", text + _CASES))
    assert [case.messages[0].content for case in suite.cases] == [
        "Documents: Refunds take 14 days."
    ] * 3
