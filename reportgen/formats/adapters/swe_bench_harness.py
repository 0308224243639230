"""SWE-bench evaluation harness output (``swebench.harness.run_evaluation``): the run report
``<model>.<run_id>.json`` (``resolved_ids``, ``unresolved_ids``, ``error_ids``,
``empty_patch_ids``; schema_version 2 adds ``infra_failure_ids``, ``ambiguous_failure_ids``
and ``failure_reasons``) and the per-instance ``logs/run_evaluation/<run_id>/<model>/<id>/``
folders (``report.json`` keyed by instance id, with ``tests_status``; ``patch.diff``;
``run_instance.log``).

- An instance is a run: run id ``<run_id>/<model>/<instance_id>``, task = ``instance_id``,
  suite ``swe-bench`` (as mini-swe-agent's runs, so an agent's trajectories and the
  harness's verdicts on them share suite and task), label = the model
  (``model_name_or_path``: the report's name up to ``.<run_id>.json``, ``__`` read as
  ``/``), batch = ``run_id``.
- Outcome: resolved -> success, reward 1; unresolved or an empty patch -> failure, reward 0;
  ``infra_failure_ids`` -> not scored (success NULL), ``meta.error_kind`` ``environment``,
  ``meta.error_reason`` its ``failure_reasons`` entry; ``error_ids`` -> not scored, kind
  ``harness`` (``environment`` when the log says the image build failed), except a patch
  that did not apply (``Patch Apply Failed`` in ``run_instance.log``): the agent's failure.
  ``ambiguous_failure_ids`` (a missing module, a crash that a bad patch can cause too) stay
  the agent's failure, as the harness counts them: success False, with the reason in
  ``meta.ambiguous_failure``.
- Steps: a ``patch`` step when ``patch.diff`` is there (output: the patch) and a ``check``
  step with the failing FAIL_TO_PASS / PASS_TO_PASS tests (``ok`` only when resolved).
- The run report carries its instances; a per-instance ``report.json`` loads a run of its
  own only when no run report for it is found (in the folder holding ``logs/``)."""

from __future__ import annotations

import os
import re
from functools import partial
from pathlib import Path
from typing import Any

import duckdb
import orjson

from reportgen.formats.adapters.rows import (
    Collector,
    load_document,
    notice,
    require,
    stage_each,
)
from reportgen.formats.base import Marked, StageOptions
from reportgen.formats.source import SourceFile

WHAT = "SWE-bench harness run report (<model>.<run_id>.json with resolved_ids, unresolved_ids)"
_REPORT = (
    Marked(rb'"resolved_ids"\s*:'),
    Marked(rb'"unresolved_ids"\s*:'),
    re.compile(rb'"(?:completed_ids|submitted_ids)"\s*:'),
)
# The counts the harness writes first: a large run's id lists start past a head's 64 KB (the
# full SWE-bench's 2,294 ids: completed_ids and submitted_ids alone are over 150 KB).
_COUNTS = (
    Marked(rb'"resolved_instances"\s*:'),
    Marked(rb'"unresolved_instances"\s*:'),
    re.compile(rb'"(?:completed|submitted)_instances"\s*:'),
)
_INSTANCE = re.compile(
    rb'\A\s*\{\s*"[^"]+"\s*:\s*\{\s*"(?:patch_is_None|patch_exists|patch_successfully_applied|'
    rb'resolved|tests_status)"\s*:'
)
_APPLY_FAILED = "Patch Apply Failed"
_BUILD_FAILED = re.compile(r"BuildImageError|Error building image|Failed to build", re.IGNORECASE)
_ID_LISTS = (
    "resolved_ids",
    "unresolved_ids",
    "empty_patch_ids",
    "error_ids",
    "infra_failure_ids",
    "ambiguous_failure_ids",
    "completed_ids",
    "submitted_ids",
)
SCORER_CHARS = 2000


class SweBenchHarness:
    name = "swe-bench-harness"
    description = "SWE-bench evaluation harness run report and per-instance report.json"
    maps = (
        "an instance of <model>.<run_id>.json -> a run (resolved -> success; infra_failure_ids "
        "and error_ids -> not scored, error_kind); check step with the failing tests"
    )

    def detect(self, source: SourceFile) -> bool:
        if source.lines:
            return False
        if source.path.name == "report.json":
            return bool(_INSTANCE.search(source.head))
        return all(k.search(source.head) for k in _REPORT) or all(
            k.search(source.head) for k in _COUNTS
        )

    def stage(
        self, con: duckdb.DuckDBPyConnection, sources: list[SourceFile], options: StageOptions
    ) -> None:
        stage_each(con, sources, self.name, WHAT, partial(_parse, layout=_Layout(sources)))


