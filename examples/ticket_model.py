"""The structured output of the ticket-triage example: a pydantic model the suite names."""

from typing import Literal

from pydantic import BaseModel, Field


class Ticket(BaseModel):
    """How a support ticket is routed."""

    category: Literal["billing", "technical", "account", "other"]
    priority: Literal["low", "normal", "urgent"]
    summary: str = Field(max_length=60)
