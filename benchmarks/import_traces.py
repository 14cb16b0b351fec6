"""Importing production traffic: `promptum import traces` of 100,000 OpenTelemetry GenAI spans.

Generates, in a temporary folder, an OTLP JSON export as the OpenTelemetry Collector's file
exporter writes it (one `ExportTraceServiceRequest` per line, ``--per-line`` spans each) of
``--spans`` chat spans (default 100,000) under the current GenAI conventions: a system
instruction, one to three turns (every fourth a tool call answered), an answer that is text or
a tool call, four models, two tools, one request in ten a repeat of an earlier one, one in
twenty holding an API key and an e-mail address; beside each chat span an HTTP span that is
passed over. Each run imports it in a fresh process, as a user does (reads, deduplicates,
samples, masks, writes the suite and loads it as `promptum validate` does), twice: `sample`
keeps ``--sample`` cases (default 1,000) in a YAML suite, `whole` keeps every distinct request
as JSON lines (`--rows`). Each reports wall time, CPU time and the process's peak memory
(its maximum resident set size).

Beside it, in the same run, the floor: a process that only reads the file and parses each
line as JSON. The ratio import / floor is the importer's own cost over reading the input.

Targets (issue 39): 100,000 spans in <= 30 s and <= 300 MB. Other load on the shared machine
only adds time, so the best of the repeats is the figure.

Run: .venv/bin/python benchmarks/import_traces.py [--spans 100000] [--sample 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 30.0
TARGET_MB = 300.0
MODELS = ["gpt-4o-mini", "gpt-4o", "claude-3-5-haiku-latest", "gemini-2.0-flash"]
TOOLS = [
    {"type": "function", "name": "get_weather", "parameters": {"type": "object"}},
    {"type": "function", "name": "find_order", "parameters": {"type": "object"}},
]

# A child process's peak memory and CPU time, measured by the child itself.
MEASURED = """
import resource, runpy, sys
kind, sys.argv = sys.argv[1], sys.argv[2:]
try:
    if kind == "module":
        runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
    else:
        runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit as exc:
    code = exc.code
else:
    code = 0
usage = resource.getrusage(resource.RUSAGE_SELF)
cpu = usage.ru_utime + usage.ru_stime
print(f"MEASURED {usage.ru_maxrss / 1024:.1f} {cpu:.2f}", file=sys.stderr)
sys.exit(code)
"""
FLOOR = """
import json, sys
with open(sys.argv[1], "rb") as file:
    for line in file:
        json.loads(line)
