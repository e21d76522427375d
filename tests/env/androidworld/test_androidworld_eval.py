"""`mobile-r1 eval --env androidworld:URL` against our simulated phone served with AndroidWorld's API, in its own
process: the same verdicts as on the simulator directly, the expert's plan through AndroidWorld's coarser actions,
and infrastructure faults (HTTP 500s, a hang past the timeout, a server restart mid-suite) recorded apart and
completed by `--resume`."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from mobile_r1.agents.scripted import expert_plan
from mobile_r1.cli.main import main
from mobile_r1.core.actions import ActionType
from mobile_r1.env import Backend, EpisodeRef, make_backend
from mobile_r1.env.protocol import PlannedStep
from mobile_r1.env.sim import SimBackend
from mobile_r1.eval.runner import EvalConfig, load_run, run_eval

from aw_servers import HERE, ServerProcess


@pytest.mark.slow
def test_eval_on_our_androidworld_server_gives_the_simulators_verdicts(tmp_path: Path) -> None:
    out = tmp_path / "androidworld"
    with ServerProcess(["-m", "mobile_r1.cli.main", "sim", "serve", "--api", "androidworld", "--port", "0",
                        "--scale", "0.3"]) as server:
        assert main(["eval", "--env", f"androidworld:{server.url}", "--agent", "oracle", "--suite", "nav-sim",
                     "--split", "test", "--episodes", "10", "--out", str(out)]) == 0
    direct = run_eval(EvalConfig(agent="oracle", env="sim", suite="nav-sim", split="test", episodes=10))
    options, records = load_run(out)
    assert options["env"] == f"androidworld:{server.url}" and len(records) == 10
    assert [r["id"] for r in records] == [v.episode_id for v in direct.verdicts]
    for record, verdict in zip(records, direct.verdicts):
        got = record["verdict"]
        assert (got["success"], got["inquiry"], got["safety_violation"], got["steps"]) == \
            (verdict.success, verdict.inquiry, verdict.safety_violation, verdict.steps), record["id"]
        assert record["judgement"]["judge"] == "benchmark"
        assert all("androidworld_action" in step["env_info"] for step in record["steps"])
    assert direct.report.overall.sr.value == 1.0
    assert (out / "screens").is_dir() and records[0]["final_screenshot"]


def _play(backend: Backend, ref: EpisodeRef, plan: list[PlannedStep] | None = None) -> bool:
    """Whether `plan` (default: the expert's plan for this phone) succeeds on the episode."""
    env = backend.open(ref)
    env.reset()
    for step in plan if plan is not None else expert_plan(env):
        env.step(step.action)
        if env.done:
            break
    success = env.judge().verdict.success
    env.close()
    return success


@pytest.mark.slow
def test_the_experts_plan_survives_androidworlds_scroll() -> None:
    """A swipe crosses AndroidWorld's API as a `scroll` of the list (centre to edge), not the finger's own path; the
    expert plans with that, where the simulator's own plan can land its next tap on another row."""
    sim = SimBackend(render=False)
    by_id = {r.id: r for r in sim.episodes("nav-sim", "test", None, 0)}
    with ServerProcess(["-m", "mobile_r1.cli.main", "sim", "serve", "--port", "0", "--scale", "0.3"]) as server:
        backend = make_backend(f"androidworld:{server.url}", render=False)
        native_results = []
        for ref in backend.episodes("nav-sim", "test", seed=0, tasks=["contacts.favorite"]):
            native = sim.open(by_id[ref.id]).expert_demo().plan()
            if any(s.action.type is ActionType.SWIPE for s in native):
                assert _play(backend, ref), f"{ref.id}: the expert's plan did not replay through AndroidWorld's API"
                native_results.append(_play(backend, ref, native))
    assert native_results and not all(native_results)  # the simulator's own plan does drift somewhere


def _restarting(server: ServerProcess, stop: threading.Event, restarts: list[float]) -> None:
    """Start the server again on its port whenever its process dies."""
    args = list(server.args)
    args[args.index("--port") + 1] = str(server.port)
    while not stop.is_set():
        if not server.alive():
            server.stop()
            server.args = args
            server.start()
            restarts.append(time.monotonic())
        time.sleep(0.1)


@pytest.mark.slow
def test_infrastructure_faults_are_recorded_apart_and_resume_completes_them(tmp_path: Path) -> None:
    refs = SimBackend(render=False).episodes("nav-sim", "test", 6, 0)
    assert len({r.task for r in refs}) == 6  # each its task's first instance on the server
    faults = {"initialize_500": [[refs[0].task, 0]], "hang": [[refs[2].task, 0]], "crash": [[refs[3].task, 0]],
              "score_500": [[refs[4].task, 0]]}
    broken = {refs[i].id for i in (0, 2, 3, 4)}
    server = ServerProcess([str(HERE / "faulty_server.py"), "--port", "0", "--state", str(tmp_path / "fired.json"),
                            "--faults", json.dumps(faults), "--hang", "25"])
    server.start()
    stop, restarts = threading.Event(), []
    watcher = threading.Thread(target=_restarting, args=(server, stop, restarts), daemon=True)
    watcher.start()
    out = tmp_path / "run"
    args = ["eval", "--env", f"androidworld:{server.url}", "--agent", "oracle", "--suite", "nav-sim", "--episodes", "6",
            "--out", str(out), "--env-option", "timeout=10", "--env-option", "reconnect=180"]
    try:
        assert main(args) == 0
        assert len(restarts) == 1  # the server died once, mid-suite, and came back
        metrics = json.loads((out / "metrics.json").read_text())
        assert metrics["infra_errors"] == 4 and metrics["episodes"] == 2
        _, records = load_run(out, infra=True)
        failed = {r["id"]: r["infra_error"] for r in records if r.get("infra_error")}
        assert set(failed) == broken
        assert "HTTP 500" in failed[refs[0].id] and "HTTP 500" in failed[refs[4].id]
        assert "did not answer POST /execute_action within 10 s" in failed[refs[2].id]
        assert "cannot reach" in failed[refs[3].id]
        assert all(r["verdict"]["success"] for r in records if not r.get("infra_error"))

        assert main(args + ["--resume"]) == 0  # the faults have fired: the server is healthy now
        _, records = load_run(out)
        assert len(records) == 6 and all(r["verdict"]["success"] for r in records)
        assert json.loads((out / "metrics.json").read_text())["infra_errors"] == 0
    finally:
        stop.set()
        watcher.join(30)
        server.stop()
