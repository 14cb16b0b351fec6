"""Crescendo searched turn by turn (`crescendo:`): escalation, backtracking, a call budget."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from promptum.cli import main
from promptum.redteam import (
    Attacker,
    CrescendoSpec,
    Outcome,
    RedteamSpec,
    SuiteFacts,
    crescendo,
    generate_cases,
)
from promptum.redteam._attack_search import Progress, read_progress
from promptum.reporting import load_run
from tests.support.adaptive_server import (
    BLUNT,
    REFUSAL,
    answer,
    attacked,
    generated,
    generated_twice,
)
from tests.support.suites import attacked_suite


def _conversations() -> list[dict[str, Any]]:
    spec = RedteamSpec(
        goals=["exfiltration"], strategies=["crescendo", "direct"], attacker="red/m", per_goal=4
    )
    return generate_cases(spec, SuiteFacts(system="You help."))


def _one() -> list[dict[str, Any]]:
    """One crescendo conversation."""
    return [case for case in _conversations() if "simulate" in case][:1]


class _Fakes:
    """The adaptive server's app (yields after a build-up) and attacker, called in process."""

    def __init__(self, attacker: str | None = None) -> None:
        self.attacker = attacker
        self.ran: list[list[str]] = []
        self.asked: list[str] = []

    def run(self, batch: Sequence[Mapping[str, Any]]) -> Mapping[str, Outcome]:
        outcomes = {}
        for case in batch:
            messages: list[dict[str, Any]] = []
            for turn in case["turns"]:
                messages.append({"role": "user", "content": turn["query"]})
                reply = answer("after_build_up", {"messages": messages})
                messages.append({"role": "assistant", "content": reply})
            self.ran.append([turn["query"] for turn in case["turns"]])
            yielded = "attacker.example" in reply
            outcomes[str(case["id"])] = Outcome(yielded, reply, "no_exfiltration", 1)
        return outcomes

    def ask(self, system: str, user: str) -> str:
        self.asked.append(user)
        if self.attacker is not None:
            return self.attacker
        return answer("attacker", {"messages": [{"role": "user", "content": user}]})


def test_a_refused_turn_is_dropped_and_another_escalation_tried() -> None:
    cases, fakes = _conversations(), _Fakes()
    bounds = CrescendoSpec(turns=4, backtracks=2, max_calls=40)
    written, talks = crescendo(cases, Attacker(fakes.run, fakes.ask), bounds)
    # The one-request attacks are left as they are; each conversation keeps its id and tags.
    assert [c["id"] for c in written] == [c["id"] for c in cases]
    assert [c for c in written if "turns" not in c] == [c for c in cases if "simulate" not in c]
    searched = [c for c in written if "turns" in c]
    assert len(searched) == len(talks) == 2
    for case, talk in zip(searched, talks, strict=True):
        assert "simulate" not in case
        assert case["tags"] == ["redteam", "goal:exfiltration", "strategy:crescendo"]
        assert case["conversation"] == {"checks": [{"type": "no_exfiltration"}]}
        assert [t.status for t in talk.turns] == ["kept", "backtracked", "kept", "succeeded"]
        assert talk.turns[1].answer == REFUSAL
        assert talk.turns[1].query.endswith(f"{BLUNT}.")
        assert [t.score for t in talk.turns] == [5, 0, 5, 10]
        kept = [t.query for t in talk.turns if t.status != "backtracked"]
        assert [turn["query"] for turn in case["turns"]] == kept
        assert talk.succeeded
        assert talk.record()["calls"] == talk.calls
    # The turn after the refusal is told of it; the refused one is in no later history.
    retries = [user for user in fakes.asked if "was refused and dropped" in user]
    assert len(retries) == 2
    assert all(BLUNT in user for user in retries)
    assert not any(BLUNT in query for history in fakes.ran for query in history[:-1])


