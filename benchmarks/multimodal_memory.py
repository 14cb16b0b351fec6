"""Does a suite of image cases run in flat memory? 1,000 against 10,000 cases of 100 KB images.

Each size is one JSONL file, a row per case whose `query:` sends its own 100 KB PNG file
(distinct bytes per file), run as a whole process by `promptum run` against the instant
local server of `run_overhead.py` (concurrency 16, no cache, the run store on, a JSONL
report streamed). Loading reads each file once for its digest and type; the request reads
it again as it is sent; no case holds its image. Target: peak RSS at 10,000 cases within
1.2x of the RSS at 1,000, measured in the same run.

Run from the repository root: ``.venv/bin/python benchmarks/multimodal_memory.py [SIZES...]``
(default ``1000 10000``; writes 100 KB per case to a temporary folder, 1 GB at 10,000).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from run_overhead import instant_server
from scale import _run

SIZES = (1_000, 10_000)
IMAGE_BYTES = 100 * 1024
PNG = b"\x89PNG\r\n\x1a\n"
SUITE = """\
name: images
endpoints:
  bench:
    base_url: {base_url}
    max_concurrency: 16
models: [bench/m]
defaults:
  checks:
    - {{type: contains, value: Hello}}
cases_from: cases.jsonl
"""


def _write_suite(folder: Path, base_url: str, size: int) -> Path:
    """The suite, its JSONL rows and one distinct 100 KB PNG per row."""
    images = folder / "images"
    images.mkdir()
    filler = bytes(range(256)) * (IMAGE_BYTES // 256)
    with (folder / "cases.jsonl").open("w") as rows:
        for n in range(size):
            name = f"images/{n:06d}.png"
            (folder / name).write_bytes(PNG + n.to_bytes(4, "big") + filler)
            query = {"text": "What is the total?", "images": [name]}
            rows.write(json.dumps({"id": f"case-{n:06d}", "query": query}) + "\n")
    suite = folder / "suite.yaml"
    suite.write_text(SUITE.format(base_url=base_url))
    return suite


def _measured(base_url: str, size: int) -> tuple[float, float, int, int]:
    """One run of `size` cases in a fresh folder: wall seconds, peak MB, exit code, results."""
    with tempfile.TemporaryDirectory(prefix="promptum-images-") as name:
        folder = Path(name)
        seconds, peak_mb, code = _run(folder, _write_suite(folder, base_url, size))
        with (folder / "out.jsonl").open() as results:
            return seconds, peak_mb, code, sum(1 for _ in results)


def main(sizes: tuple[int, ...]) -> None:
    """Run every size and print wall time and peak RSS against the smallest."""
    with instant_server() as base_url:
        rows = {size: _measured(base_url, size) for size in sizes}
    base_peak = rows[sizes[0]][1]
    print("promptum run, one 100 KB image per case, concurrency 16, store on, JSONL out")
    print(f"{'cases':>7} {'wall s':>7} {'peak MB':>8} {'× base':>7} {'exit':>4} {'jsonl':>6}")
    for size, (seconds, peak, code, lines) in rows.items():
        ratio = peak / base_peak
        print(f"{size:>7} {seconds:>7.1f} {peak:>8.0f} {ratio:>6.2f}x {code:>4} {lines:>6}")
    print(f"base: {sizes[0]} cases; target: peak RSS at the largest <= 1.2x base")


if __name__ == "__main__":
    main(tuple(int(arg) for arg in sys.argv[1:]) or SIZES)
