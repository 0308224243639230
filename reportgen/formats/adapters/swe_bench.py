"""Leaderboard submissions in the SWE-bench/experiments layout family (SWE-PolyBench's
``evaluation/<split>/<date>_<system>/``): ``metadata.yaml``, ``all_preds.jsonl``,
``logs/<instance_id>_result.json`` (+ ``_metrics.json``) and free-form ``trajs/``.

- Each ``_result.json`` is a run: system x instance. run id = ``<system folder>/<instance>``,
  task = ``instance_id``, label = the system's ``name`` in ``metadata.yaml`` (else its folder),
  suite = ``leaderboard/<split folder>``, success = ``resolved``, reward 1 / 0. Two
  submissions on the same instances therefore pair task by task.
- Steps (the trajectories are not step-structured): a ``patch`` step when the system
  generated one (``generation``; the patch from ``all_preds.jsonl`` as output) and a
  ``check`` step for the evaluation (passed / failed tests; ``error`` unless resolved).
- ``all_preds.jsonl`` carries its submission: staging it loads one run per
  ``logs/*_result.json`` beside it (the result files themselves then load none: two
  submissions often hold byte-identical result files, which ingest would skip as content it
  already has). A submission without ``all_preds.jsonl`` loads from its result files.
  ``_metrics.json`` (file-retrieval scores) goes into the run's meta. Tokens and cost are not
  in these files: unknown."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import duckdb
import orjson

from reportgen.errors import InputError
from reportgen.formats.adapters.rows import (
    Collector,
    notice,
    parse_document,
    stage_each,
)
from reportgen.formats.adapters.why import failed_tests, lines, why
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.source import SourceFile

WHAT = "leaderboard result (logs/<instance>_result.json with instance_id and resolved)"
_RESULT = (
    Marked(rb'"instance_id"\s*:'),
    Marked(rb'"resolved"\s*:'),
    Marked(rb'"patch_applied"\s*:'),
)
_METRICS = (Marked(rb'"instance_id"\s*:'), Marked(rb'"file_retrieval_metrics"\s*:'))
_PREDS = (Marked(rb'"instance_id"\s*:'), Marked(rb'"model_patch"\s*:'))
_NAME = re.compile(r"^name:\s*(.+?)\s*$", re.M)


class SweBenchSubmission:
    name = "swe-bench-submission"
    description = "leaderboard submissions (SWE-bench/experiments, SWE-PolyBench layout)"
    maps = (
        "logs/<instance>_result.json -> a run (system x instance, success = resolved); "
        "patch and check steps; metadata.yaml names the system (label)"
    )

    def detect(self, source: SourceFile) -> bool:
        head = source.head
        name = source.path.name
        if source.lines:
            return name.endswith(("preds.jsonl", "preds.jsonl.gz")) and all(
                k.search(head) for k in _PREDS
            )
        if name.endswith("_metrics.json"):
            return all(k.search(head) for k in _METRICS)
        return all(k.search(head) for k in _RESULT)

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        stage_each(con, sources, self.name, WHAT, _parse)


def _submission(source: SourceFile) -> Path:
    """The system's folder: the one holding ``logs/``."""
    folder = source.path.parent
    return folder.parent if folder.name == "logs" else folder


@lru_cache(maxsize=64)
def _system_name(folder: Path) -> str:
    try:
        text = (folder / "metadata.yaml").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return folder.name
    found = _NAME.search(text)
    name = found.group(1).strip().strip("'\"") if found else ""
    return name or folder.name


@lru_cache(maxsize=8)
def _predictions(folder: Path, stamp: float) -> dict[str, str]:
    """instance id -> model patch, from the submission's ``all_preds.jsonl`` (by mtime)."""
    found: dict[str, str] = {}
    path = folder / "all_preds.jsonl"
    try:
        lines = path.read_bytes().splitlines()
    except OSError:
        return found
    for line in lines:
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get("model_patch"), str):
            found[str(record.get("instance_id"))] = record["model_patch"]
    return found


def _patches(folder: Path) -> dict[str, str]:
    path = folder / "all_preds.jsonl"
    try:
        stamp = path.stat().st_mtime
    except OSError:
        return {}
    return _predictions(folder, stamp)


