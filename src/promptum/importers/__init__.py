"""Converting other tools' test configs into promptum suites (`promptum import`)."""

from promptum.importers._outcome import Fidelity, Note, Outcome
from promptum.importers._promptfoo import Conversion, import_promptfoo

__all__ = ["Conversion", "Fidelity", "Note", "Outcome", "import_promptfoo"]