"""


def _attribute(key: str, value: Any) -> dict[str, Any]:
    return {
        "key": key,
        "value": {"stringValue": value if isinstance(value, str) else json.dumps(value)},
    }


def _chat(n: int) -> dict[str, Any]:
    """The n-th chat span; every tenth repeats the request of span n - 7."""
    asked = n - 7 if n % 10 == 9 else n
    question = f"Where is order {asked}? It was due on day {asked % 28 + 1}."
    if asked % 20 == 3:
        question += " My key is sk-proj-a1B2c3D4e5F6g7H8i9J0k1 and I am ada@example.com."
    turns = [{"role": "user", "parts": [{"type": "text", "content": question}]}]
    if asked % 4 == 1:
        call = {
            "type": "tool_call",
            "id": f"call_{asked}",
            "name": "find_order",
            "arguments": {"id": asked},
        }
        turns += [
            {"role": "assistant", "parts": [call]},
            {
                "role": "tool",
                "parts": [
                    {
                        "type": "tool_call_response",
                        "id": f"call_{asked}",
                        "response": {"status": "shipped"},
                    }
                ],
            },
        ]
    if n % 3 == 0:
        answer = [
            {
                "type": "tool_call",
                "id": f"call_w{n}",
                "name": "get_weather",
                "arguments": {"city": "Paris"},
            }
        ]
    else:
        answer = [
            {
                "type": "text",
                "content": f"Order {asked} shipped yesterday; it arrives on day {asked % 28 + 3}.",
            }
        ]
    attributes = [
        _attribute("gen_ai.operation.name", "chat"),
        _attribute("gen_ai.provider.name", "openai"),
        _attribute("gen_ai.request.model", MODELS[n % len(MODELS)]),
        _attribute(
            "gen_ai.system_instructions",
            [{"type": "text", "content": "You are Acme's support assistant."}],
        ),
        _attribute("gen_ai.input.messages", turns),
        _attribute(
            "gen_ai.output.messages",
            [{"role": "assistant", "parts": answer, "finish_reason": "stop"}],
        ),
        _attribute("gen_ai.tool.definitions", TOOLS),
        {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "120"}},
    ]
    return {
        "traceId": f"{n:032x}",
        "spanId": f"{n:016x}",
        "name": "chat",
        "kind": 3,
        "attributes": attributes,
    }


def _http(n: int) -> dict[str, Any]:
    return {
        "traceId": f"{n:032x}",
        "spanId": f"{n + 1:016x}",
        "name": "POST /support",
        "attributes": [_attribute("http.request.method", "POST")],
    }


def write_export(path: Path, spans: int, per_line: int) -> None:
    """An OTLP JSON export of `spans` chat spans (and as many HTTP spans), `per_line` a line."""
    with path.open("w", encoding="utf-8") as file:
        for start in range(0, spans, per_line):
            batch = [
                span
                for n in range(start, min(start + per_line, spans))
                for span in (_chat(n), _http(n))
            ]
            request = {
                "resourceSpans": [{"scopeSpans": [{"scope": {"name": "bench"}, "spans": batch}]}]
            }
            file.write(json.dumps(request) + "\n")


def _run(args: list[str]) -> tuple[float, float, float, str]:
    """Wall seconds, peak MB and CPU seconds of `python -c MEASURED args`, and its output."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    peak, cpu = done.stderr.strip().splitlines()[-1].split()[1:]
    return wall, float(peak), float(cpu), done.stdout


def main() -> None:
    """Generate the export, then time the floor and the import side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--per-line", type=int, default=100)
    parser.add_argument("--sample", type=int, default=1000, help="the sampled import's N")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        export = Path(folder) / "export.jsonl"
        write_export(export, options.spans, options.per_line)
        print(
            f"export: {options.spans:,} chat spans + {options.spans:,} HTTP spans, "
            f"{export.stat().st_size / 2**20:.0f} MiB; load average {os.getloadavg()[0]:.2f}"
        )
        floor_file = Path(folder) / "floor.py"
        floor_file.write_text(FLOOR)
        importing = ["module", "promptum", "import", "traces", str(export), "--force", "-o"]
        runs = {
            "floor": ["path", str(floor_file), str(export)],
            "sample": [*importing, f"{folder}/sample.yaml", "--sample", str(options.sample)],
            "whole": [*importing, f"{folder}/whole.yaml", "--rows"],
        }
        best: dict[str, tuple[float, float, float]] = {}
        for _ in range(options.repeat):
            for name, args in runs.items():
                wall, peak, cpu, out = _run(args)
                print(f"{name:>6}: {wall:6.2f} s wall, {cpu:6.2f} s CPU, peak {peak:6.1f} MB")
                if name != "floor":
                    print("        " + out.strip().splitlines()[0])
                if name not in best or wall < best[name][0]:
                    best[name] = (wall, peak, cpu)
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; best of each:")
        for name in ("sample", "whole"):
            wall, peak, cpu = best[name]
            met = [
                f"wall {'met' if wall <= TARGET_S else 'NOT met'}",
                f"CPU {'met' if cpu <= TARGET_S else 'NOT met'}",
                f"memory {'met' if peak <= TARGET_MB else 'NOT met'}",
            ]
            print(
                f"{name:>6}: {wall:.2f} s wall ({wall / best['floor'][0]:.1f}x the JSON-parse "
                f"floor), {cpu:.2f} s CPU, peak {peak:.0f} MB; <= {TARGET_S:.0f} s and "
                f"<= {TARGET_MB:.0f} MB: {', '.join(met)}"
            )


if __name__ == "__main__":
    main()
