"""Content parts in reports: small images embedded as data: URLs, the rest named, nothing loaded."""

from __future__ import annotations

import base64
import hashlib
import html as html_module
import re
from pathlib import Path

import pytest

from promptum.reporting import _html as html_report
from promptum.reporting import render_report
from promptum.reporting._part_views import THUMBNAIL_MAX_BYTES, part_views
from promptum.values.content import ContentPart
from promptum.values.run_result import Message
from tests.reporting.part_samples import MODEL, REMOTE, file_part, parts_run, receipt_parts
from tests.store.samples import make_run
from tests.support.media import JPEG, PNG, media


def test_a_small_image_is_its_data_url_and_the_rest_are_named(tmp_path: Path) -> None:
    small, large, terms, remote = part_views(receipt_parts(tmp_path))

    assert small.src.startswith("data:image/png;base64,")
    assert (
        base64.b64decode(small.src.split(",", 1)[1]) == (tmp_path / "receipts/001.png").read_bytes()
    )
    assert (small.kind, small.media_type, small.note) == ("image", "image/png", "")
    assert large.src == ""
    assert f"over the {THUMBNAIL_MAX_BYTES // 1024} KB shown inline" in large.note
    assert (
        large.digest
        == hashlib.sha256((tmp_path / "receipts/scan.png").read_bytes()).hexdigest()[:12]
    )
    assert (terms.kind, terms.src, terms.name) == ("document", "", str(tmp_path / "terms.pdf"))
    assert (remote.name, remote.src, remote.digest) == (REMOTE, "", "")
    assert remote.note == "an image given by URL is not loaded"


def test_an_image_is_embedded_only_with_the_digest_and_type_it_was_run_with(
    tmp_path: Path,
) -> None:
    changed = media(tmp_path / "changed.png", PNG, 100)
    kept = file_part(changed, "image", "image/png")
    changed.write_bytes(PNG + b"other bytes")
    disguised = file_part(media(tmp_path / "photo.png", JPEG, 100), "image", "image/png")
    missing = file_part(media(tmp_path / "gone.png", PNG, 100), "image", "image/png")
    (tmp_path / "gone.png").unlink()

    views = part_views([kept, disguised, missing])

    assert [view.src for view in views] == ["", "", ""]
    assert views[0].note == "changed since the run: not shown"
    assert views[1].note == "not image/png data: not shown"
    assert views[2].note.startswith("cannot read it here (No such file or directory)")


def test_inline_data_is_shown_when_it_is_the_image_it_names() -> None:
    data = PNG + bytes(range(50))
    encoded = base64.b64encode(data).decode()
    digest = hashlib.sha256(data).hexdigest()
    inline = ContentPart(type="image", media_type="image/png", data=encoded, sha256=digest)

    [view] = part_views([inline])

    assert view.src == f"data:image/png;base64,{encoded}"
    assert view.name == "inline image/png"


def test_the_report_holds_the_thumbnail_and_allows_only_data_images(tmp_path: Path) -> None:
    page = render_report(parts_run(tmp_path), "html")

    encoded = base64.b64encode((tmp_path / "receipts/001.png").read_bytes()).decode()
    assert f"data:image/png;base64,{encoded}" in page
    assert "scan.png" in page
    assert "data:image/png;base64,iVBORw0KGgoAAQID" not in page  # the large one is not embedded
    assert re.search(r"<[^<>]*\s(src|href)=", page) is None  # the script makes the <img>
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    directives = dict(d.strip().split(" ", 1) for d in html_module.unescape(policy[1]).split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["img-src"] == "data:"


def test_thumbnails_past_the_reports_share_are_only_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(html_report, "_THUMBNAILS_MAX_CHARS", 1)  # the first image spends it
    run = make_run("run-many", {(f"r{n}", MODEL): ["pass"] for n in range(3)})
    for n, result in enumerate(run.results):
        image = file_part(media(tmp_path / f"{n}.png", PNG, 100 + n), "image", "image/png")
        message = Message(role="user", content="Total?", parts=(image,))
        run.results[n] = result.model_copy(update={"messages": [message]})

    page = render_report(run, "html")

    assert page.count("data:image/png;base64,") == 1
    assert page.count("the report\\u0027s 20 MB of thumbnails are used up") == 2
