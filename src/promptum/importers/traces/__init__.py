"""`promptum import traces`: cases from production calls (OTLP GenAI spans, chat logs)."""

from promptum.importers.traces._import import TraceImport, import_traces
from promptum.importers.traces._suite import Reference

__all__ = ["Reference", "TraceImport", "import_traces"]
