"""Reports of a run: JSON, JSONL, JUnit XML, HTML, CSV and Markdown, one module per format."""

from promptum.reporting._html import csp_hash, template_asset
from promptum.reporting._json import load_run
from promptum.reporting._jsonl import JsonlSink
from promptum.reporting._registry import (
    REPORT_FORMATS,
    ReportFormat,
    register_report,
    render_report,
    write_report,
)
from promptum.reporting._text import inline_markdown, shorten, visible

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
