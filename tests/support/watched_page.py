"""A browser page with everything that must never happen on it recorded, for the tests to assert."""

from __future__ import annotations

from typing import Any


class Watched:
    """A page with its dialogs, script errors (console ones too) and requests recorded."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.requests: list[str] = []
        page.on("dialog", lambda dialog: (self.dialogs.append(dialog.message), dialog.dismiss()))
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on(
            "console", lambda msg: self.errors.append(msg.text) if msg.type == "error" else None
        )
        page.on("request", lambda request: self.requests.append(request.url))
