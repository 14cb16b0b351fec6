"""`EndpointPacer`: the pace of one endpoint, shared by every call a run makes to it.

Every call to the endpoint, the judge's and the simulated user's included, is admitted here
first. It waits while any of these says so:

- the limits a user states (``rpm:`` / ``tpm:`` on the endpoint, ``--rpm`` / ``--tpm``) and
  the limits the endpoint tells in its answers' headers: token buckets holding half a second
  of the smaller of each, a call costing one request and its estimated tokens
  (`estimated_tokens`), corrected by the answer's usage;
- a pause: a 429's ``Retry-After``, or a limit the headers say is used up, holds every call
  queued for the endpoint, not just the one that got it;
- a rate found by trying (additive increase, multiplicative decrease): after a 429 or a
  5xx, the endpoint's rate is cut to `CUT` of what it answered lately, then each answer
  adds `RECOVERY` to it (calls a second): it grows back by 2% a second, whatever the rate.

With no limit stated, the endpoint's first call goes alone: its answer's headers usually
tell the limits before the run's concurrency sends a burst into them.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass

from promptum.providers._base import ModelRequest
from promptum.providers._told_limits import reset_s, told_limits

CHARS_PER_TOKEN = 4
"""The estimate of a call's prompt tokens: its messages' characters divided by this."""
ANSWER_TOKENS = 256
"""The estimate of an answer's tokens when the request sets no ``max_tokens``."""
BURST_S = 0.5
"""Seconds of its limit the pacer lets go at once: providers enforce a minute's limit over
spans as short as a second, and a burst of a whole minute's calls would meet 429s."""
CUT = 0.7
"""The found rate after a 429 or 5xx, as a share of the rate the endpoint answered lately."""
RECOVERY = 0.02
"""What each answer adds to a found rate (calls a second): as many answers a second come as
the rate, so it grows by 2% a second and is back from a cut in about 18 s."""
PAUSE_S = 1.0
"""How long a 429 without ``Retry-After`` pauses the endpoint."""


def estimated_tokens(request: ModelRequest) -> int:
    """What a call is charged before its answer: prompt characters / 4, plus its answer's cap."""
    characters = sum(len(message.content) for message in request.messages)
    return math.ceil(characters / CHARS_PER_TOKEN) + (request.max_tokens or ANSWER_TOKENS)


@dataclass(slots=True)
class _Bucket:
    """A token bucket refilled at `per_s`, holding `BURST_S` of it; a correction may owe."""

    per_s: float
    level: float
    stamp: float

    @classmethod
    def full(cls, per_s: float, now: float) -> _Bucket:
        bucket = cls(per_s, 0.0, now)
        bucket.level = bucket.capacity
        return bucket

    @property
    def capacity(self) -> float:
        return max(self.per_s * BURST_S, 1.0)

    def wait_s(self, amount: float, now: float) -> float:
        """Seconds until `amount` may be taken (a cost above capacity waits for a full one)."""
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.per_s)
        self.stamp = now
        return max(min(amount, self.capacity) - self.level, 0.0) / self.per_s

    def retune(self, per_s: float, now: float) -> None:
        """Refill at `per_s` from now on."""
        self.wait_s(0, now)
        self.per_s = per_s
        self.level = min(self.level, self.capacity)


@dataclass(frozen=True, slots=True)
class Admission:
    """One admitted call: its number in the endpoint's order, the tokens it was charged."""

    number: int
    tokens: int


