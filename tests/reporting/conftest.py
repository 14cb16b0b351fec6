from __future__ import annotations

import pytest
from report_samples import big_run, sample_run

from promptum.values.run_result import RunResult


@pytest.fixture
def sample() -> RunResult:
    return sample_run()


@pytest.fixture(scope="session")
def big() -> RunResult:
    return big_run()
