"""What Ray workers rely on, without Ray: a suite's module imported by the driver's name.

`load_module` notes each module it loads from beside a suite; `install_suite_modules` makes
another process import it under the same name from a copy of its folder holding the very
same file (as Ray's ``py_modules`` ships it), and says clearly when no copy does.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path

from promptum.foundations.user_code import SuiteModule, load_module, suite_modules

MODULE = """\
from functools import cache


@cache
def answer() -> str:
    return "from " + __file__
"""

IMPORT = """\
import json, sys
from promptum.foundations.user_code import SuiteModule, install_suite_modules
module = SuiteModule(**json.loads(sys.argv[1]))
sys.path.insert(0, sys.argv[2])
install_suite_modules([module])
imported = __import__(module.name)
print(imported.answer())
"""


def _import_elsewhere(module: SuiteModule, root: Path) -> subprocess.CompletedProcess[str]:
    """Import `module` in a fresh process whose Python path starts with `root`."""
    return subprocess.run(
        [sys.executable, "-c", IMPORT, json.dumps(dataclasses.asdict(module)), str(root)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def _loaded(tmp_path: Path) -> SuiteModule:
    folder = tmp_path / "suites"
    folder.mkdir()
    (folder / "bot.py").write_text(MODULE)
    loaded = load_module("bot", folder)
    (module,) = [m for m in suite_modules() if m.name == loaded.__name__]
    assert (module.folder, module.file) == (str(folder.resolve()), "bot.py")
    return module


def test_another_process_imports_the_module_by_its_name_from_a_shipped_copy(
    tmp_path: Path,
) -> None:
    module = _loaded(tmp_path)
    shipped = tmp_path / "ray_pkg"
    shutil.copytree(module.folder, shipped / "suites")
    done = _import_elsewhere(module, shipped)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"from {shipped / 'suites' / 'bot.py'}"


def test_a_copy_holding_another_file_is_not_used(tmp_path: Path) -> None:
    module = _loaded(tmp_path)
    shipped = tmp_path / "ray_pkg"
    shutil.copytree(module.folder, shipped / "suites")
    (shipped / "suites" / "bot.py").write_text(MODULE + "\n# changed\n")
    done = _import_elsewhere(module, shipped)
    assert done.stdout.strip() == f"from {Path(module.folder) / 'bot.py'}"  # the original

    (Path(module.folder) / "bot.py").write_text(MODULE + "\n# changed too\n")
    done = _import_elsewhere(module, shipped)
    assert done.returncode == 1
    assert "cannot import bot.py" in done.stderr
    assert "no copy of its folder on this machine holds the file as it was loaded" in done.stderr
