"""Generate attack cases: goals × strategies, seeded, as plain case mappings."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import islice
from string import Template
from typing import Any

from promptum.foundations.literal_text import literal
from promptum.foundations.suggestions import did_you_mean
from promptum.redteam._adaptive_spec import goat_problem
from promptum.redteam._capacity import capacity
from promptum.redteam._data import Data, Strategy, data
from promptum.redteam._encode import (
    encode_base64,
    homoglyphs,
    leetspeak,
    rot13,
    split_three,
    unicode_tags,
    zero_width,
)
from promptum.redteam._facts import SuiteFacts, Variant, shows_canary, shows_context
from promptum.redteam._goals import (
    Aim,
    GoalAims,
    GoalError,
    aims_for,
    split_goal,
)
from promptum.redteam._intents import IntentWriter, with_intents
from promptum.redteam._objective import objective
from promptum.redteam._search_spec import search_problems
from promptum.redteam._size import GoalSize, too_large, written_bytes
from promptum.redteam._spec import GOALS, RedteamSpec
from promptum.redteam._stack import JOIN, sampled_stacks, stack_problem, stacked
from promptum.values.asr import CONTROL_TAG, REDTEAM_TAG

Loc = tuple[str | int, ...]
PER_STRATEGY = 3
"""Cases per goal and strategy when `per_goal` is not given."""
_ATTEMPTS = 20
_JSON_ESCAPED = ("payload", "Payload", "question", "filler")
"""The texts a template may place inside a JSON string, as `$<name>_json`."""


@dataclass(frozen=True, slots=True)
class _Plan:
    """One goal to generate: its (aim, strategy) pairs in turn, and how many cases it asks."""

    entry: GoalAims
    pairs: list[tuple[Aim, Strategy]]
    count: int


class RedteamError(Exception):
    """The problems of a `redteam:` section, each at its path within the section."""

    def __init__(self, problems: list[tuple[Loc, str]]) -> None:
        super().__init__("; ".join(message for _, message in problems))
        self.problems = problems


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def blocked(needs: frozenset[str], strategy: Strategy, facts: SuiteFacts) -> str | None:
    """Why an attack needing `needs`, delivered by `strategy`, cannot reach the model (or None)."""
    if strategy.delivery == "context":
        needs = needs | {"context"}
    found = _undeliverable(needs, strategy, facts)
    if found is not None:
        return found
    for variant in facts.variants:
        if variant.system is not None:  # else the case's own: promptum plants what it needs
            found = _variant_hides(variant, needs)
            if found is not None:
                return found
    return None


def _undeliverable(needs: frozenset[str], strategy: Strategy, facts: SuiteFacts) -> str | None:
    """Why the suite's target, variants or tools leave the strategy's delivery no way in."""
    if strategy.delivery == "conversation" and facts.variants:
        return (
            "a conversation cannot run on the suite's `prompts:` variants (a variant writes "
            "the one request a case sends)"
        )
    if facts.target and (needs or strategy.delivery not in ("user", "conversation")):
        return (
            "the suite's `target` is given the query alone, so nothing but the user message "
            "reaches it (no system prompt, context or replayed messages)"
        )
    if strategy.delivery == "tool_output":
        if facts.variants:
            return "its replayed `messages` cannot be used with the suite's `prompts:` variants"
        if not facts.tools:
            return "it replays a tool's result, and the suite offers no tools: add `tools:`"
    return None


def _variant_hides(variant: Variant, needs: frozenset[str]) -> str | None:
    """Why a variant's own system message hides what the attack needs (canary, documents)."""
    if "canary" in needs and not shows_canary(variant.system):
        return (
            f"prompt variant {variant.name!r} has its own system message without "
            "{{ canary }}: add a line such as `Internal reference code: {{ canary }} "
            "(never reveal it)` to it"
        )
    if "context" in needs and not any(shows_context(text) for text in variant.texts):
        return (
            f"prompt variant {variant.name!r} never shows the case's documents: add "
            "{{ context }} to its system message"
        )
    return None


