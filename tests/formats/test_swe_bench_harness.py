"""SWE-bench harness run reports v2 (../shared/data/swe-bench-harness): a run per instance;
outcomes against the report's own id lists and per-instance report.json, read by the test."""

from __future__ import annotations

import json
from pathlib import Path

from reportgen.formats.registry import adapters, detect_format
from reportgen.formats.source import measure

from .helpers import DATA, load, needs_data

FOLDER = DATA / "swe-bench-harness"


def _reports() -> list[tuple[Path, dict]]:
    return [
        (p, json.loads(p.read_text()))
        for p in sorted(FOLDER.rglob("*.json"))
        if p.name != "report.json"
    ]


@needs_data
def test_counts_match_the_run_reports(tmp_path: Path) -> None:
    con = load(tmp_path, FOLDER)
    runs = success = failure = error = 0
    for _, report in _reports():
        ids = set(report["submitted_ids"])
        runs += len(ids)
        success += len(ids & set(report["resolved_ids"]))
        # infrastructure and evaluation errors are not the model's; ambiguous ones are
        error += len(ids & (set(report["infra_failure_ids"]) | set(report["error_ids"])))
        failure += len(
            ids
            - set(report["resolved_ids"])
            - set(report["infra_failure_ids"])
            - set(report["error_ids"])
        )
    got = con.execute(
        """
        SELECT count(*), count(*) FILTER (WHERE success), count(*) FILTER (WHERE NOT success),
               count(*) FILTER (WHERE success IS NULL AND error_kind IS NOT NULL),
               (SELECT count(*) FROM steps), (SELECT count(*) FROM steps WHERE type = 'tool')
        FROM runs
        """
    ).fetchone()
    # one check step per instance (no patch.diff in these folders); no tool calls, no tokens
    assert got == (runs, success, failure, error, runs, 0) == (2, 0, 1, 1, 2, 0)
    assert con.execute("SELECT count(tokens_in) FROM runs").fetchone() == (0,)


@needs_data
def test_identity_and_reasons(tmp_path: Path) -> None:
    con = load(tmp_path, FOLDER)
    rows = con.execute(
        "SELECT run_id, suite, task_id, label, batch, success, meta, error_kind, error_reason"
        " FROM runs ORDER BY run_id"
    ).fetchall()
    ambiguous, infra = rows
    assert ambiguous[:6] == (
        "infra-ambiguous/gold/openlayers__openlayers-10340",
        "swe-bench",
        "openlayers__openlayers-10340",
        "gold",
        "infra-ambiguous",
        False,
    )
    assert json.loads(ambiguous[6])["ambiguous_failure"] == "missing_module"
    assert infra[5] is None  # not scored: the harness's environment failed
    assert (infra[7], infra[8]) == ("environment", "browser_launch_failed")


def test_failing_tests_and_a_lone_instance_report(tmp_path: Path) -> None:
    """A per-instance report.json without its run report loads a run; the scorer names the
    failing FAIL_TO_PASS tests; a patch that did not apply is the model's failure."""
    folder = tmp_path / "logs" / "run_evaluation" / "r1" / "org__model" / "a__b-1"
    folder.mkdir(parents=True)
    status = {"FAIL_TO_PASS": {"success": [], "failure": ["test_x"]}}
    (folder / "report.json").write_text(
        json.dumps({"a__b-1": {"patch_is_None": False, "resolved": False, "tests_status": status}})
    )
    (folder / "run_instance.log").write_text("ok\n")
    path = folder / "report.json"
    assert detect_format(measure(path, str(path), 1 << 26)).name == "swe-bench-harness"
    con = load(tmp_path, path)
    run_id, label, success, meta = con.execute(
        "SELECT run_id, label, success, meta FROM runs"
    ).fetchone()
    assert (run_id, label, success) == ("r1/org__model/a__b-1", "org/model", False)
    assert json.loads(meta)["scorer"] == "unresolved; FAIL_TO_PASS failed: test_x"


def test_patch_apply_failure_is_the_models(tmp_path: Path) -> None:
    folder = tmp_path / "logs" / "run_evaluation" / "r1" / "m" / "a__b-1"
    folder.mkdir(parents=True)
    (folder / "run_instance.log").write_text(">>>>> Patch Apply Failed:\npatch: bad\n")
    report = {
        "resolved_ids": [],
        "unresolved_ids": [],
        "completed_ids": [],
        "submitted_ids": ["a__b-1", "c__d-2"],
        "error_ids": ["a__b-1", "c__d-2"],
    }
    (tmp_path / "m.r1.json").write_text(json.dumps(report))
    con = load(tmp_path, tmp_path / "m.r1.json")
    rows = con.execute("SELECT task_id, success, error_kind FROM runs ORDER BY task_id").fetchall()
    assert rows == [("a__b-1", False, None), ("c__d-2", None, "harness")]


@needs_data
def test_detected_as_the_harness_only() -> None:
    for path in sorted(FOLDER.rglob("*.json")):
        source = measure(path, str(path), 1 << 26)
        assert [a.name for a in adapters() if a.detect(source)] == ["swe-bench-harness"], path
        assert detect_format(source).name == "swe-bench-harness"


@needs_data
def test_mini_swe_agent_reports_stay_mini_swe_agent() -> None:
    for path in sorted((DATA / "mini-swe-agent").rglob("report.json"))[:3]:
        assert detect_format(measure(path, str(path), 1 << 26)).name == "mini-swe-agent"