def _outcome(result: dict[str, Any]) -> str | None:
    """A result file in words: generated, applied, resolved, the FAIL_TO_PASS and
    PASS_TO_PASS verdicts and the tests that failed."""
    parts: list[str | None] = []
    if result.get("generation") is False:
        parts.append("no patch generated")
    elif result.get("patch_applied") is False:
        parts.append("patch not applied")
    parts.append("resolved" if result.get("resolved") else "not resolved")
    if isinstance(result.get("all_f2p_passed"), bool) and result.get("patch_applied"):
        parts.append(
            "FAIL_TO_PASS: " + ("all pass" if result["all_f2p_passed"] else "not all pass")
        )
    if isinstance(result.get("no_p2p_failed"), bool) and result.get("patch_applied"):
        parts.append("PASS_TO_PASS: " + ("none fail" if result["no_p2p_failed"] else "some fail"))
    failed = result.get("failed_tests")
    parts += failed_tests("test", [str(t) for t in failed] if isinstance(failed, list) else [])
    return lines(*parts)


def _parse(rows: Collector, source: SourceFile) -> None:
    name = source.path.name
    if name.endswith("_metrics.json"):
        return  # read with its result file
    if source.lines:  # all_preds.jsonl carries its submission's results
        folder = source.path.parent
        results = sorted((folder / "logs").glob("*_result.json"))
        if not results:
            notice(source, "no logs/*_result.json beside it; no runs loaded")
        for path in results:
            display = str(path)
            try:
                document = orjson.loads(path.read_bytes())
            except (OSError, orjson.JSONDecodeError) as exc:
                raise InputError(display, f"cannot read as JSON: {exc}; expected {WHAT}") from None
            _run(rows, source, path, display, document, folder)
        return
    folder = _submission(source)
    if (folder / "all_preds.jsonl").is_file():
        return  # loaded with all_preds.jsonl (two submissions may hold identical results)
    _run(rows, source, source.path, source.display, parse_document(source, WHAT), folder)


def _run(
    rows: Collector,
    source: SourceFile,
    path: Path,
    display: str,
    document: Any,
    folder: Path,
) -> None:
    """One system x instance run from a result document."""

    def need(ok: bool, message: str, field: str | None = None) -> None:
        if not ok:
            raise InputError(display, message, field=field)

    name = path.name
    need(isinstance(document, dict), f"expected {WHAT}")
    for key in ("instance_id", "resolved"):
        need(key in document, "required field is missing", key)
    instance = document["instance_id"]
    resolved = document["resolved"]
    need(isinstance(instance, str) and bool(instance), "expected text", "instance_id")
    need(isinstance(resolved, bool), "expected true or false", "resolved")
    for key in ("passed_tests", "failed_tests"):
        need(isinstance(document.get(key, []), list), "expected a list", key)
    system = _system_name(folder)
    split = folder.parent.name or "default"
    patch = _patches(folder).get(instance)
    rows.begin(f"{folder.name}/{instance}")
    generated = document.get("generation")
    if generated is True or (generated is None and patch):
        rows.step(
            "patch",
            "model_patch",
            input={"instance_id": instance},
            output=patch if patch else None,
        )
    elif generated is None and not patch:
        notice(source, f"no prediction for {instance} in all_preds.jsonl")
    rows.step(
        "check",
        "tests",
        "ok" if resolved else "error",
        input={"instance_id": instance},
        output={
            key: document.get(key)
            for key in (
                "patch_applied",
                "all_f2p_passed",
                "no_p2p_failed",
                "passed_tests",
                "failed_tests",
            )
            if key in document
        },
    )
    meta: dict[str, Any] = {
        "benchmark": "leaderboard",
        "system": system,
        "submission": folder.name,
        "split": split,
        "patch_applied": document.get("patch_applied"),
        "generation": generated,
    }
    meta.update(why(scorer=_outcome(document)))
    applied = document.get("patch_applied")
    if isinstance(applied, str) and applied.lower() == "error":
        # the harness could not try the patch (its environment failed); false is a patch that
        # did not apply: the agent's
        meta["error_kind"] = "environment"
        meta["error_reason"] = str(document.get("error") or "patch_applied: error")
    metrics = path.with_name(name.removesuffix("_result.json") + "_metrics.json")
    if name.endswith("_result.json") and metrics.is_file():
        try:
            scores = orjson.loads(metrics.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            scores = None
        if isinstance(scores, dict):
            meta["retrieval"] = {
                k: v for k, v in scores.items() if k.endswith("_metrics") and v is not None
            }
    rows.end(
        source,
        task_id=instance,
        label=system,
        suite=f"leaderboard/{split}",
        success=resolved,
        reward=1.0 if resolved else 0.0,
        output=patch,
        meta=meta,
    )
