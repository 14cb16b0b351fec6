"""The support bot of examples/app answers from 8 threads at once as it does from one.

promptum calls a sync target from up to 8 threads; a llama.cpp model used by two threads at
once aborts the process (or garbles answers), so the bot must serialise its model calls.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.embedded_model

BOT = Path(__file__).parents[1] / "examples" / "app" / "bot.py"

SCRIPT = """\
import importlib.util
import sys
from concurrent.futures import ThreadPoolExecutor

spec = importlib.util.spec_from_file_location("bot", sys.argv[1])
bot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bot)
questions = ["How long do refunds take?", "When will my order ship?", "When are you open?"]
alone = {question: bot.answer(question).text for question in questions}
asked = [questions[index % 3] for index in range(8)]
with ThreadPoolExecutor(8) as pool:
    together = list(pool.map(lambda question: bot.answer(question).text, asked))
print(sum(alone[question] == text for question, text in zip(asked, together)), "of 8 same")
"""


@pytest.mark.slow
def test_the_bot_answers_eight_threads_at_once_as_it_answers_one() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(BOT)],
        # Without a debugger attaching to print where llama.cpp aborted.
        env={**os.environ, "GGML_NO_BACKTRACE": "1"},
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "8 of 8 same"
