"""Model steps show what they were given and what they said, for every adapter that has it: a
model step's text taken from the raw shared file appears, escaped, on its run page (one site
built from one file of each format)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import duckdb
import pytest
from markupsafe import escape

from reportgen.ingest import ingest
from reportgen.site import build_site
from reportgen.site.paths import run_path
from reportgen.site.stepdata import read_steps_script

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"

FILES = {
    "tau2-bench": "tau2-bench/2025-10-13T11:40:16.379079_airline_llm_agent_grok-3_user_simulator_grok-3.json",
    "tau-bench": "tau-bench/gpt-4o-airline.json",
    "atif": "atif/harbor_terminus2_invalid_json.json",
    "inspect": "inspect/tests/analysis/test_logs/2025-05-12T20-28-26-04-00_security-guide.json",
    "inspect-tools": "inspect/tests/analysis/test_logs/2025-05-12T20-27-36-04-00_browser.json",
    "mini-swe-agent": "mini-swe-agent/trajs/django__django-16333/django__django-16333.traj.json",
    "swe-agent": "swe-agent/tests/test_data/trajectories/gpt4__swe-agent__test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1/swe-agent__test-repo-i1.traj",
    "langfuse": "langfuse/pydantic-ai-2025-06-06.trace.json",
    "langsmith": "langsmith/langsmith_py_wrap_openai_.json",
    "otel": "otel-genai/any-agent/OPENAI_trace.json",
}

#: AgentDiff traces are not in the shared data; the fixture was written by the package itself.
AGENTDIFF = Path(__file__).resolve().parent / "fixtures" / "agentdiff" / "baseline.json"


def words(text: str, n: int = 60) -> str:
    """The longest run of words in ``text`` that survives any rendering unchanged (letters,
    digits, spaces and a little punctuation; JSON escaping leaves them as they are)."""
    runs = re.findall(r"[\w ,.?!'-]{4,}", text)
    assert runs, f"no plain words in {text[:80]!r}"
    return max(runs, key=len)[:n].strip()


def raw(name: str) -> Any:
    return json.loads((SHARED / FILES[name]).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    paths = [SHARED / f for f in FILES.values()]
    missing = [p for p in paths if not p.exists()]
    if missing:
        pytest.skip(f"shared data missing: {missing[0]}")
    root = tmp_path_factory.mktemp("content")
    db = root / "a.duckdb"
    ingest([*paths, AGENTDIFF], db)
    out = root / "site"
    build_site(db, out, build_time="2026-12-01T00:00:00Z")
    return db, out


def page(site: tuple[Path, Path], run_id: str) -> str:
    db, out = site
    with duckdb.connect(str(db), read_only=True) as con:
        suite, task = con.execute(
            "SELECT suite, task_id FROM runs WHERE run_id = ?", [run_id]
        ).fetchall()[0]
    file = out / run_path(suite, task, run_id)
    # the step texts the page draws from its step data script (reportgen/site/stepdata.py),
    # escaped as the page's HTML would hold them
    _, data = read_steps_script(file.with_suffix(".steps.js"))
    texts = [str(escape(t)) for s in data["steps"] for t in (s["in"], s["out"])]
    return file.read_text(encoding="utf-8") + "\n".join(texts)


def run_of(site: tuple[Path, Path], format_name: str, where: str = "true") -> str:
    with duckdb.connect(str(site[0]), read_only=True) as con:
        rows = con.execute(
            f"SELECT run_id FROM runs WHERE format = ? AND {where} ORDER BY source_file, run_id",
            [format_name],
        ).fetchall()
    return str(rows[0][0])


def on_page(html: str, text: str) -> bool:
    return str(escape(text)) in html


def test_tau2_reply_shows_the_user_turn_it_answered(site: tuple[Path, Path]) -> None:
    sim = raw("tau2-bench")["simulations"][0]
    messages = sim["messages"]
    position = next(
        i
        for i, m in enumerate(messages)
        if m["role"] == "assistant" and m.get("content") and not m.get("tool_calls") and i > 1
    )
    user = next(m for m in reversed(messages[:position]) if m["role"] == "user")
    html = page(site, sim["id"])
    assert on_page(html, words(messages[position]["content"]))
    assert on_page(html, words(user["content"]))


def test_tau2_no_user_turn_before_the_last_reply_is_dropped(site: tuple[Path, Path]) -> None:
    for sim in raw("tau2-bench")["simulations"][:4]:
        messages = sim["messages"]
        last = max(
            i
            for i, m in enumerate(messages)
            if m["role"] == "assistant" and m.get("content") and not m.get("tool_calls")
        )
        html = page(site, sim["id"])
        for m in messages[:last]:
            if m["role"] == "user" and m.get("content"):
                assert on_page(html, words(m["content"])), m["content"][:80]
            if m["role"] == "assistant" and m.get("content") and m.get("tool_calls"):
                assert on_page(html, words(m["content"])), m["content"][:80]


def test_tau_bench_reply_shows_what_it_answered(site: tuple[Path, Path]) -> None:
    first = raw("tau-bench")[0]
    traj = first["traj"]
    position = next(
        i
        for i, m in enumerate(traj)
        if m["role"] == "assistant" and m.get("content") and not m.get("tool_calls") and i > 2
    )
    given = next(m for m in reversed(traj[:position]) if m["role"] in ("user", "tool"))
    html = page(site, run_of(site, "tau-bench", "task_id = '0' AND trial = 0"))
    assert on_page(html, words(traj[position]["content"]))
    assert on_page(html, words(given["content"]))


def test_atif_agent_step_shows_the_observation_it_answered(site: tuple[Path, Path]) -> None:
    document = raw("atif")
    steps = document["steps"]
    html = page(site, "atif:" + document["session_id"])
    # step 3 answers the parse error the harness gave back after step 2
    assert on_page(html, words(steps[2]["message"]))
    assert on_page(html, words(steps[1]["observation"]["results"][0]["content"]))
    assert on_page(html, words(steps[0]["message"]))  # the first agent step's prompt


def test_inspect_model_step_shows_prompt_and_answer(site: tuple[Path, Path]) -> None:
    sample = raw("inspect")["samples"][0]
    event = next(e for e in sample["events"] if e["event"] == "model")
    html = page(site, sample["uuid"])
    assert on_page(html, words(event["input"][-1]["content"]))
    assert on_page(html, words(event["output"]["choices"][0]["message"]["content"]))


def test_inspect_model_step_shows_its_tool_calls_and_attachments(site: tuple[Path, Path]) -> None:
    sample = raw("inspect-tools")["samples"][0]
    event = next(e for e in sample["events"] if e["event"] == "model")
    reference = event["input"][-1]["content"]
    assert reference.startswith("attachment://")
    prompt = sample["attachments"][reference.removeprefix("attachment://")]
    call = event["output"]["choices"][0]["message"]["tool_calls"][0]
    html = page(site, sample["uuid"])
    assert on_page(html, words(prompt))
    assert on_page(html, call["arguments"]["url"])
    assert "attachment://" not in html


def test_mini_swe_agent_step_shows_its_command(site: tuple[Path, Path]) -> None:
    document = raw("mini-swe-agent")
    first = next(m for m in document["messages"] if m["role"] == "assistant")
    command = re.search(r"```bash\n(.*?)\n```", first["content"], re.S)
    assert command
    html = page(site, run_of(site, "mini-swe-agent"))
    assert on_page(html, command.group(1))


def test_swe_agent_step_shows_its_action_and_observation(site: tuple[Path, Path]) -> None:
    entry = raw("swe-agent")["trajectory"][0]
    html = page(site, run_of(site, "swe-agent"))
    assert on_page(html, words(entry["action"])) and on_page(html, words(entry["observation"]))


def _text_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _text_in(v)]
    if isinstance(value, list):
        return [t for v in value for t in _text_in(v)]
    return []


def test_langfuse_generation_shows_prompt_and_answer(site: tuple[Path, Path]) -> None:
    document = raw("langfuse")
    generation = next(o for o in document["observations"] if o["type"] == "GENERATION")
    given = json.loads(generation["input"])[-1]["content"]
    answer = json.loads(generation["output"])["message"]["content"]
    html = page(site, document["trace"]["id"])
    assert on_page(html, words(given)) and on_page(html, words(answer))


def test_langsmith_llm_run_shows_prompt_and_answer(site: tuple[Path, Path]) -> None:
    document = raw("langsmith")
    post = document["post"][0]
    patch = next(p for p in document["patch"] if p["id"] == post["id"])
    given = post["inputs"]["messages"][-1]["content"]
    answer = patch["outputs"]["choices"][0]["message"]["content"]
    html = page(site, post["trace_id"])
    assert on_page(html, words(given)) and on_page(html, words(answer))


def test_otel_llm_span_shows_prompt_and_answer(site: tuple[Path, Path]) -> None:
    spans = raw("otel")["spans"]
    calls = [s for s in spans if s["attributes"].get("gen_ai.operation.name") == "call_llm"]
    assert calls
    html = page(site, run_of(site, "otel"))
    for span in calls:  # any-agent records the messages sent on the first call only
        if "gen_ai.input.messages" in span["attributes"]:
            given = json.loads(span["attributes"]["gen_ai.input.messages"])[-1]
            assert on_page(html, words(" ".join(_text_in(given))))
        assert on_page(html, words(span["attributes"]["gen_ai.output"]))


def test_agentdiff_llm_call_shows_its_payloads(site: tuple[Path, Path]) -> None:
    trace = json.loads(AGENTDIFF.read_text(encoding="utf-8"))
    llm = next(s for s in trace["steps"] if s["step_type"] == "llm_call")
    html = page(site, trace["trace_id"])
    assert on_page(html, words(llm["output_payload"]["text"]))


def test_tool_calls_keep_their_signature_keys(site: tuple[Path, Path]) -> None:
    """Model-step input is text, so the step signature (keys of an object input) of llm steps
    stays (type, action, []) and comparisons across runs are not changed by it."""
    with duckdb.connect(str(site[0]), read_only=True) as con:
        keys = con.execute(
            "SELECT DISTINCT s.input_keys FROM steps s JOIN runs r USING (run_id)"
            " WHERE s.type = 'llm' AND r.format IN ('tau2-bench', 'tau-bench', 'atif', 'inspect')"
        ).fetchall()
    assert keys == [([],)]