class _Layout:
    """What the files of one load share, each looked up once per load rather than once per
    file: the instance folders of the run reports in a folder (one walk of its ``logs/``),
    whether a model folder's run report is there (the test of each of its instances'
    ``report.json``), and the bytes of the ``report.json`` files the load measured (a run
    report's instances read from memory, not opened again)."""

    def __init__(self, sources: list[SourceFile]) -> None:
        self.kept = {
            str(s.path): s.data
            for s in sources
            if s.data is not None and s.path.name == "report.json"
        }
        self._folders: dict[str, dict[str, tuple[str, str, str]]] = {}
        self._reported: dict[Path, bool] = {}

    def instance_folders(self, folder: Path, report_name: str) -> tuple[str, str, str | None]:
        """(model folder name, run id, the folder of its instance folders) for a run report
        named ``<model>.<run_id>.json`` in ``folder``: looked for under
        ``logs/run_evaluation/`` (the CLI) and ``logs/``, in name order; else the name split
        at its first dot."""
        key = str(folder)
        found = self._folders.get(key)
        if found is None:
            found = self._folders[key] = _report_names(key)
        if report_name in found:
            return found[report_name]
        stem = report_name.removesuffix(".json")
        model, _, run_id = stem.partition(".")
        return model, run_id or stem, None

    def reported(self, model: Path) -> bool:
        """Whether the run report of ``<run>/<model>/`` is in one of the 3 folders above it."""
        known = self._reported.get(model)
        if known is None:
            name = f"{model.name}.{model.parent.name}.json"
            known = any((up / name).is_file() for up in list(model.parents)[1:4])
            self._reported[model] = known
        return known


def _report_names(folder: str) -> dict[str, tuple[str, str, str]]:
    """``<model>.<run>.json`` -> (model, run, its folder) for every ``<run>/<model>/`` folder
    under ``folder``'s ``logs/run_evaluation/`` and ``logs/`` (the first in that order and in
    name order when two give one name)."""
    found: dict[str, tuple[str, str, str]] = {}
    for logs in (os.path.join(folder, "logs", "run_evaluation"), os.path.join(folder, "logs")):
        for run in _subfolders(logs):
            for model in _subfolders(os.path.join(logs, run)):
                found.setdefault(
                    f"{model}.{run}.json", (model, run, os.path.join(logs, run, model))
                )
    return found


def _subfolders(folder: str) -> list[str]:
    """The names of the folders (or links to folders) in ``folder``, sorted; none when it is
    not a folder or cannot be read."""
    try:
        with os.scandir(folder) as entries:
            return sorted(e.name for e in entries if _is_dir(e))
    except OSError:
        return []


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _ids(document: dict[str, Any], key: str, source: SourceFile) -> set[str]:
    value = document.get(key) or []
    require(source, isinstance(value, list), "expected a list", key)
    return {str(v) for v in value}


def _read(path: str, layout: _Layout) -> Any:
    try:
        kept = layout.kept.get(path)
        return orjson.loads(kept if kept is not None else _bytes(path))
    except (OSError, orjson.JSONDecodeError):
        return None


