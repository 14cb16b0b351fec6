"""Suite files: YAML suites, TOML case folders, CSV/JSONL rows, validated with located errors."""

from promptum.suites._cases import CaseStats
from promptum.suites._discover import Discovery, find_suites, suite_name
from promptum.suites._format import SuiteSpec, suite_json_schema
from promptum.suites._loader import (
    Suite,
    case_stats,
    check_unique_ids,
    duplicate_ids,
    load_suite,
    load_suites,
)
from promptum.suites._variants import unknown_variant

__all__ = [
    "CaseStats",
    "Discovery",
    "Suite",
    "SuiteSpec",
    "case_stats",
    "check_unique_ids",
    "duplicate_ids",
    "find_suites",
    "load_suite",
    "load_suites",
    "suite_json_schema",
    "suite_name",
    "unknown_variant",
]