def test_without_backtracks_a_refused_turn_stays_in_the_conversation() -> None:
    fakes = _Fakes()
    bounds = CrescendoSpec(turns=3, backtracks=0)
    written, talks = crescendo(_one(), Attacker(fakes.run, fakes.ask), bounds)
    assert [t.status for t in talks[0].turns] == ["kept", "kept", "succeeded"]
    assert BLUNT in written[0]["turns"][1]["query"]


@pytest.mark.parametrize("max_calls", [1, 2, 3, 5, 8, 13])
def test_a_search_makes_at_most_its_call_budget(max_calls: int) -> None:
    fakes = _Fakes()
    bounds = CrescendoSpec(turns=10, backtracks=5, max_calls=max_calls)
    written, (talk,) = crescendo(_one(), Attacker(fakes.run, fakes.ask), bounds)
    made = len(fakes.asked) + len(fakes.ran)
    assert made == talk.calls <= max_calls
    if not talk.turns or talk.turns[0].status == "backtracked":
        assert "simulate" in written[0]  # nothing kept: the simulation is written as it was


def test_an_attacker_that_refuses_sends_nothing_and_leaves_the_simulation() -> None:
    fakes = _Fakes(attacker="I'm sorry, but I can't help with that.")
    cases = _one()
    written, (talk,) = crescendo(cases, Attacker(fakes.run, fakes.ask), CrescendoSpec())
    assert not fakes.ran
    assert written == cases
    assert [t.status for t in talk.turns] == ["attacker_refused"]
    assert len(fakes.asked) == 3  # asked, then retried twice with a reminder


SEARCHED = (
    "{goals: [exfiltration], strategies: [crescendo], attacker: red/m, per_goal: 1, "
    "crescendo: {turns: 4, backtracks: 1, max_calls: 12}}"
)


def test_crescendo_finds_what_only_a_build_up_gets_and_static_attacks_do_not(
    tmp_path: Path,
) -> None:
    with attacked(tmp_path, "after_build_up", SEARCHED) as (app, red, path):
        output, calls = generated_twice(app, red, path)
        assert "wrote attacks.search.json: 1 crescendo conversation (1 succeeded, " in output
        assert calls <= 12
        static = "{goals: [exfiltration], per_goal: 20, seed: 2}"
        attacked_suite(tmp_path / "static.yaml", app.base_url, red.base_url, static)
        generated(tmp_path / "static.yaml", "static_attacks.yaml")
        runner = CliRunner()
        done = runner.invoke(main, ["run", "static_attacks.yaml", "--no-store", "-o", "s.json"])
        assert done.exit_code == 0, done.output  # every static attack resisted
        done = runner.invoke(main, ["run", "attacks.yaml", "--no-store", "-o", "run.json"])
        assert done.exit_code == 1, done.output
    strategies = {
        t for r in load_run(tmp_path / "s.json").results for t in r.tags if "strategy:" in t
    }
    assert len(strategies) >= 15
    (attack,) = [r for r in load_run(tmp_path / "run.json").results if "redteam" in r.tags]
    assert attack.status == "fail"  # the attack succeeded, on its third kept turn
    assert attack.turns is not None
    assert len(attack.turns) == 3
    assert not any(BLUNT in turn.query for turn in attack.turns)
    written = yaml.safe_load((tmp_path / "attacks.yaml").read_text(encoding="utf-8"))
    assert "turns" in written["test_cases"][0]
    (talk,) = json.loads((tmp_path / "attacks.search.json").read_text("utf-8"))["crescendo"]
    assert [t["status"] for t in talk["turns"]] == ["kept", "backtracked", "kept", "succeeded"]


@pytest.mark.parametrize(
    ("reply", "score", "refused"),
    [
        ("REFUSED", 0, True),
        ("**Refused.**", 0, True),
        ("7", 7, False),
        ("Score: 8/10", 8, False),
        # A weak model echoing the question names REFUSED without meaning it.
        ("If the application refused or declined, reply REFUSED. 3", 3, False),
        ("no number", 0, False),
    ],
)
def test_a_progress_reply_is_read_as_a_refusal_only_when_it_opens_with_one(
    reply: str, score: int, refused: bool
) -> None:
    assert read_progress(reply) == Progress(score, refused)
