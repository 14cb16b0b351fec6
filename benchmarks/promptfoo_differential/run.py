"""Differential test: the same promptfoo configs through promptfoo and through promptum.

Every config of ``corpus/`` is imported with ``promptum import promptfoo`` and run with
``promptum run``; promptfoo's verdicts come from ``promptfoo_verdicts.json`` (recorded once
with promptfoo 0.123.1) or, with ``--live``/``--record``, from promptfoo itself. Both tools
call one fake model (fake_server.py) on 127.0.0.1. Agreement is printed per config and every
disagreeing cell with its cause from ``disagreements.json``.

With ``--live`` or ``--record`` promptfoo and its own Node are npm-installed into
``~/.cache/promptum-promptfoo-diff`` (never the repository) and the whole comparison re-runs
itself inside ``unshare -rn``: a network namespace holding only loopback, so no packet leaves.

Run from the repository root:
  .venv/bin/python -m benchmarks.promptfoo_differential.run            # against the fixtures
  .venv/bin/python -m benchmarks.promptfoo_differential.run --live     # against promptfoo
  .venv/bin/python -m benchmarks.promptfoo_differential.run --record   # re-record the fixtures
  add --config NAME (repeatable) to run only some configs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.promptfoo_differential.cells import Verdicts, agree, disagreeing
from benchmarks.promptfoo_differential.fake_server import fake_server, load_answers
from benchmarks.promptfoo_differential.promptfoo_side import (
    PROMPTFOO_VERSION,
    install,
    run_promptfoo,
)
from benchmarks.promptfoo_differential.promptum_side import model_env, run_promptum

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
FIXTURES = HERE / "promptfoo_verdicts.json"
CAUSES = HERE / "disagreements.json"
_INSIDE = "PROMPTFOO_DIFF_NETNS"


def corpus_configs(names: list[str] | None = None) -> list[Path]:
    """The corpus's config folders, by name."""
    found = sorted(p.parent for p in CORPUS.glob("*/promptfooconfig.yaml"))
    return [p for p in found if not names or p.name in names]


def recorded() -> Verdicts:
    """promptfoo's recorded verdicts."""
    loaded: Verdicts = json.loads(FIXTURES.read_text(encoding="utf-8"))["verdicts"]
    return loaded


def known_causes() -> dict[str, str]:
    """Cell -> why promptum disagrees with promptfoo there (the expected disagreements)."""
    causes: dict[str, list[str]] = json.loads(CAUSES.read_text(encoding="utf-8"))["causes"]
    return {name: why for why, names in causes.items() for name in names}


def _reexec_in_namespace() -> None:
    """Run this command again in a network namespace with only loopback, up."""
    if os.environ.get(_INSIDE):
        return
    if shutil.which("unshare") is None:
        raise SystemExit("--live and --record need unshare (util-linux): promptfoo runs offline")
    script = 'ip link set lo up 2>/dev/null || true; exec "$@"'
    command = ["unshare", "-rn", "sh", "-c", script, "sh", sys.executable, "-m", __spec__.name]
    done = subprocess.run(command + sys.argv[1:], env={**os.environ, _INSIDE: "1"}, check=False)
    raise SystemExit(done.returncode)


def _print_config(name: str, theirs: Verdicts, ours: Verdicts, causes: dict[str, str]) -> int:
    agreed = sum(agree(verdict, ours.get(cell)) for cell, verdict in theirs.items())
    print(f"{name}: {agreed}/{len(theirs)} cells agree")
    for cell in disagreeing(theirs, ours):
        why = causes.get(cell, "UNEXPLAINED: not in disagreements.json")
        print(f"  {cell}: promptfoo {theirs[cell]}, promptum {ours.get(cell, 'missing')}: {why}")
    for cell in theirs:
        if cell in causes and agree(theirs[cell], ours.get(cell)):
            print(f"  {cell}: now agrees; remove it from disagreements.json")
    return agreed


def main() -> None:
    """Compare, print, and with --record write promptfoo's verdicts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--live", action="store_true", help="run promptfoo too")
    parser.add_argument("--record", action="store_true", help="run promptfoo, write fixtures")
    parser.add_argument("--config", action="append", help="only this corpus config")
    args = parser.parse_args()
    live = args.live or args.record
    if live:
        install()
        _reexec_in_namespace()
    configs = corpus_configs(args.config)
    fixtures = {} if args.record and not args.config else (recorded() if FIXTURES.exists() else {})
    causes = known_causes()
    total = agreed = 0
    with (
        fake_server(load_answers(CORPUS / "answers.json")) as root,
        tempfile.TemporaryDirectory() as tmp,
    ):
        for config in configs:
            work = Path(tmp) / config.name
            work.mkdir()
            if live:
                theirs = run_promptfoo(config, model_env(root), work)
                fixtures = {
                    k: v for k, v in fixtures.items() if not k.startswith(f"{config.name}/")
                }
                fixtures.update(theirs)
            else:
                theirs = {k: v for k, v in fixtures.items() if k.startswith(f"{config.name}/")}
            ours = run_promptum(config, root, work)
            if not ours.verdicts:
                print(f"{config.name}: promptum gave no verdicts; its import said:")
                print(ours.import_output)
            agreed += _print_config(config.name, theirs, ours.verdicts, causes)
            total += len(theirs)
    share = agreed / max(total, 1)
    print(f"\nagreement: {agreed}/{total} cells ({share:.1%}), {len(configs)} configs")
    if args.record:
        payload = {"promptfoo": PROMPTFOO_VERSION, "verdicts": dict(sorted(fixtures.items()))}
        FIXTURES.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {FIXTURES}")


if __name__ == "__main__":
    main()
