"""Deduplicated, stratified, seeded sampling of calls, holding only what may be kept.

Each distinct request gets a key, a hash of the seed and the request; each stratum (model,
tool called) keeps its `size` smallest keys as calls arrive. At the end the sample is shared
out between strata in proportion to their distinct requests (each stratum first gets one),
and each takes its smallest keys: the same files and seed give the same sample, whatever
the order of the lines.
"""

from __future__ import annotations

import hashlib
import heapq
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from promptum.importers.traces._call import Call

Stratum = tuple[str, str]
"""The model asked and the tool its answer called ("" for none)."""


def fingerprint(call: Call) -> bytes:
    """What makes two requests the same: the messages and the tools offered (not the model)."""
    said = json.dumps([call.messages, call.tools], sort_keys=True, ensure_ascii=False)
    return hashlib.blake2b(said.encode(), digest_size=8).digest()


@dataclass
class Sampler:
    """Takes calls one by one; `sample` is the deduplicated, stratified sample of `size`."""

    size: int | None
    seed: int = 0
    duplicates: int = 0
    distinct: Counter[Stratum] = field(default_factory=Counter)
    _seen: set[bytes] = field(default_factory=set)
    _kept: dict[Stratum, list[tuple[int, int, Call]]] = field(default_factory=dict)
    _order: int = 0

    def offer(self, call: Call) -> None:
        """Count the call; keep it if it is new and may be in the sample."""
        digest = fingerprint(call)
        if digest in self._seen:
            self.duplicates += 1
            return
        self._seen.add(digest)
        stratum = (call.model, call.tool_called)
        self.distinct[stratum] += 1
        self._order += 1
        kept = self._kept.setdefault(stratum, [])
        if self.size is None:
            kept.append((0, self._order, call))
            return
        seeded = hashlib.blake2b(digest, digest_size=8, key=str(self.seed).encode()).digest()
        entry = (-int.from_bytes(seeded, "big"), self._order, call)  # a max-heap of the smallest
        if len(kept) < self.size:
            heapq.heappush(kept, entry)
        elif entry > kept[0]:
            heapq.heapreplace(kept, entry)

    def quotas(self) -> dict[Stratum, int]:
        """How many calls each stratum gives to the sample."""
        if self.size is None or self.size >= sum(self.distinct.values()):
            return dict(self.distinct)
        return allocate(self.size, self.distinct)

    def sample(self) -> Iterator[Call]:
        """The calls kept, in the order they were read."""
        chosen: list[tuple[int, Call]] = []
        for stratum, quota in self.quotas().items():
            smallest = sorted(self._kept.get(stratum, []), reverse=True)[:quota]
            chosen += [(order, call) for _, order, call in smallest]
        return (call for _, call in sorted(chosen, key=lambda pair: pair[0]))


def allocate(size: int, counts: Counter[Stratum]) -> dict[Stratum, int]:
    """`size` shared between strata in proportion to `counts` (highest averages), one each first."""
    ranked = sorted(counts, key=lambda stratum: (-counts[stratum], stratum))
    quota = dict.fromkeys(ranked, 0)
    for stratum in ranked[:size]:
        quota[stratum] = 1
    averages = [(-counts[s] / 2, s) for s in ranked if counts[s] > 1]
    heapq.heapify(averages)
    for _ in range(size - sum(quota.values())):
        _, stratum = heapq.heappop(averages)
        quota[stratum] += 1
        if quota[stratum] < counts[stratum]:
            heapq.heappush(averages, (-counts[stratum] / (quota[stratum] + 1), stratum))
    return quota
