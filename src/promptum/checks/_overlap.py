"""Scored overlap check types: rouge (ROUGE-1, ROUGE-2, ROUGE-L F1) and bleu (sentence BLEU).

Both libraries are the field's references, in the optional ``text-metrics`` extra (they
bring nltk, absl-py, lxml and more, which few suites need): Google's ``rouge-score``, the
reimplementation of ROUGE-1.5.5 that papers report, and ``sacrebleu``, the standard BLEU.
Both compare case-insensitively, as ``rouge-score`` does and promptfoo's ``bleu`` does.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from typing import Any

from promptum.checks._base import (
    CompiledCheck,
    ScoredCheckType,
    ValueKind,
    refuse_unknown_keys,
    shorten,
)
from promptum.foundations.suggestions import did_you_mean
from promptum.values.completion import Completion
from promptum.values.grade import Grade

EXTRA_HINT = "pip install 'promptum[text-metrics]'"
ROUGE_THRESHOLD = 0.75
"""promptfoo's default for its `rouge-n` assertion, kept so configs mean the same."""
BLEU_THRESHOLD = 0.5
"""promptfoo's default for its `bleu` assertion."""
VARIANTS = ("rouge1", "rouge2", "rougeL")
_ROUGE_KEYS = ("reference", "variant")
_ROUGE_FORMS = "a reference string, or {reference: <text>, variant: rouge1|rouge2|rougeL}"

_CJK = r"\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff"
_WORD = rf"[{_CJK}]|[^\W_{_CJK}]+"
"""A word for ROUGE: a run of letters and digits in any script, or one CJK character or
kana (those scripts do not separate words with spaces). On ASCII text the same tokens as
rouge-score's own tokenizer, which drops every letter outside a-z (``café`` → ``caf``)."""
_HAN = r"[\u3400-\u9fff\uf900-\ufaff]"


def _missing(name: str, module: str) -> ValueError:
    return ValueError(
        f"check {name!r} needs the {module} package, in the text-metrics extra: {EXTRA_HINT}"
    )


def _text(name: str, what: str, value: Any) -> str:
    if not isinstance(value, str):
        got = "nothing" if value is None else f"{type(value).__name__} {value!r}"
        raise ValueError(f"check {name!r} needs {what} (a string), got {got}")
    if not value.strip():
        raise ValueError(f"check {name!r} needs a reference text to compare with, not blank")
    return value


def rouge_spec(value: Any) -> tuple[str, str]:
    """The reference and the ROUGE variant of a rouge check's value, else ValueError."""
    if isinstance(value, str) or value is None:
        return _text("rouge", _ROUGE_FORMS, value), VARIANTS[0]
    if not isinstance(value, Mapping):
        raise ValueError(f"check 'rouge' needs {_ROUGE_FORMS}, got {type(value).__name__}")
    refuse_unknown_keys("rouge", value, _ROUGE_KEYS)
    reference = _text("rouge", "`reference`, the text to compare with", value.get("reference"))
    variant = value.get("variant", VARIANTS[0])
    if variant not in VARIANTS:
        # Matched without case and separators: `ROUGE-L` and `rouge_l` mean rougeL.
        plain = {v.lower(): v for v in VARIANTS}
        written = re.sub(r"[-_ ]", "", str(variant)).lower()
        hint = did_you_mean(written, plain)
        raise ValueError(
            f"check 'rouge': unknown variant {variant!r}.{hint} Use one of {', '.join(VARIANTS)}"
        )
    return reference, variant


def bleu_references(value: Any) -> list[str]:
    """The references of a bleu check's value (a string or a list of them), else ValueError."""
    if isinstance(value, str) or value is None:
        return [_text("bleu", "a reference string or a list of them", value)]
    if not isinstance(value, list | tuple) or not value:
        raise ValueError(
            "check 'bleu' needs a reference string or a non-empty list of them, "
            f"got {shorten(repr(value), 60)}"
        )
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            got = "blank" if isinstance(item, str) else f"{type(item).__name__} {item!r}"
            raise ValueError(
                f"check 'bleu': reference {index} of its list is {got}; each is a text to "
                "compare with"
            )
    return list(value)


class _Words:
    """ROUGE's tokenizer: case-folded words of any script; the reference's kept, made once."""

    def __init__(self, reference: str) -> None:
        # Compiled when a rouge check is built (re caches it): ~3 ms that loading the checks
        # for every other suite would pay.
        self._words = re.compile(_WORD)
        self._reference = reference
        self._tokens = self._split(reference)

    def _split(self, text: str) -> list[str]:
        return self._words.findall(text.casefold())

    def tokenize(self, text: str) -> list[str]:
        """The words of `text` (rouge-score's Tokenizer interface)."""
        return self._tokens if text is self._reference else self._split(text)


