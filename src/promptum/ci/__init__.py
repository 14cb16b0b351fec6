"""promptum in CI systems: the logic of the GitHub Action (`python -m promptum.ci.github`)."""
