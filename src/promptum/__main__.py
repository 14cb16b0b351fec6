"""Allow `python -m promptum`."""

from promptum.cli import main

main()