def _bytes(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def _parse(rows: Collector, source: SourceFile, layout: _Layout) -> None:
    if source.path.name == "report.json":
        _lone_instance(rows, source, layout)
        return
    document = load_document(source, WHAT)
    require(source, isinstance(document, dict), f"expected {WHAT}")
    lists = {key: _ids(document, key, source) for key in _ID_LISTS}
    reasons = document.get("failure_reasons") or {}
    require(source, isinstance(reasons, dict), "expected an object", "failure_reasons")
    model, run_id, instances = layout.instance_folders(source.path.parent, source.path.name)
    every = set().union(*lists.values())
    for instance in sorted(every):
        folder = os.path.join(instances, instance) if instances is not None else None
        _run(rows, source, instance, model, run_id, folder, lists, reasons, layout)
    skipped = _ids(document, "incomplete_ids", source) - every
    if skipped:
        notice(source, f"{len(skipped)} instance(s) not evaluated (incomplete_ids): no runs")


def _lone_instance(rows: Collector, source: SourceFile, layout: _Layout) -> None:
    """A per-instance report.json: a run when no run report of its run is found (the
    run report carries its instances); mini-swe-agent's ``logs/<id>/`` layout: none."""
    folder = source.path.parent
    document = load_document(source, WHAT)
    require(source, isinstance(document, dict) and len(document) == 1, "expected one instance")
    instance = next(iter(document))
    model = folder.parent
    if folder.name != instance or model.name == "logs":
        return  # not the harness's <run_id>/<model>/<instance>/ layout
    if layout.reported(model):
        return  # loaded with its run report
    report = document[instance] if isinstance(document[instance], dict) else {}
    resolved = report.get("resolved") is True
    lists: dict[str, set[str]] = {key: set() for key in _ID_LISTS}
    lists["resolved_ids" if resolved else "unresolved_ids"].add(instance)
    run = model.parent.name
    _run(rows, source, instance, model.name, run, str(folder), lists, {}, layout, report)


def _failing(report: dict[str, Any]) -> dict[str, list[str]]:
    status = report.get("tests_status") or {}
    found: dict[str, list[str]] = {}
    if isinstance(status, dict):
        for group in ("FAIL_TO_PASS", "PASS_TO_PASS"):
            failed = (status.get(group) or {}).get("failure") or []
            if isinstance(failed, list) and failed:
                found[group] = [str(t) for t in failed]
    return found


def _run(
    rows: Collector,
    source: SourceFile,
    instance: str,
    model: str,
    run_id: str,
    folder: str | None,
    lists: dict[str, set[str]],
    reasons: dict[str, Any],
    layout: _Layout,
    given: dict[str, Any] | None = None,
) -> None:
    """One instance's run; ``given``: its report.json entry, when the caller has read it."""
    report: dict[str, Any] = given or {}
    patch: str | None = None
    log: str | None = None
    if folder is not None:
        raw = _read(os.path.join(folder, "report.json"), layout) if given is None else None
        if isinstance(raw, dict) and isinstance(raw.get(instance), dict):
            report = raw[instance]
        patch = _text(os.path.join(folder, "patch.diff"))
        if instance in lists["error_ids"]:  # only an evaluation error reads its log
            log = _text(os.path.join(folder, "run_instance.log"))
    reason = reasons.get(instance)
    reason = str(reason) if reason is not None else None
    kind: str | None = None
    success: bool | None
    verdict: str
    if instance in lists["resolved_ids"]:
        success, verdict = True, "resolved"
    elif instance in lists["infra_failure_ids"]:
        success, kind, verdict = None, "environment", "infrastructure failure"
    elif instance in lists["error_ids"]:
        if log is not None and _APPLY_FAILED in log:
            success, verdict, reason = False, "error: the patch did not apply", _APPLY_FAILED
        else:
            kind = "environment" if log is not None and _BUILD_FAILED.search(log) else "harness"
            success, verdict = None, "evaluation error"
            reason = reason or _last_line(log) or "the harness reports an evaluation error"
    elif instance in lists["empty_patch_ids"]:
        success, verdict = False, "empty patch"
    elif instance in lists["unresolved_ids"] or instance in lists["ambiguous_failure_ids"]:
        success, verdict = False, "unresolved"
    else:
        success, verdict = None, "not evaluated"
    ambiguous = instance in lists["ambiguous_failure_ids"] and kind is None
    failing = _failing(report)
    rows.begin(f"{run_id}/{model}/{instance}")
    if patch:
        rows.step("patch", "model_patch", input={"instance_id": instance}, output=patch)
    rows.step(
        "check",
        "tests",
        "ok" if success else "error",
        input={"instance_id": instance},
        output={
            key: report.get(key)
            for key in ("patch_is_None", "patch_exists", "patch_successfully_applied", "resolved")
            if key in report
        }
        | ({"failing": failing} if failing else {}),
        error=reason if kind is not None or not success else None,
    )
    scorer = verdict
    if reason:
        scorer += f" ({reason}{', ambiguous: a bad patch can cause it too' if ambiguous else ''})"
    for group, tests in failing.items():
        scorer += f"; {group} failed: " + ", ".join(tests)
    meta = {
        "tool": "swebench-harness",
        "model": model.replace("__", "/"),
        "harness_run_id": run_id,
        "verdict": verdict,
        "failure_reason": reason,
        "ambiguous_failure": reason or True if ambiguous else None,
        "failing_tests": failing or None,
        "error_kind": kind,
        "error_reason": reason[:300] if kind is not None and reason else None,
        "scorer": scorer[:SCORER_CHARS],
    }
    rows.end(
        source,
        task_id=instance,
        label=model.replace("__", "/"),
        suite="swe-bench",
        batch=run_id,
        success=success,
        reward=None if success is None else (1.0 if success else 0.0),
        output=patch,
        meta={k: v for k, v in meta.items() if v is not None},
    )


def _last_line(log: str | None) -> str | None:
    lines = [line.strip() for line in (log or "").splitlines() if line.strip()]
    return lines[-1][:300] if lines else None
