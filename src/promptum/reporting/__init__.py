"""Reports of a run: JSON, JSONL, JUnit XML, HTML, CSV and Markdown, one module per format."""

import typing as _typing

from promptum.foundations.lazy import lazy_exports as _lazy_exports
from promptum.reporting._registry import (
    REPORT_FORMATS,
    ReportFormat,
    register_report,
    render_report,
    write_report,
)
from promptum.reporting._text import inline_markdown, shorten, visible

# Served on use (promptum.foundations.lazy): a format's module is imported only when a run
# writes it or its names are used. Public names are kept here once imported; those shared
# with the CLI and the pytest plugin, not documented for users, never are.
if _typing.TYPE_CHECKING:
    from promptum.reporting._conversation import failing_where as failing_where
    from promptum.reporting._conversation import turn_lines as turn_lines
    from promptum.reporting._html import csp_hash, template_asset
    from promptum.reporting._json import load_run
    from promptum.reporting._jsonl import JsonlSink
    from promptum.reporting._numbers import cost_usd as cost_usd
    from promptum.reporting._numbers import latency_ms as latency_ms
    from promptum.reporting._outcome import outcome as outcome
    from promptum.reporting._part_views import part_views as part_views
    from promptum.reporting._registry import format_of as format_of

__getattr__ = _lazy_exports(__name__)

__all__ = [
    "REPORT_FORMATS",
    "JsonlSink",
    "ReportFormat",
    "csp_hash",
    "inline_markdown",
    "load_run",
    "register_report",
    "render_report",
    "shorten",
    "template_asset",
    "visible",
    "write_report",
]
