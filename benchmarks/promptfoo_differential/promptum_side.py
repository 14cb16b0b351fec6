"""Run one corpus config through ``promptum import promptfoo`` and ``promptum run``."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import yaml
from benchmarks.promptfoo_differential.cells import Verdicts, promptum_verdicts, slug
from click.testing import CliRunner

from promptum.cli import main

JUDGE = "openai/gpt-4o-mini"
"""promptum's judge: the fake server, as promptfoo's default grader is (both via OpenAI)."""


@dataclass(frozen=True)
class PromptumRun:
    """What promptum made of one config: its cells, and what the import said."""

    verdicts: Verdicts
    import_output: str
    imported: bool


def model_env(root_url: str) -> dict[str, str]:
    """Variables pointing both tools' OpenAI and Anthropic clients at the fake server."""
    return {
        "OPENAI_BASE_URL": f"{root_url}/v1",
        "OPENAI_API_KEY": "sk-fake",
        "ANTHROPIC_BASE_URL": root_url,
        "ANTHROPIC_API_KEY": "fake",
    }


def run_promptum(config_dir: Path, root_url: str, work: Path) -> PromptumRun:
    """Import `config_dir`'s promptfooconfig.yaml (in a copy under `work`) and run it."""
    copy = work / config_dir.name
    shutil.copytree(config_dir, copy, dirs_exist_ok=True)
    suite_path = copy / "promptum.yaml"
    runner = CliRunner(env={**model_env(root_url), "PROMPTUM_DB": str(work / "runs.db")})
    config = str(copy / "promptfooconfig.yaml")
    imported = runner.invoke(
        main, ["import", "promptfoo", config, "-o", str(suite_path), "--force"]
    )
    if imported.exit_code != 0 or not suite_path.exists():
        return PromptumRun({}, imported.output, imported=False)
    suite = yaml.safe_load(suite_path.read_text(encoding="utf-8"))
    if any(str(model).startswith("local/") for model in suite.get("models") or []):
        # No provider converted, so the embedded model would answer, not the fake one.
        return PromptumRun({}, imported.output, imported=True)
    report_path = copy / "report.json"
    options = ["--judge", JUDGE, "--no-cache", "--no-store", "-c", "4", "-o", str(report_path)]
    run = runner.invoke(main, ["run", str(suite_path), *options])
    if not report_path.exists():
        return PromptumRun({}, imported.output + run.output, imported=True)
    report = json.loads(report_path.read_text(encoding="utf-8"))
    verdicts = promptum_verdicts(config_dir.name, suite, report, _test_names(copy))
    return PromptumRun(verdicts, imported.output, True)


def _test_names(config_dir: Path) -> list[str]:
    """The cell names of the config's inline tests, in order (a conversation's turns)."""
    config = yaml.safe_load((config_dir / "promptfooconfig.yaml").read_text(encoding="utf-8"))
    tests = config.get("tests") if isinstance(config, dict) else None
    if not isinstance(tests, list):
        return []
    return [
        slug(str(test.get("description") or f"test-{index}"))
        for index, test in enumerate(tests)
        if isinstance(test, dict)
    ]