def _instance(folder: Path, instance: str, resolved: bool, patch: str | None = None) -> None:
    folder.mkdir(parents=True)
    report = {instance: {"patch_is_None": False, "resolved": resolved, "tests_status": {}}}
    (folder / "report.json").write_text(json.dumps(report))
    if patch is not None:
        (folder / "patch.diff").write_text(patch)


def test_many_run_reports_in_one_folder(tmp_path: Path) -> None:
    """The harness writes every <model>.<run_id>.json to the folder it ran in: each finds its
    own instance folders (logs/run_evaluation/ before logs/), their report.json files load
    no runs of their own, and a report whose folders are missing still loads its verdicts."""
    evaluation = tmp_path / "logs" / "run_evaluation"
    for run in ("r1", "r2"):
        for model in ("org__a", "b"):
            _instance(evaluation / run / model / "x__1", "x__1", model == "b", f"{run}{model}\n")
    _instance(tmp_path / "logs" / "r1" / "b" / "x__1", "x__1", False, "shadowed\n")
    for run in ("r1", "r2", "r3"):
        for model in ("org__a", "b"):
            report = {"resolved_ids": [], "unresolved_ids": ["x__1"], "submitted_ids": ["x__1"]}
            (tmp_path / f"{model}.{run}.json").write_text(json.dumps(report))
    con = load(tmp_path, tmp_path)
    rows = con.execute("SELECT run_id, output FROM runs ORDER BY run_id").fetchall()
    assert rows == [
        ("r1/b/x__1", "r1b\n"),
        ("r1/org__a/x__1", "r1org__a\n"),
        ("r2/b/x__1", "r2b\n"),
        ("r2/org__a/x__1", "r2org__a\n"),
        ("r3/b/x__1", None),
        ("r3/org__a/x__1", None),
    ]
    checks = con.execute("SELECT output FROM steps WHERE type = 'check' ORDER BY run_id")
    resolved = [json.loads(o).get("resolved") for (o,) in checks.fetchall()]
    assert resolved == [True, False, True, False, None, None]  # r3: no report.json


def test_a_report_name_with_dots_takes_the_first_folder_by_name(tmp_path: Path) -> None:
    """a.b.c.json is model a.b of run c or model a of run b.c: the run folders are looked at
    in name order, so b.c/a wins; the run report is then found for both lone report.json."""
    evaluation = tmp_path / "logs" / "run_evaluation"
    _instance(evaluation / "c" / "a.b" / "x__1", "x__1", True)
    _instance(evaluation / "b.c" / "a" / "x__1", "x__1", False)
    report = {"resolved_ids": ["x__1"], "unresolved_ids": [], "submitted_ids": ["x__1"]}
    (tmp_path / "a.b.c.json").write_text(json.dumps(report))
    con = load(tmp_path, tmp_path)
    assert con.execute("SELECT run_id, label, success FROM runs").fetchall() == [
        ("b.c/a/x__1", "a", True)
    ]


def test_lone_reports_of_one_model_folder(tmp_path: Path) -> None:
    """Instances of one <run>/<model>/ folder with no run report each load a run, with its
    patch; a run report in one of the three folders above the run's takes them in, not one
    in the fourth."""
    model = tmp_path / "deep" / "logs" / "run_evaluation" / "r1" / "m"
    for n in range(3):
        _instance(model / f"x__{n}", f"x__{n}", n == 0, f"p{n}\n")
    archives = [tmp_path / name for name in ("one", "two", "three")]
    for archive in archives:
        archive.mkdir()
    got = load(archives[0], model).execute(
        "SELECT run_id, success, output FROM runs ORDER BY run_id"
    )
    assert got.fetchall() == [
        ("r1/m/x__0", True, "p0\n"),
        ("r1/m/x__1", False, "p1\n"),
        ("r1/m/x__2", False, "p2\n"),
    ]
    empty = json.dumps({"resolved_ids": [], "unresolved_ids": []})
    (tmp_path / "m.r1.json").write_text(empty)
    assert load(archives[1], model).execute("SELECT count(*) FROM runs").fetchone() == (3,)
    (tmp_path / "deep" / "m.r1.json").write_text(empty)
    assert load(archives[2], model).execute("SELECT count(*) FROM runs").fetchone() == (0,)


def test_a_full_swe_bench_run_report_is_detected(tmp_path: Path) -> None:
    """The full SWE-bench's 2,294 instances: the id lists the harness writes after its counts
    (json.dump, indent 4) push resolved_ids past the 64 KB head detection reads; its counts,
    written first, still say what the file is."""
    ids = [f"django__django-{n}" for n in range(10000, 12294)]
    report = {
        "total_instances": len(ids),
        "submitted_instances": len(ids),
        "completed_instances": len(ids),
        "resolved_instances": 1,
        "unresolved_instances": len(ids) - 1,
        "empty_patch_instances": 0,
        "error_instances": 0,
        "completed_ids": ids,
        "incomplete_ids": [],
        "empty_patch_ids": [],
        "submitted_ids": ids,
        "resolved_ids": ids[:1],
        "unresolved_ids": ids[1:],
        "error_ids": [],
        "schema_version": 2,
    }
    path = tmp_path / "org__model.full.json"
    path.write_text(json.dumps(report, indent=4))
    source = measure(path, str(path), 1 << 26)
    assert b'"resolved_ids"' not in source.head
    assert detect_format(source).name == "swe-bench-harness"
    con = load(tmp_path, path)
    got = con.execute("SELECT count(*), count(*) FILTER (WHERE success) FROM runs").fetchone()
    assert got == (len(ids), 1)
