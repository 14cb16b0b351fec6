"""`promptum init`: write a starter suite that runs on the embedded model, no key needed."""

from __future__ import annotations

from pathlib import Path

import click

from promptum.cli._console import write_or_exit

STARTER_SUITE = """\
# yaml-language-server: $schema=promptum.schema.json
# A starter suite: `promptum run {name}` runs it on the embedded model (no API key).
# Docs: docs/suites.md. The first line gives editors the suite format's JSON Schema.
name: starter
models: [local/smollm2]          # e.g. openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest
system: Answer in one short sentence.
# judge: {{model: local/smollm2}}  # grade each `expected_behavior` with a model (weak when tiny)
defaults:
  params: {{temperature: 0, max_tokens: 60}}
  checks:
    - type: max_length
      value: 400
test_cases:
  - id: capital
    query: What is the capital of France?
    expected_behavior: Names Paris as the capital of France.
    checks:
      - type: contains
        value: Paris
  - id: arithmetic
    query: 2+2?
    checks:
      - type: regex
        value: '\\b4\\b'
  - id: city-extraction
    vars: {{sentence: "I moved from Lyon to Berlin last year."}}
    query: "Where does the person live now? {{{{ sentence }}}}"
    response_model:
      type: object
      properties: {{city: {{type: string}}}}
      required: [city]
    expected: {{city: Berlin}}
"""


SCHEMA_FILE = "promptum.schema.json"
IGNORED = ".promptum/"
"""What promptum keeps under the working directory: the run history, the response cache and
resume journals, none of which belongs in the repository."""
_ALREADY_IGNORED = {
    f"{root}.promptum{rest}" for root in ("", "/") for rest in ("", "/", "/*", "/**")
}


def _ignore_store(gitignore: Path) -> str:
    """Add ``.promptum/`` to `gitignore` unless a line already ignores it; say what was done."""
    try:
        text = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
        if any(line.strip() in _ALREADY_IGNORED for line in text.splitlines()):
            return f"{gitignore} already ignores {IGNORED}"
        separator = "" if not text or text.endswith("\n") else "\n"
        with gitignore.open("a", encoding="utf-8") as file:
            file.write(f"{separator}# promptum: run history, response cache\n{IGNORED}\n")
    except (OSError, UnicodeDecodeError) as exc:
        # The suite is written: this is advice, not a failure of `init`.
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        return (
            f"note: could not update {gitignore} ({reason}); add the line {IGNORED} to it, "
            "so the run history and response cache stay out of the repository"
        )
    return f"added {IGNORED} to {gitignore} (run history and response cache)"


@click.command("init")
@click.argument("path", type=click.Path(path_type=Path), default=Path("promptum.yaml"))
@click.option("--force", is_flag=True, help="Overwrite the file if it exists.")
def init_command(path: Path, force: bool) -> None:
    """Write a starter suite (default promptum.yaml) that runs on the embedded model.

    The suite format's JSON Schema is written beside it, for completion in editors, and
    `.promptum/` (run history, response cache) is added to the .gitignore of the working
    directory, which is created if missing.
    """
    import json

    from promptum.suites import suite_json_schema

    if path.exists() and not force:
        click.echo(f"error: {path} exists; pass --force to overwrite it", err=True)
        raise SystemExit(2)
    write_or_exit(path, STARTER_SUITE.format(name=path))
    schema = path.parent / SCHEMA_FILE
    write_or_exit(schema, json.dumps(suite_json_schema(), indent=2) + "\n")
    click.echo(f"wrote {path} and {schema}; run it with: promptum run {path}")
    # The working directory's: `.promptum/` is made where `promptum run` runs, not beside
    # the suite.
    click.echo(_ignore_store(Path(".gitignore")))
