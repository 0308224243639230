"""Page paths: safe, stable, readable, and never shared by two ids."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from reportgen.site import paths
from reportgen.site.render import page_url

SAFE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


def test_safe_ids_are_kept_as_they_are() -> None:
    assert paths.slug("fix-login") == "fix-login"
    assert paths.slug("2026-11-28") == "2026-11-28"


def test_unsafe_ids_get_a_readable_slug_and_a_hash() -> None:
    slug = paths.slug("../../etc/passwd")
    assert slug.startswith("etc-passwd-") and ".." not in slug
    assert paths.slug("Fix Login") != paths.slug("fix-login")
    assert paths.slug("").startswith("id-")


@given(st.text(max_size=200))
def test_slug_is_one_safe_segment(text: str) -> None:
    slug = paths.slug(text)
    assert SAFE.match(slug), slug
    assert slug not in {".", ".."} and len(slug) <= 80
    assert paths.slug(text) == slug


@given(st.text(max_size=40), st.text(max_size=40))
def test_distinct_ids_get_distinct_slugs(a: str, b: str) -> None:
    if a != b:
        assert paths.slug(a) != paths.slug(b)


def test_page_paths() -> None:
    assert paths.task_path("nightly", "fix-login") == "tasks/nightly/fix-login.html"
    assert (
        paths.compare_index_path("baseline", "candidate")
        == "compare/baseline..candidate/index.html"
    )
    assert (
        paths.pair_path("baseline", "candidate", "nightly", "fix-login", "2026-11-28", 2)
        == "compare/baseline..candidate/nightly/fix-login/2026-11-28-t2.html"
    )
    assert paths.history_path("nightly") == "history/nightly.html"


def test_rel_links_between_pages() -> None:
    assert paths.rel("index.html", "runs/a/b/c.html") == "../../../index.html"
    assert paths.rel("runs/a/b/c.html#step-3", "runs/a/b/d.html") == "c.html#step-3"
    assert paths.rel("index.html#x", "index.html") == "index.html#x"
    assert paths.rel("assets/site.css", "index.html") == "assets/site.css"


_SEGMENT = st.sampled_from(["runs", "bench", "task-1", "compare", "a..b", "x.html", "index.html"])
_PATH = st.lists(_SEGMENT, max_size=4).map("/".join)


@given(
    _PATH.map(lambda p: p or "index.html"),
    st.tuples(_PATH, st.sampled_from(["", "/"]), st.sampled_from(["", "#step-3", "#"])).map(
        "".join
    ),
)
def test_a_templates_url_is_rel_from_its_page(page: str, target: str) -> None:
    assert page_url(page)(target) == paths.rel(target, page)
