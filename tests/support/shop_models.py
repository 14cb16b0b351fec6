"""A shop's order and support ticket as pydantic models: the field-assertion tests' outputs,
and the text of a user's response-model module that the validate tests write beside a suite."""

from datetime import date
from enum import StrEnum

from pydantic import BaseModel, Field


class Priority(StrEnum):
    low = "low"
    urgent = "urgent"


class Severity(StrEnum):
    LOW = "low"
    HIGH = "high"


class Customer(BaseModel):
    name: str
    email: str


class Item(BaseModel):
    sku: str
    quantity: int


class Order(BaseModel):
    order_id: str
    customer: Customer
    items: list[Item]
    priority: Priority
    due: date | None = None
    notes: dict[str, str] = {}
    city: str = Field(default="", alias="cityName")


class Ticket(BaseModel):
    due: date
    severity: Severity
    refund_to: str
    customer: Customer
    items: list[Item]
