"""Everything a built site publishes, as text a test can search: each Parquet file's rows
spelled out and each step data script's steps inflated (both are compressed, so grepping
their bytes would prove nothing), every other file as it is."""

from __future__ import annotations

from pathlib import Path

import duckdb
import orjson

from reportgen.site.stepdata import read_steps_script, unpack_json


def published_text(site: Path) -> str:
    """The text of every file under ``site``, each followed by its path."""
    parts = []
    con = duckdb.connect()
    for path in sorted(site.rglob("*")):
        if not path.is_file():
            continue
        if path.suffix == ".parquet":
            rows = con.execute("SELECT * FROM read_parquet(?)", [str(path)]).fetchall()
            parts.append(repr(rows))
        elif path.name.endswith(".steps.js"):
            run_id, steps = read_steps_script(path)
            parts.append(run_id + "\n" + orjson.dumps(steps).decode())
        else:
            parts.append(path.read_bytes().decode("utf-8", "replace"))
        parts.append(str(path))
    return "\n".join(parts)


def search_words(site: Path) -> dict[str, list[int]]:
    """Every word of the site's search index with its postings (the shards unpacked)."""
    words: dict[str, list[int]] = {}
    for shard in sorted((site / "search").glob("w-*.js")):
        head, _, tail = shard.read_text(encoding="utf-8").partition(",")
        assert head.startswith("window.RG_SEARCH_SHARD(") and tail.endswith(");\n"), shard
        words.update(unpack_json(orjson.loads(tail[:-3]).encode()))
    return words
