"""Run history: every run and result in a SQLite file, written as results arrive."""

from promptum.errors import StoreError
from promptum.store._matrix import MatrixCase, MatrixFilter, MatrixPage, RunFigures
from promptum.store._recorder import StoreRecorder
from promptum.store._schema import MIGRATIONS, Migration, migrate
from promptum.store._store import HistoryEntry, RunStore, RunSummary, default_store_path

__all__ = [
    "MIGRATIONS",
    "HistoryEntry",
    "MatrixCase",
    "MatrixFilter",
    "MatrixPage",
    "Migration",
    "RunFigures",
    "RunStore",
    "RunSummary",
    "StoreError",
    "StoreRecorder",
    "default_store_path",
    "migrate",
]
