"""The structured output of the receipts example: what a model reads off a receipt."""

import datetime

from pydantic import BaseModel, Field


class Receipt(BaseModel):
    """The fields of one receipt."""

    merchant: str = Field(description="The shop's name, as printed at the top.")
    date: datetime.date = Field(description="The date printed on the receipt.")
    total: float = Field(description="The amount paid, in dollars.")
