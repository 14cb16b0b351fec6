"""A small support bot: retrieves from knowledge.txt, answers with the embedded model.

It is the application the suite tests as a target (`target: bot.py:answer`): retrieval,
a defence against instructions planted in the documents, a tool call to hand the
customer to a person, and the model call, all in one function.
"""

from __future__ import annotations

import re
import threading
from functools import cache
from pathlib import Path
from typing import Any

from promptum import TargetResult

KNOWLEDGE = Path(__file__).with_name("knowledge.txt")
# Instructions hidden in a document are data, never orders: cut them out before the prompt.
PLANTED = re.compile(r"ignore (all |any )?previous instructions.*", re.IGNORECASE)
CREATE_TICKET = {
    "type": "function",
    "function": {
        "name": "create_ticket",
        "description": "Hand the customer over to a person",
        "parameters": {
            "type": "object",
            "properties": {"summary": {"type": "string"}},
            "required": ["summary"],
        },
    },
}


# promptum calls a sync target from several threads at once (8 by default), and a llama.cpp
# model must not be used by two threads at a time: one call at a time goes through it.
_MODEL_LOCK = threading.Lock()


@cache
def _model() -> Any:
    from llama_cpp import Llama

    from promptum.providers import local_model_path

    path = local_model_path("smollm2")
    return Llama(model_path=str(path), n_ctx=2048, n_threads=1, seed=0, verbose=False)


def retrieve(query: str) -> tuple[str, str]:
    """The (topic, text) of the paragraph sharing most words with the query."""
    words = set(re.findall(r"\w+", query.lower()))
    best = ("", "", -1)
    for paragraph in KNOWLEDGE.read_text().split("\n\n"):
        topic, _, text = paragraph.strip().partition(": ")
        overlap = len(words & set(re.findall(r"\w+", paragraph.lower())))
        if overlap > best[2]:
            best = (topic, text, overlap)
    return best[0], PLANTED.sub("", best[1]).strip()


def answer(query: str) -> TargetResult:
    """Answer a customer from the knowledge base, or open a ticket for a person."""
    with _MODEL_LOCK:
        return _answer(_model(), query)


def _answer(llm: Any, query: str) -> TargetResult:
    if re.search(r"\b(human|person|agent)\b", query, re.IGNORECASE):
        from llama_cpp.llama_chat_format import chatml_function_calling

        forced = {"type": "function", "function": {"name": "create_ticket"}}
        response = chatml_function_calling(
            llama=llm,
            messages=[{"role": "user", "content": query}],
            tools=[CREATE_TICKET],
            tool_choice=forced,
            temperature=0.0,
            max_tokens=64,
        )
        calls = response["choices"][0]["message"].get("tool_calls") or []
        tool_calls = [
            {"name": c["function"]["name"], "arguments": c["function"]["arguments"]} for c in calls
        ]
        return TargetResult("A colleague will contact you.", tool_calls=tuple(tool_calls))
    topic, document = retrieve(query)
    response = llm.create_chat_completion(
        messages=[
            {"role": "system", "content": f"Answer in one sentence using only: {document}"},
            {"role": "user", "content": query},
        ],
        temperature=0.0,
        max_tokens=64,
    )
    text = response["choices"][0]["message"]["content"] or ""
    usage = response.get("usage") or {}
    return TargetResult(
        text,
        output={"answer": text, "source": topic},
        input_tokens=usage.get("prompt_tokens"),
        output_tokens=usage.get("completion_tokens"),
    )