class EndpointPacer:
    """The pace of one endpoint for a whole run (see the module's docstring)."""

    def __init__(self, name: str, rpm: int | None = None, tpm: int | None = None) -> None:
        self.name = name
        self._stated = (rpm, tpm)
        self._told: tuple[int | None, int | None] = (None, None)
        self._requests: _Bucket | None = None
        self._tokens: _Bucket | None = None
        self._found: _Bucket | None = None
        """The rate found after a 429 (None until one)."""
        self._paused_until = 0.0
        self._admitted = 0
        self._last_cut = -1
        """The admissions when the rate was last cut: a 429 of a call admitted before that
        was sent at the old rate and does not cut it again."""
        self._cut_due = False
        """A cut waits for the pause to end: by then the calls in flight have answered, and
        `_rate` says what got through."""
        self._in_flight = 0
        self._heard = False
        """Whether any call to the endpoint has ended: until then one goes alone."""
        self._window = (0.0, 0)
        """(start, calls answered since): the window `_rate` is measured over; it opens with
        the endpoint's first call, so a run's loading does not count as a slow endpoint."""
        self._rate = 0.0
        """Calls answered per second over the last whole second: what the endpoint sustains."""
        self._turn = asyncio.Lock()
        """Admissions wait in arrival order: the first in line sleeps, the others queue."""
        self._changed = asyncio.Event()
        """Set when a wait may be shorter (a correction, an answer): the first in line looks."""
        self.limited = 0
        """429s the endpoint answered this run."""
        self._retune(time.monotonic())

    def _free(self) -> bool:
        return (
            self._heard
            and self._requests is None
            and self._tokens is None
            and self._found is None
            and self._paused_until == 0.0
            and not self._cut_due
        )

    async def admit(self, request: ModelRequest) -> Admission:
        """Wait until the endpoint's pace allows one more call of `request`; its admission."""
        if self._free():
            return self._admission(0)
        tokens = estimated_tokens(request)
        async with self._turn:
            while (wait := self._wait_s(tokens, time.monotonic())) > 0:
                self._changed.clear()
                try:
                    async with asyncio.timeout(None if math.isinf(wait) else wait):
                        await self._changed.wait()
                except TimeoutError:
                    pass
            return self._admission(tokens)

    def _wait_s(self, tokens: int, now: float) -> float:
        if not self._heard and self._in_flight and self._stated == (None, None):
            return math.inf  # the first call's answer tells the limits: wait for it
        if self._paused_until <= now:
            self._paused_until = 0.0  # over: the free path may serve again
            if self._cut_due:
                self._cut(now)
        wait = self._paused_until - now
        if self._requests is not None:
            wait = max(wait, self._requests.wait_s(1, now))
        if self._tokens is not None:
            wait = max(wait, self._tokens.wait_s(tokens, now))
        if self._found is not None:
            wait = max(wait, self._found.wait_s(1, now))
        return wait

    def _admission(self, tokens: int) -> Admission:
        for bucket, cost in ((self._requests, 1), (self._found, 1)):
            if bucket is not None:
                bucket.level -= cost
        if self._tokens is None:
            tokens = 0  # nothing charged, so nothing to correct
        else:
            self._tokens.level -= tokens
        self._admitted += 1
        self._in_flight += 1
        if self._admitted == 1:  # the endpoint's first call opens the window
            self._window = (time.monotonic(), 0)
        return Admission(self._admitted, tokens)

    def _ended(self) -> None:
        self._in_flight -= 1
        self._heard = True
        self._changed.set()

    def answered(self, admission: Admission, used_tokens: int | None) -> None:
        """A call was answered: charge its real tokens instead of the estimate; grow back."""
        self._ended()
        started, count = self._window
        now = time.monotonic()
        if now - started >= 1.0:
            self._rate = (count + 1) / (now - started)
            self._window = (now, 0)
        else:
            self._window = (started, count + 1)
        if self._tokens is not None and used_tokens is not None and admission.tokens:
            self._tokens.level = min(
                self._tokens.capacity, self._tokens.level + admission.tokens - used_tokens
            )
        found = self._found
        if found is not None:
            found.per_s += RECOVERY
            ceiling = self._known_per_s()
            if ceiling is not None and found.per_s >= ceiling:
                self._found = None  # grown back to the known limit: that paces again

    def refused(self, admission: Admission, retry_after: float | None) -> None:
        """The call was answered 429: pause the whole endpoint, and cut its rate once."""
        self._ended()
        self.limited += 1
        now = time.monotonic()
        wait = PAUSE_S if retry_after is None else retry_after
        self._paused_until = max(self._paused_until, now + wait)
        self._cut_once(admission)

    def overloaded(self, admission: Admission) -> None:
        """The call failed with a 5xx: the endpoint is overloaded; cut its rate once."""
        self._ended()
        self._cut_once(admission)

    def released(self, admission: Admission) -> None:
        """The call ended otherwise (an error not about load, or it was cancelled)."""
        self._ended()

    def _cut_once(self, admission: Admission) -> None:
        """Cut the rate when the pause ends, unless the call was sent before the last cut."""
        if admission.number > self._last_cut:
            self._last_cut = self._admitted
            self._cut_due = True

    def _cut(self, now: float) -> None:
        self._cut_due = False
        started, count = self._window
        sustained = self._rate or count / max(now - started, 1.0)
        if sustained <= 0:
            return  # nothing answered yet, so no rate to cut: the pause and retries wait
        if self._found is not None:
            sustained = min(sustained, self._found.per_s)
        known = self._known_per_s()
        if known is not None:
            sustained = min(sustained, known)
        self._found = _Bucket(max(sustained * CUT, 1 / 60), 0.0, now)  # empty: after a refusal

    def observe(self, headers: Mapping[str, str]) -> None:
        """Read an answer's rate-limit headers: adopt the limits they tell, pause when used up."""
        told = told_limits(headers)
        if told is None:
            return
        now = time.monotonic()
        if (told.rpm, told.tpm) != self._told:
            self._told = (told.rpm, told.tpm)
            self._retune(now)
        # Used up (by this run or another user of the key): wait for the next call's share.
        if told.requests_left == 0 and told.rpm:
            reset = reset_s(headers, told, "requests")
            self._pause(now, 60 / told.rpm if reset is None else min(reset, 60 / told.rpm))
        if told.tokens_left == 0 and told.tpm:
            share = 60 * ANSWER_TOKENS / told.tpm
            reset = reset_s(headers, told, "tokens")
            self._pause(now, share if reset is None else min(reset, share))

    def _pause(self, now: float, seconds: float) -> None:
        self._paused_until = max(self._paused_until, now + seconds)

    def _retune(self, now: float) -> None:
        """Pace at the smaller of the stated and the told limit of each kind."""
        rpm, tpm = (
            min((v for v in pair if v), default=None)
            for pair in zip(self._stated, self._told, strict=True)
        )
        self._requests = _retuned(self._requests, rpm, now)
        self._tokens = _retuned(self._tokens, tpm, now)

    def _known_per_s(self) -> float | None:
        return self._requests.per_s if self._requests is not None else None

    def describe(self) -> str | None:
        """The endpoint's pace in a few words (progress line), or None when nothing paces it."""
        backing_off = self._paused_until - time.monotonic()
        paced = self._requests or self._tokens or self._found
        if paced is None and not self.limited and backing_off <= 0:
            return None
        started, count = self._window
        rate = self._rate or count / max(time.monotonic() - started, 1.0)  # a first second
        parts = [f"{self.name} {rate:.1f} calls/s"]
        rpm = min((v for v in (*self._stated[:1], *self._told[:1]) if v), default=None)
        if rpm is not None:
            parts.append(f"of {rpm} rpm")
        if self._found is not None:
            parts.append(f"found {self._found.per_s * 60:.0f} rpm")
        if self.limited:
            parts.append(f"{self.limited} × 429")
        if backing_off > 0:
            parts.append(f"backing off {backing_off:.1f} s")
        return " ".join(parts)


def _retuned(bucket: _Bucket | None, per_minute: int | None, now: float) -> _Bucket | None:
    if per_minute is None:
        return None
    if bucket is None:
        return _Bucket.full(per_minute / 60, now)
    bucket.retune(per_minute / 60, now)
    return bucket
