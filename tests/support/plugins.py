"""Installing a plugin package the way pip leaves one: modules, and a dist-info with entry points.

`importlib.metadata` (and so promptum) finds its entry points on ``sys.path`` or
``PYTHONPATH`` exactly as it would a package pip installed there. Written by hand because
building a wheel offline would need a build backend this machine may not have.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path


def install_plugin(
    site: Path,
    name: str,
    entry_points: Mapping[str, Mapping[str, str]],
    modules: Mapping[str, str] | None = None,
    version: str = "0.1.0",
) -> Path:
    """Write package ``name`` into ``site``: its ``modules`` (name to source) and its dist-info.

    ``entry_points`` maps a group (``promptum.checks``) to ``{name: "module:attribute"}``.
    Returns the dist-info folder.
    """
    site.mkdir(parents=True, exist_ok=True)
    for module, source in (modules or {}).items():
        (site / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    lines: list[str] = []
    for group, items in entry_points.items():
        lines += [f"[{group}]", *(f"{key} = {value}" for key, value in items.items()), ""]
    (info / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")
    return info
