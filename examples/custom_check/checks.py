"""Checks of this suite's own, named from suite.yaml as `checks.py:<function>`."""

from __future__ import annotations

from promptum import CheckInput


def names_the_city(response: CheckInput) -> tuple[bool, str | None]:
    """The response names the case's `city`."""
    city = str(response.vars["city"])
    if city.lower() in response.text.lower():
        return True, None
    return False, f"{city} is not named"


def no_apology(response: CheckInput) -> bool:
    """The response does not apologise."""
    text = response.text.lower()
    return "sorry" not in text and "apolog" not in text
