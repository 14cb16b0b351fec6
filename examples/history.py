"""Run history from Python: record two runs of a prompt change in a store, then compare them.

Run: .venv/bin/python examples/history.py [STORE]   (the embedded model, no API key)

The store defaults to a fresh file in a temporary folder; pass a path to keep it, then
browse it with `promptum view --db STORE` or `promptum runs list --db STORE`.
"""

import sys
import tempfile
from pathlib import Path

from promptum import Contains, Prompt, Regex, Session
from promptum.compare import compare_runs, comparison_markdown, flaky_cases
from promptum.store import RunStore

store_path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp()) / "runs.sqlite"
store = RunStore(store_path)


def run_with(system: str):
    """One run of the same three questions under a given system prompt, recorded as it goes."""
    session = Session(models=["local/smollm2"])
    common = {"system": system, "temperature": 0, "max_tokens": 32}
    session.add_test(
        Prompt(name="capital", prompt="What is the capital of France?",
               validator=Contains("Paris"), **common)
    )  # fmt: skip
    session.add_test(
        Prompt(name="arithmetic", prompt="What is 2+2?", validator=Regex(r"\b4\b"), **common)
    )
    session.add_test(
        Prompt(name="opposite", prompt="What is the opposite of hot?",
               validator=Contains("cold"), **common)
    )  # fmt: skip
    return session.run(sinks=[store.recorder()])


before = run_with("Answer in one short sentence.")
after = run_with("Answer in one word.")

for summary in store.list_runs():
    print(f"{summary.run_id}  {summary.passed}/{summary.total} passed  ({summary.state})")
print()
print(comparison_markdown(compare_runs(store.load(before.run_id), store.load(after.run_id))))
print(f"flaky cases: {len(flaky_cases(after))}")
print(f"history of 'capital': {[e.result.status for e in store.case_history('capital')]}")