def _scored(
    name: str, label: str, threshold: float, description: str, score_of: Callable[[str], float]
) -> CompiledCheck:
    def run(completion: Completion) -> Grade:
        # Rounded as shown, so that a reason never reads "0.750 < 0.75"; clamped, as a
        # library's floating point may land a hair past 1.
        score = round(min(1.0, max(0.0, score_of(completion.text))), 3)
        if score >= threshold:
            return Grade(
                "check", name, True, score, f"{label} {score:.3f} ≥ {threshold:g}", description
            )
        reason = f"{label} {score:.3f} < {threshold:g}"
        return Grade("check", name, False, score, reason, description)

    return run


def _absl_log_to_the_real_stderr() -> None:
    """Point absl's log handler (rouge-score imports absl) at the process's own stderr.

    absl's handler keeps the `sys.stderr` of its import and closes it when logging is set
    up again (`dictConfig`, as uvicorn does): under pytest or click's CliRunner that stream
    is a capture, and closing it takes the test run's stderr with it.
    """
    import absl.logging  # imported by rouge-score already

    if sys.__stderr__ is not None:
        absl.logging.get_absl_handler().python_handler.setStream(sys.__stderr__)


def _build_rouge(value: Any, threshold: float, _model: str | None) -> CompiledCheck:
    reference, variant = rouge_spec(value)
    try:
        # An optional dependency, imported when a suite first uses it (and so found missing
        # when the suite loads, not on the first response): `promptum --help` never pays
        # for nltk, which rouge-score imports.
        from rouge_score.rouge_scorer import RougeScorer  # type: ignore[import-untyped]
    except ImportError as exc:
        raise _missing("rouge", "rouge-score") from exc
    _absl_log_to_the_real_stderr()
    scorer = RougeScorer([variant], tokenizer=_Words(reference))
    description = f"{variant} F1 ≥ {threshold:g} against {shorten(reference, 60)!r}"

    def score_of(text: str) -> float:
        return float(scorer.score(reference, text)[variant].fmeasure)

    return _scored("rouge", variant, threshold, description, score_of)


def _build_bleu(value: Any, threshold: float, _model: str | None) -> CompiledCheck:
    references = bleu_references(value)
    try:
        # An optional dependency, imported when a suite first uses it (see _build_rouge).
        from sacrebleu.metrics.bleu import BLEU
    except ImportError as exc:
        raise _missing("bleu", "sacrebleu") from exc
    # 13a, sacrebleu's standard tokenizer; Chinese references need theirs, which splits
    # Han characters (13a would take a whole sentence for one word).
    tokenize = "zh" if any(re.search(_HAN, r) for r in references) else "13a"
    # Sentence BLEU as sacrebleu recommends it (effective order, exp smoothing), with the
    # references' n-grams counted once, here, rather than for every response.
    bleu = BLEU(
        lowercase=True,
        tokenize=tokenize,
        effective_order=True,
        force=True,
        references=[[r] for r in references],
    )
    shown = ", ".join(repr(shorten(r, 60)) for r in references[:3])
    more = f" and {len(references) - 3} more" if len(references) > 3 else ""
    description = f"BLEU ≥ {threshold:g} against {shown}{more}"

    def score_of(text: str) -> float:
        return float(bleu.corpus_score([text], None).score) / 100

    return _scored("bleu", "BLEU", threshold, description, score_of)


def _unscored(build: Callable[[Any, float, str | None], CompiledCheck], threshold: float) -> Any:
    return lambda value, _case_insensitive: build(value, threshold, None)


ROUGE = ScoredCheckType(
    "rouge",
    f"ROUGE F1 of the response against the reference ≥ threshold ({ROUGE_THRESHOLD:g}); "
    f"value {_ROUGE_FORMS} (default rouge1)",
    ValueKind.OPTIONAL,  # checked when built, with messages that say what to write
    _unscored(_build_rouge, ROUGE_THRESHOLD),
    default_threshold=ROUGE_THRESHOLD,
    build_scored=_build_rouge,
)
BLEU_CHECK = ScoredCheckType(
    "bleu",
    f"sentence BLEU of the response against the references ≥ threshold ({BLEU_THRESHOLD:g}); "
    "value a reference string or a list of them",
    ValueKind.OPTIONAL,
    _unscored(_build_bleu, BLEU_THRESHOLD),
    default_threshold=BLEU_THRESHOLD,
    build_scored=_build_bleu,
)
