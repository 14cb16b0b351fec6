"""`promptum judge calibrate`: how far each judge agrees with people's reviews in the store."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from promptum.cli._console import escape, exit_on_user_error, make_console
from promptum.cli._options import json_option
from promptum.cli._runs import db_option, open_store
from promptum.errors import StoreError
from promptum.values.reviews import skipped_note

if TYPE_CHECKING:
    from promptum.store import RunStore
    from promptum.values.calibration import Calibration
    from promptum.values.run_result import RunResult


@click.group("judge")
def judge_command() -> None:
    """The judge measured against people: `promptum judge calibrate`."""


def _figure(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _kappa(row: Calibration) -> str:
    if row.kappa is None:
        return "- (one verdict only)"
    return f"{row.kappa:.2f} [{_figure(row.kappa_low)}, {_figure(row.kappa_high)}]"


def _threshold(row: Calibration) -> str:
    if row.threshold is None:
        return "- (no scores)"
    return f"{row.threshold:g} ({_figure(row.threshold_agreement)})"


@judge_command.command(
    "calibrate", short_help="How far each judge agrees with people's reviews (kappa, threshold)."
)
@db_option
@click.argument("run_refs", metavar="[RUN...]", nargs=-1)
@click.option("--criterion", help="Only this judge criterion (a grade's name).")
@click.option("--suite", help="Only results of this suite (the case's suite or the run's).")
@json_option("one row per judge model × criterion")
def calibrate_command(
    db: Path | None,
    run_refs: tuple[str, ...],
    criterion: str | None,
    suite: str | None,
    as_json: bool,
) -> None:
    """Compare the judge's verdicts with people's reviews, per judge model × criterion.

    RUN... are runs of the store (ids, prefixes, latest~N); none: every run. Shows n,
    agreement, Cohen's kappa with its 95% interval, the confusion matrix and the threshold
    on the judge's scores that would agree most. Exit codes: 0 shown, 2 no reviewed answer
    the judge graded (or an unknown run). A stored review row that holds no review (a
    created_at that is not a date...) is skipped, and said on stderr.
    """
    from promptum.values.calibration import calibrate, labels

    with exit_on_user_error():
        store = open_store(db)
        reviewed = store.reviewed(run_refs, suite=suite)
        skipped = store.skipped_reviews(run_refs)
    note = skipped_note(skipped)
    if note is not None:  # said first, so it stays in sight above the table or the error
        click.echo(f"warning: {note}", err=True)
    rows = calibrate(labels(reviewed, criterion=criterion))
    if not rows:
        scope = "in the runs given" if run_refs else f"in {store.path}"
        click.echo(
            f"error: {_nothing_to_calibrate(bool(reviewed), suite, criterion, scope)}", err=True
        )
        raise SystemExit(2)
    if as_json:
        from promptum.cli import _machine

        printed: dict[str, object] = {"calibration": [row.to_dict() for row in rows]}
        if skipped:
            printed["skipped_reviews"] = [item.to_dict() for item in skipped]
        _machine.print_json(printed)
        return
    _print_table(rows)


def _nothing_to_calibrate(
    reviewed: bool, suite: str | None, criterion: str | None, scope: str
) -> str:
    """Why there is no calibration to show, and how to review answers."""
    narrowed = "".join(
        f" {name} {value!r}" for name, value in (("of suite", suite), ("on", criterion)) if value
    )
    what = "reviewed results" if not reviewed else "reviews of answers the judge graded"
    return (
        f"no {what}{narrowed} {scope}: review answers with "
        "`promptum view --review` (or RunStore.add_review), then calibrate"
    )


def _print_table(rows: list[Calibration]) -> None:
    from rich.table import Table

    table = Table(title="Judge calibration against people", title_justify="left")
    for name, justify in (
        ("Judge", "left"),
        ("Criterion", "left"),
        ("n", "right"),
        ("Agreement", "right"),
        ("Kappa [95% CI]", "right"),
        ("J+H+ J+H- J-H+ J-H-", "right"),
        ("Best threshold (agreement)", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for row in rows:
        c = row.confusion
        table.add_row(
            escape(row.judge_model),
            escape(row.criterion),
            str(row.n),
            _figure(row.agreement),
            _kappa(row),
            f"{c.true_positives} {c.false_positives} {c.false_negatives} {c.true_negatives}",
            _threshold(row),
        )
    console = make_console()
    console.print(table)
    console.print(
        "J = the judge's verdict, H = people's (+ pass, - fail); kappa's interval: "
        "Cohen's large-sample standard error"
    )
    if any(row.kappa is not None and row.kappa_low is None for row in rows):
        console.print(
            "[-, -]: every label agreed (or none did), so that error is 0 and gives no "
            "interval: review more answers"
        )


LOW_KAPPA = 0.4
"""Below this kappa a judge agrees with people only fairly at best (Landis & Koch: 0.41+
is "moderate"): the run summary warns."""
MIN_REVIEWED = 20
"""Reviewed answers a judge needs on a criterion before its kappa is worth a warning."""


def low_agreement(store: RunStore, run: RunResult) -> list[str]:
    """Warnings for the judges of `run` that people disagree with on its suite (from reviews).

    One per judge model × criterion with at least `MIN_REVIEWED` reviewed answers of the
    suite (any run) and kappa below `LOW_KAPPA`; nothing when no review is stored.
    """
    models = _judge_models(run)
    if not models:  # a run without a judge: nothing to warn about, nothing to import
        return []
    from promptum.values.calibration import calibrate, labels

    try:
        if not store.has_reviews():
            return []
        rows = calibrate(labels(store.reviewed(suite=run.suite)))
    except StoreError as exc:  # the run itself is recorded: say so, do not fail it
        return [f"the judge's agreement with people could not be read: {exc}"]
    return [
        f"judge {row.judge_model} agrees with people only at kappa {row.kappa:.2f} "
        f"[{_figure(row.kappa_low)}, {_figure(row.kappa_high)}] on {row.criterion!r} "
        f"({row.n} reviewed answers of suite {run.suite!r}); its failures and passes may be "
        "wrong: `promptum judge calibrate --suite` shows where, and a better threshold"
        for row in rows
        if row.judge_model in models and _disagrees(row)
    ]


def _judge_models(run: RunResult) -> set[str]:
    """The judge models a run's configuration names."""
    return {str(judge["model"]) for judge in run.config.get("judge") or () if "model" in judge}


def _disagrees(row: Calibration) -> bool:
    """Whether enough reviews show the judge agreeing with people less than fairly."""
    return row.n >= MIN_REVIEWED and row.kappa is not None and row.kappa < LOW_KAPPA
