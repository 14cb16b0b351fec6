"""Deterministic checks: rule and budget assertions on a response, run without a model.

Besides the built-in types, a check can be the user's own function: ``type: python`` in a
suite, or a type added with `promptum.register_check` or a ``promptum.checks`` entry point.
"""

import typing as _typing

from promptum.checks._base import CheckType, CompiledCheck, ValueKind
from promptum.checks._custom import CheckInput
from promptum.checks._definition import CheckDefinition
from promptum.checks._engine import check_grades, evaluate_checks
from promptum.checks._registry import CHECK_TYPES, get_check_type, register_check
from promptum.foundations.lazy import lazy_exports as _lazy_exports
from promptum.values.documented_views import CheckResult

# Shared with the runner, the suites and the session, not documented for users: served on
# use and never kept here (promptum.foundations.lazy), so this namespace holds the public
# names only.
if _typing.TYPE_CHECKING:
    from promptum.checks._base import shorten as shorten
    from promptum.checks._custom import CustomCheck as CustomCheck
    from promptum.checks._custom import settle as settle
    from promptum.checks._definition import SHARED as SHARED
    from promptum.checks._definition import CheckTable as CheckTable
    from promptum.checks._engine import CheckPlan as CheckPlan
    from promptum.checks._engine import Run as Run
    from promptum.checks._engine import check_plan as check_plan
    from promptum.checks._leaks import CANARY as CANARY
    from promptum.checks._leaks import CANARY_NOT_LEAKED_NAME as CANARY_NOT_LEAKED_NAME
    from promptum.checks._python import FOLDER as FOLDER
    from promptum.checks._python import PYTHON as PYTHON
    from promptum.checks._python import module_name as module_name
    from promptum.checks._registry import all_check_types as all_check_types
    from promptum.checks._registry import is_built_in as is_built_in
    from promptum.checks._tools import TOOL_CHECK_TYPES as TOOL_CHECK_TYPES
    from promptum.checks._tools import call_errors_grade as call_errors_grade
    from promptum.checks._transform import SEEN as SEEN
    from promptum.checks._transform import Transform as Transform
    from promptum.checks._transform import case_transform as case_transform
    from promptum.checks._transform import expressions_of as expressions_of
    from promptum.checks._transform import seen as seen
    from promptum.checks._transform import seen_later as seen_later
    from promptum.checks._transform import transform_error as transform_error
    from promptum.checks._transform import transformed as transformed

__getattr__ = _lazy_exports(__name__)

__all__ = [
    "CHECK_TYPES",
    "CheckDefinition",
    "CheckInput",
    "CheckResult",
    "CheckType",
    "CompiledCheck",
    "ValueKind",
    "check_grades",
    "evaluate_checks",
    "get_check_type",
    "register_check",
]
