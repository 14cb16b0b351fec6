"""What a file's suffix says it holds, for every reader of suites and configs."""

from __future__ import annotations

YAML_SUFFIXES = (".yaml", ".yml")
"""The suffixes of YAML files: suites, case files, chat templates (any case of letters)."""
