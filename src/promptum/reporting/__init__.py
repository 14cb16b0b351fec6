"""Reports of a run: JSON, JSONL, JUnit XML, HTML, CSV and Markdown, one module per format."""

from promptum.reporting._json import load_run
from promptum.reporting._jsonl import JsonlSink
from promptum.reporting._registry import REPORT_FORMATS, ReportFormat, render_report, write_report

__all__ = [
    "REPORT_FORMATS",
    "JsonlSink",
    "ReportFormat",
    "load_run",
    "render_report",
    "write_report",
]