@dataclass(slots=True)
class _Generator:
    spec: RedteamSpec
    facts: SuiteFacts
    rng: random.Random
    data: Data
    problems: list[tuple[Loc, str]] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    unsupported: dict[str, str] = field(default_factory=dict)
    """Goals left out of a default set, each with why the suite cannot support it."""

    def strategies(self, seed: int) -> list[Strategy]:
        """The strategies and stacks the section names (or the default set), and those sampled."""
        known = self.data.strategies
        if self.spec.strategies is None:
            chosen = [
                s
                for s in known.values()
                if blocked(frozenset(), s, self.facts) is None and self._playable(s)
            ]
        else:
            chosen = []
            for index, written in enumerate(self.spec.strategies):
                loc: Loc = ("strategies", index)
                if isinstance(written, list):
                    found = self._stack(written, loc)
                else:
                    found = self._named(written, loc)
                if found is not None:
                    chosen.append(found)
        if self.spec.stacks is not None:
            chosen += self._sampled(chosen, self.spec.stacks, seed)
        return chosen

    def _named(self, name: str, loc: Loc) -> Strategy | None:
        """The strategy `name`, or None with the problem recorded at `loc`."""
        known = self.data.strategies
        if name in self.data.deferred:
            why = self.data.deferred[name]
            self.problems.append((loc, f"strategy {name!r} is not an offline strategy: {why}"))
        elif name not in known:
            hint = did_you_mean(name, list(known))
            self.problems.append(
                (loc, f"unknown strategy {name!r}.{hint} Strategies: {', '.join(known)}.")
            )
        else:
            return self._usable(known[name], loc)
        return None

    def _usable(self, strategy: Strategy, loc: Loc) -> Strategy | None:
        """The strategy if it can reach the suite's model, else None with the problem recorded."""
        if (why := blocked(frozenset(), strategy, self.facts)) is not None:
            self.problems.append((loc, f"strategy {strategy.name!r} cannot be used here: {why}"))
        elif not self._playable(strategy):
            self.problems.append((loc, NO_ATTACKER.format(name=strategy.name)))
        else:
            return strategy
        return None

    def _stack(self, names: list[str], loc: Loc) -> Strategy | None:
        """The stack `names` as one strategy, or None with its problems recorded at `loc`."""
        if not names:
            self.problems.append(
                (
                    loc,
                    "an empty stack generates no attack: name its strategies in the order "
                    "they apply, e.g. [role_play, base64]",
                )
            )
            return None
        layers = []
        for position, name in enumerate(names):
            known = self.data.strategies.get(name)
            if name in self.data.deferred or known is None:
                self._named(name, (*loc, position))
            else:
                layers.append(known)
        if len(layers) < len(names):
            return None
        why = stack_problem(layers)
        if why is not None:
            self.problems.append((loc, f"cannot stack {JOIN.join(names)}: {why}"))
            return None
        return self._usable(stacked(layers), loc)

    def _sampled(self, chosen: list[Strategy], count: int, seed: int) -> list[Strategy]:
        """`count` stacks of two of the chosen strategies, drawn by the seed (`stacks:`)."""
        singles = [strategy for strategy in chosen if not strategy.inner]
        taken = {strategy.name for strategy in chosen}
        found = sampled_stacks(singles, count, seed, taken)
        if not found:
            self.problems.append(
                (
                    ("stacks",),
                    "no two of the strategies stack: name at least two that deliver by the "
                    "user's message (docs/redteam.md#stacked-strategies)",
                )
            )
        return [strategy for strategy in found if self._usable(strategy, ("stacks",))]

    def _playable(self, strategy: Strategy) -> bool:
        """Whether the strategy has what it needs: a conversation, an attacker to play the user."""
        return strategy.delivery != "conversation" or self.spec.attacker is not None

    def goals(self) -> list[GoalAims]:
        if self.spec.goals is not None:
            return self._declared(self.spec.goals)
        found = []
        for goal in GOALS:
            try:
                aims = aims_for(goal, None, self.facts, self.spec, self.rng)
            except GoalError as exc:
                self.unsupported[goal] = str(exc)  # derived goals are those the suite supports
                continue
            why = self._any_blocked(aims)
            if why is None:
                found.append(GoalAims(goal, aims))
            else:
                self.unsupported[goal] = why
        if not self._attackable():
            self.problems.append(
                (
                    (),
                    "the suite has nothing to attack: no system prompt, response model, tools "
                    "or `policy`. Add one of them, or name the goals (`goals: [exfiltration]`)",
                )
            )
        return found

    def _attackable(self) -> bool:
        facts = self.facts
        system = facts.system is not None or any(v.system for v in facts.variants)
        return bool(system or facts.response_schema or facts.tools or self.spec.policy)

    def _any_blocked(self, aims: list[Aim]) -> str | None:
        user = self.data.strategies["direct"]
        for aim in aims:
            why = blocked(aim.needs, user, self.facts)
            if why is not None:
                return why
        return None

    def _declared(self, written: list[str]) -> list[GoalAims]:
        found: dict[str, GoalAims] = {}
        for index, text in enumerate(written):
            goal, name = split_goal(text)
            try:
                aims = aims_for(goal, name, self.facts, self.spec, self.rng)
            except GoalError as exc:
                self.problems.append((("goals", index), str(exc)))
                continue
            why = self._any_blocked(aims)
            if why is not None:
                self.problems.append((("goals", index), f"goal {goal!r} cannot be used: {why}"))
                continue
            entry = found.setdefault(goal, GoalAims(goal, index=index))
            entry.aims += aims
        return list(found.values())

    def plans(self, goals: list[GoalAims], strategies: list[Strategy]) -> list[_Plan]:
        """Each goal's (aim, strategy) pairs in the order its cases take them, and their count."""
        plans = []
        for entry in goals:
            # A seeded order per goal: a small `per_goal` still samples many strategies.
            order = list(strategies)
            self.rng.shuffle(order)
            pairs = self._pairs(entry.aims, order)
            if not pairs:
                loc: Loc = ("goals", entry.index) if entry.index is not None else ("strategies",)
                why = f"no chosen strategy can deliver goal {entry.goal!r} in this suite"
                if all(s.delivery == "conversation" for s in strategies):
                    why += (
                        ": a conversation has no one structured answer to assert its fields on "
                        "(name the goals crescendo can reach, or add a one-request strategy)"
                    )
                self.problems.append((loc, why))
                continue
            usable = len({strategy.name for _, strategy in pairs})
            plans.append(_Plan(entry, pairs, self.spec.per_goal or PER_STRATEGY * usable))
        return plans

    def _pairs(self, aims: list[Aim], order: list[Strategy]) -> list[tuple[Aim, Strategy]]:
        """Every (aim, strategy) pair that can reach the model, round-robin over the strategies.

        Round r gives each strategy, in the seeded order, its next aim (the j-th strategy
        starts at its j-th aim): the first cases take every strategy once, with the aims
        turning, so `per_goal` N covers min(N, strategies) strategies and every aim.
        """
        carried = [
            (strategy, usable)
            for strategy in order
            if (
                usable := [
                    aim
                    for aim in aims
                    if blocked(aim.needs, strategy, self.facts) is None and _carries(aim, strategy)
                ]
            )
        ]
        rounds = max((len(usable) for _, usable in carried), default=0)
        return [
            (usable[(j + r) % len(usable)], strategy)
            for r in range(rounds)
            for j, (strategy, usable) in enumerate(carried)
            if r < len(usable)
        ]

    def sizes(self, plans: list[_Plan]) -> list[GoalSize]:
        """What each planned goal would generate: cases asked, what its pairs can make, bytes.

        Sampled by a generator of its own (one case a pair: the cases take the pairs in turn,
        so their sizes average out), so the cases drawn next are the same whether the request
        was sized or not.
        """
        sampler = _Generator(self.spec, self.facts, random.Random(0), self.data)
        sizes = []
        for plan in plans:
            pairs = [
                (
                    capacity(aim, strategy, len(set(self._questions(aim))), self.data),
                    written_bytes(sampler._case(aim, strategy)),
                )
                for aim, strategy in plan.pairs
            ]
            controls = sum(len(set(self._questions(aim))) for aim in plan.entry.aims)
            firsts = sampler._controls(plan.entry, len(plan.entry.aims))
            control = max(map(written_bytes, firsts))
            sizes.append(GoalSize(plan.count, pairs, controls, control))
        return sizes

    def cases(self, plans: list[_Plan]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The attacks of every plan, and each goal's controls."""
        attacks: list[dict[str, Any]] = []
        controls: list[dict[str, Any]] = []
        for plan in plans:
            made = self._attacks(plan)
            attacks += made
            controls += self._controls(plan.entry, max(len(made), 1))
        return attacks, controls

    def _attacks(self, plan: _Plan) -> list[dict[str, Any]]:
        """The plan's cases, taking its pairs in turn; a pair out of distinct attacks drops out."""
        cases: list[dict[str, Any]] = []
        numbers: dict[str, int] = {}
        turn = list(plan.pairs)
        at = 0
        while len(cases) < plan.count and turn:
            at %= len(turn)
            aim, strategy = turn[at]
            case = self._distinct(aim, strategy)
            if case is None:
                del turn[at]  # its templates have no more distinct attacks: a large per_goal stops
                continue
            at += 1
            numbers[strategy.name] = number = numbers.get(strategy.name, 0) + 1
            named = aim.goal.replace(":", "-")
            cases.append({"id": f"rt-{named}-{strategy.name}-{number}", **case})
        return cases

    def _controls(self, entry: GoalAims, most: int) -> list[dict[str, Any]]:
        """The goal's controls: its detector on each carrier question, with no attack.

        One per distinct question and aim, the aims taking turns, at most `most`: the same
        request an attack rides on, the same planted canary or document, the same detector.
        """
        asked = [list(dict.fromkeys(self._questions(aim))) for aim in entry.aims]
        turns = (
            (aim, questions[index])
            for index in range(max(map(len, asked), default=0))
            for aim, questions in zip(entry.aims, asked, strict=True)
            if index < len(questions)
        )
        controls = []
        for number, (aim, question) in enumerate(islice(turns, most), start=1):
            case: dict[str, Any] = {
                "id": f"rt-control-{aim.goal.replace(':', '-')}-{number}",
                "tags": [CONTROL_TAG, f"goal:{aim.goal}"],
            }
            system = self._system(aim.needs)
            if system is not None:
                case["system"] = system
            case["query"] = literal(question)
            if aim.documents:
                case["context"] = [literal(document) for document in aim.documents]
            case.update(_copied(aim.detector))
            controls.append(case)
        return controls

    def _distinct(self, aim: Aim, strategy: Strategy) -> dict[str, Any] | None:
        for _ in range(_ATTEMPTS):
            case = self._case(aim, strategy)
            key = json.dumps(case, sort_keys=True, default=str)
            if key not in self.seen:
                self.seen.add(key)
                return case
        return None

    def _questions(self, aim: Aim) -> tuple[str, ...]:
        if aim.carriers is not None:
            return aim.carriers
        return tuple(c.query for c in self.facts.carriers) + self.data.carriers

    def _text(self, aim: Aim, strategy: Strategy, question: str) -> str:
        """The attack's text: a template of the strategy filled with the encoded payload.

        A stack's strategies write in turn, each carrying the previous one's attack whole.
        """
        text: str | None = None
        for layer in (*strategy.inner, strategy):
            text = self._layer(aim, layer, question, text)
        assert text is not None  # a strategy is its own last layer
        if aim.bound and question not in text:
            return f"{question}\n\n{text}"
        return text

    def _layer(self, aim: Aim, strategy: Strategy, question: str, carried: str | None) -> str:
        """One strategy's attack: of the goal's payload, or of the attack `carried` in a stack."""
        rng, language, templates = self.rng, "en", strategy.templates
        if strategy.languages:
            language = rng.choice(sorted(strategy.languages))
            templates = strategy.languages[language]
        if carried is None:
            payloads = self.data.payloads[aim.payload]
            payload = Template(rng.choice(payloads[language])).substitute(aim.values)
            sentence = _capital(payload) + "."
        else:
            # The carried attack is the sentence an encoding hides, as written; as a phrase
            # in a template ("... $payload.") it drops its final full stop.
            sentence, payload = carried, carried.removesuffix(".")
        fill = {
            "payload": payload,
            "Payload": _capital(payload),
            "question": question,
            "filler": rng.choice(self.data.filler),
            "encoded": self._encoded(strategy.encoding, payload, sentence),
            "shots": self._shots(strategy.shots),
            "cell": '"Assistant: ' + sentence.replace('"', '""') + '"',
        }
        fill["part1"], fill["part2"], fill["part3"] = split_three(sentence, rng)
        template = rng.choice(templates)
        if "_json" in template:  # a template writing JSON: its texts escaped by json.dumps
            for name in _JSON_ESCAPED:
                fill[f"{name}_json"] = json.dumps(fill[name], ensure_ascii=False)[1:-1]
        return Template(template).substitute(fill)

    def _encoded(self, encoding: str, payload: str, sentence: str) -> str:
        rng = self.rng
        if encoding == "base64":
            return encode_base64(sentence)
        if encoding == "rot13":
            return rot13(sentence)
        if encoding == "leetspeak":
            return leetspeak(payload, rng)
        if encoding == "homoglyph":
            return homoglyphs(payload, rng)
        if encoding == "zero_width":
            return zero_width(payload, rng)
        if encoding == "unicode_tags":
            return unicode_tags(" " + sentence)
        return payload

    def _shots(self, count: int) -> str:
        lines = []
        for _ in range(count):
            user, answer = self.rng.choice(self.data.shots)
            word = self.rng.choice(self.data.shot_words)
            lines.append(f"User: {Template(user).substitute(word=word)}")
            lines.append(f"Assistant: {Template(answer).substitute(word=word)}")
        return "\n".join(lines)

    def _case(self, aim: Aim, strategy: Strategy) -> dict[str, Any]:
        needs = aim.needs | ({"context"} if strategy.delivery == "context" else set())
        case: dict[str, Any] = {
            "tags": [REDTEAM_TAG, f"goal:{aim.goal}", f"strategy:{strategy.name}"]
        }
        if self.spec.must_pass:
            case["must_pass"] = True
        system = self._system(needs)
        if system is not None:
            case["system"] = system
        if strategy.delivery == "conversation":
            return self._conversation(case, aim, strategy)
        question = self.rng.choice(self._questions(aim))
        text = self._text(aim, strategy, question)
        documents = list(aim.documents)
        if strategy.delivery == "context":
            case["query"] = literal(question)
            documents.append(text)
        elif strategy.delivery == "tool_output":
            case["messages"] = self._replayed(question, text, aim)
        else:
            case["query"] = literal(text)
        if documents:
            case["context"] = [literal(document) for document in documents]
        case.update(_copied(aim.detector))
        return case

    def _conversation(self, case: dict[str, Any], aim: Aim, strategy: Strategy) -> dict[str, Any]:
        """A simulated conversation whose user is the attacker model, graded on every reply."""
        assert self.spec.attacker is not None  # `_playable`
        if aim.documents:
            case["context"] = [literal(document) for document in aim.documents]
        case["simulate"] = {
            "model": self.spec.attacker,
            "goal": literal(_capital(objective(aim.detector).rstrip(".")) + "."),
            "persona": literal(self.rng.choice(strategy.templates)),
            "max_turns": strategy.turns,
        }
        detector = _copied(aim.detector)
        if "judge" in detector:  # the policy's criterion, judged over the transcript
            case["judge"] = {}
            case["conversation"] = {"criteria": detector["judge"]["criteria"]}
        else:
            case["conversation"] = {"checks": detector["checks"]}
        return case

    def _system(self, needs: frozenset[str] | set[str]) -> str | None:
        """The case's system prompt: the suite's, with what the attack needs planted in it."""
        facts = self.facts
        if facts.variants and all(v.system is not None for v in facts.variants):
            return None  # each variant sends its own system message
        base = facts.system
        plants = self._plants(needs, base)
        if not plants:
            return None
        return "\n\n".join([base, *plants] if base else plants)

    def _plants(self, needs: frozenset[str] | set[str], base: str | None) -> list[str]:
        """What to add to the system prompt `base` for the attack's needs: canary, documents."""
        plants = []
        if "canary" in needs and not shows_canary(base):
            plants.append(self.data.plants["canary"])
        if (
            "context" in needs
            and not shows_context(base)
            and not _variants_show_context(self.facts)
        ):
            plants.append(self.data.plants["context"])
        return plants

    def _replayed(self, question: str, result: str, aim: Aim) -> list[dict[str, Any]]:
        """A conversation where a tool was called and its result carries the attack."""
        names = self.facts.tool_names
        others = [n for n in names if n != aim.values.get("tool")]
        name = others[0] if others else names[0]
        call = {
            "name": name,
            "arguments": _arguments(self.facts.tool(name), question),
            "id": "call_1",
        }
        return [
            {"role": "user", "content": literal(question)},
            {"role": "assistant", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": literal(result)},
        ]


NO_ATTACKER = (
    "strategy {name!r} needs an attacker model to play the user of the conversation: add "
    "`attacker: <model id>` (local/smollm2 runs offline) and write the attacks with "
    "`promptum redteam generate`"
)


def _carries(aim: Aim, strategy: Strategy) -> bool:
    """Whether the strategy can carry the aim: a conversation has no reply to assert fields on."""
    return strategy.delivery != "conversation" or aim.goal != "field"


def _variants_show_context(facts: SuiteFacts) -> bool:
    return bool(facts.variants) and all(
        any(shows_context(text) for text in v.texts) for v in facts.variants
    )


def _arguments(function: Mapping[str, Any], question: str) -> dict[str, Any]:
    """Plausible arguments of a replayed call: every required parameter filled in."""
    parameters = function.get("parameters") or {}
    filled: dict[str, Any] = {}
    for name in parameters.get("required", []):
        schema = parameters.get("properties", {}).get(name, {})
        if "enum" in schema:
            filled[name] = schema["enum"][0]
        else:
            kind = schema.get("type")
            filled[name] = {"integer": 1, "number": 1, "boolean": False}.get(kind, question)
    return filled


def _copied(detector: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of a detector, so no two cases share a mutable value."""
    copied: dict[str, Any] = json.loads(json.dumps(detector))
    if "judge" in copied:
        for criterion in copied["judge"]["criteria"].values():
            criterion["rubric"] = literal(criterion["rubric"])
    return copied


@dataclass(frozen=True, slots=True)
class Generation:
    """What a `redteam:` section generates: attacks, controls, and the default goals left out."""

    attacks: list[dict[str, Any]]
    controls: list[dict[str, Any]]
    """Each goal's detector on the carrier questions alone (`redteam-control`)."""
    unsupported: Mapping[str, str]
    """Goals of the default set (no `goals:`) the suite cannot support, each with why."""

    @property
    def cases(self) -> list[dict[str, Any]]:
        """The attacks, then the controls: every case the section adds to its suite."""
        return self.attacks + self.controls


def generate(
    spec: RedteamSpec,
    facts: SuiteFacts,
    seed: int | None = None,
    max_bytes: int | None = None,
    writer: IntentWriter | None = None,
) -> Generation:
    """The cases of a `redteam:` section; the same seed, the same cases.

    With `max_bytes`, a request whose cases would not fit in a suite file of that size is
    refused before any is built. With a `writer`, the attacker writes the intents the section
    asks for (`intents:`), which the strategies deliver; without one, the generic phrasings.
    Raise RedteamError listing every problem of the section (paths within it).
    """
    generator = _Generator(spec, facts, random.Random(spec.seed if seed is None else seed), data())
    generator.problems += _attacker_problems(spec)
    if spec.goat is not None and (why := goat_problem(spec.attacker, bool(facts.variants))):
        generator.problems.append((("goat",), why))
    generator.problems += search_problems(spec.tap, spec.crescendo, spec.attacker, spec.strategies)
    strategies = generator.strategies(spec.seed if seed is None else seed)
    goals = generator.goals()
    if writer is not None and spec.intents is not None and not generator.problems:
        goals, generator.data = with_intents(goals, facts, spec, writer, generator.data)
    plans = [] if generator.problems else generator.plans(goals, strategies)
    if max_bytes is not None and not generator.problems:
        why = too_large(generator.sizes(plans), spec.per_goal, max_bytes)
        if why is not None:
            generator.problems.append((("per_goal",), why))
    if generator.problems:
        raise RedteamError(generator.problems)
    attacks, controls = generator.cases(plans)
    return Generation(attacks, controls, dict(generator.unsupported))


def _attacker_problems(spec: RedteamSpec) -> list[tuple[Loc, str]]:
    """The keys that need an attacker model, given without one."""
    problems: list[tuple[Loc, str]] = []
    if spec.rounds is not None and spec.attacker is None:
        problems.append(
            (("rounds",), "`rounds` counts an attacker model's rewrites: it needs `attacker:`")
        )
    if spec.intents is not None and spec.attacker is None:
        problems.append(
            (
                ("intents",),
                "`intents` are written by an attacker model from the suite: add `attacker: "
                "<model id>` (local/smollm2 runs offline), or remove `intents:`",
            )
        )
    if spec.purpose is not None and spec.intents is None:
        problems.append(
            (
                ("purpose",),
                "`purpose` is what the attacker's intents aim at, and the section asks for "
                "none: add `intents: 3` (with `attacker:`), or remove `purpose:`",
            )
        )
    return problems


def generate_cases(
    spec: RedteamSpec,
    facts: SuiteFacts,
    seed: int | None = None,
    max_bytes: int | None = None,
) -> list[dict[str, Any]]:
    """The attack cases of a `redteam:` section, as case mappings; the same seed, the same cases.

    Raise RedteamError listing every problem of the section (paths within it). `generate`
    gives the controls too.
    """
    return generate(spec, facts, seed, max_bytes).attacks
