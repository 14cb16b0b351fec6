"""The few GitHub REST calls the action makes: artifacts of the base branch, the sticky comment.

The base URL is ``$GITHUB_API_URL`` (GitHub Enterprise sets it; tests point it at a local
server). The token is sent to that host only: an artifact's download redirects to storage
elsewhere, which gets no ``Authorization`` header.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from promptum.errors import PromptumError

_TIMEOUT_S = 30.0
_PAGES = 20
_MAX_BYTES = 64 * 1024 * 1024


def _same_origin(url: str, api_url: str) -> bool:
    """Whether `url` is on the API's own scheme and host.

    A prefix test would also let ``https://api.github.com.evil/`` have the token.
    """
    mine, theirs = urllib.parse.urlsplit(api_url), urllib.parse.urlsplit(url)
    return (mine.scheme, mine.netloc) == (theirs.scheme, theirs.netloc)


"""Pages of 100 comments searched for the sticky one before a new one is made."""


class GitHubError(PromptumError):
    """A GitHub API call failed; the message says which and how."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class Artifact:
    """A workflow run's artifact: what the base branch's last run uploaded."""

    id: int
    name: str
    branch: str
    download_url: str
    created_at: str


class GitHubClient:
    """A small JSON client of the REST API, for one repository."""

    def __init__(self, api_url: str, repository: str, token: str | None) -> None:
        self.api_url = api_url.rstrip("/")
        self.repository = repository
        self._token = token

    def _request(self, method: str, url: str, body: Any = None) -> urllib.request.Request:
        if not url.startswith(("http://", "https://")):
            url = f"{self.api_url}/{url.lstrip('/')}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("X-GitHub-Api-Version", "2022-11-28")
        request.add_header("User-Agent", "promptum-action")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self._token and _same_origin(url, self.api_url):
            # Unredirected: a redirect to artifact storage must not carry the token along.
            request.add_unredirected_header("Authorization", f"Bearer {self._token}")
        return request

    def _open(self, request: urllib.request.Request) -> bytes:
        try:
            with urllib.request.urlopen(request, timeout=_TIMEOUT_S) as response:
                payload: bytes = response.read(_MAX_BYTES + 1)
            if len(payload) > _MAX_BYTES:
                # A baseline is a zipped JSON report; anything this big is not one.
                raise GitHubError(
                    f"{request.full_url} sent more than {_MAX_BYTES:,} bytes; not read", None
                )
            return payload
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode(errors="replace")[:300]
            raise GitHubError(
                f"GitHub answered {exc.code} to {request.get_method()} {request.full_url}: "
                f"{detail}",
                exc.code,
            ) from None
        except (urllib.error.URLError, OSError) as exc:
            raise GitHubError(f"GitHub could not be reached at {request.full_url}: {exc}") from None

    def call(self, method: str, path: str, body: Any = None) -> Any:
        """One API call; its JSON answer."""
        payload = self._open(self._request(method, path, body))
        return json.loads(payload) if payload else None

    def download(self, url: str) -> bytes:
        """The bytes at `url`, following redirects (an artifact's zip)."""
        return self._open(self._request("GET", url))

    def latest_artifact(self, name: str, branch: str) -> Artifact | None:
        """The newest unexpired artifact `name` uploaded by a run on `branch`, if any."""
        query = urllib.parse.urlencode({"name": name, "per_page": 100})
        listing = self.call("GET", f"repos/{self.repository}/actions/artifacts?{query}")
        found = [
            Artifact(
                id=item["id"],
                name=item["name"],
                branch=(item.get("workflow_run") or {}).get("head_branch") or "",
                download_url=item["archive_download_url"],
                created_at=item.get("created_at") or "",
            )
            for item in (listing or {}).get("artifacts", [])
            if item.get("name") == name and not item.get("expired") and _own_run(item)
        ]
        on_branch = [artifact for artifact in found if artifact.branch == branch]
        return max(on_branch, key=lambda a: a.created_at, default=None)

    def upsert_comment(self, issue: int, marker: str, body: str) -> tuple[str, str]:
        """Update the comment holding `marker`, or create it; ``(created|updated, url)``."""
        comments = f"repos/{self.repository}/issues/{issue}/comments"
        for page in range(1, _PAGES + 1):
            listed = self.call("GET", f"{comments}?per_page=100&page={page}") or []
            for comment in listed:
                if marker in (comment.get("body") or ""):
                    path = f"repos/{self.repository}/issues/comments/{comment['id']}"
                    updated = self.call("PATCH", path, {"body": body})
                    return "updated", str(updated.get("html_url", ""))
            if len(listed) < 100:
                break
        created = self.call("POST", comments, {"body": body})
        return "created", str(created.get("html_url", ""))


def _own_run(item: dict[str, Any]) -> bool:
    """Whether an artifact comes from a run of the repository itself, not of a fork.

    A fork's pull request may name its branch ``main``; its artifacts must not become the
    baseline every later pull request is compared with.
    """
    run = item.get("workflow_run") or {}
    head, own = run.get("head_repository_id"), run.get("repository_id")
    return head is not None and head == own
