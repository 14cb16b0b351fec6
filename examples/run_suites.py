"""Suites run from Python as `promptum run` runs them: selected, recorded, reported, gated.

Run: .venv/bin/python examples/run_suites.py   (the embedded model, no API key)
"""

from pathlib import Path

from promptum.store import RunStore
from promptum.suite_run import RunSettings, run_suites
from promptum.suites import suite_from_data

HERE = Path(__file__).parent

# A suite given as data (a generated one, say): loaded as the file `smoke.yaml` beside the
# examples would be, though no such file exists.
smoke = suite_from_data(
    {
        "models": ["local/smollm2"],
        "defaults": {"params": {"temperature": 0, "max_tokens": 32}},
        "test_cases": [
            {
                "id": "arithmetic",
                "query": "What is 2+2?",
                "checks": [{"type": "regex", "value": r"\b4\b"}],
            },
        ],
    },
    HERE / "smoke.yaml",
)

settings = RunSettings(
    patterns=["capitals/france", "capitals/japan", "smoke/*"],  # what -k does
    fail_under=0.5,
    outputs=[Path("report.html"), Path("results.jsonl")],
)
store = RunStore("runs.sqlite")  # the run history `promptum runs` and `compare` read
outcome = run_suites([HERE / "capitals.yaml", smoke], settings, store=store)

# With a store the results streamed there: the run keeps their figures, the store the rest.
for result in store.iter_results(outcome.run.run_id):
    print(f"{result.status.upper():5} {result.key}: {result.completion.text!r}")
for written in [*outcome.reports, *outcome.recorded]:
    print(written.problem or written.line)
print(outcome.gate.line)
