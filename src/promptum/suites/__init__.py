"""Suite files: YAML suites, TOML case folders, CSV/JSONL rows, validated with located errors."""

import typing as _typing

from promptum.foundations.lazy import lazy_exports as _lazy_exports
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
    suite_from_data,
)
from promptum.suites._variants import unknown_variant

# Shared with the session, not documented for users: served on use and never
# kept here (promptum.foundations.lazy), so this namespace holds the public names only.
if _typing.TYPE_CHECKING:
    from promptum.suites._build import InvalidCaseError as InvalidCaseError
    from promptum.suites._build import build_case as build_case
    from promptum.suites._build_judge import context_problem as context_problem
    from promptum.suites._build_judge import judge_problems as judge_problems
    from promptum.suites._build_judge import merged_judge as merged_judge
    from promptum.suites._canary import known_token as known_token
    from promptum.suites._check_proposals import proposed_for_suite as proposed_for_suite
    from promptum.suites._described import described_suite as described_suite
    from promptum.suites._discover import case_data as case_data
    from promptum.suites._file_reading import SUITE_BYTES_VARIABLE as SUITE_BYTES_VARIABLE
    from promptum.suites._file_reading import max_suite_bytes as max_suite_bytes
    from promptum.suites._format import CaseFields as CaseFields
    from promptum.suites._format import JudgeSpec as JudgeSpec
    from promptum.suites._locate import Locator as Locator
    from promptum.suites._redteam import Generated as Generated
    from promptum.suites._redteam import generate_suite as generate_suite
    from promptum.suites._suite_context import SuiteContext as SuiteContext
    from promptum.suites._yaml_reader import YAML_SUFFIXES as YAML_SUFFIXES
    from promptum.suites._yaml_reader import located_yaml as located_yaml
    from promptum.suites._yaml_writer import suite_text as suite_text
    from promptum.suites._yaml_writer import suite_yaml as suite_yaml
    from promptum.suites._yaml_writer import yaml11_text as yaml11_text

__getattr__ = _lazy_exports(__name__)

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
    "suite_from_data",
    "suite_json_schema",
    "suite_name",
    "unknown_variant",
]
