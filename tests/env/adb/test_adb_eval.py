"""`mobile-r1 eval --env adb:...` through the real adb server against `mobile-r1 sim adbd`: the same verdicts as the
simulator itself, the safety gate on both sides, and bad device output failing only its own episode."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from mobile_r1.cli.main import main
from mobile_r1.env.adb import Device

from adb_fixtures import ADB, SimulatedDevice, start_adbd, stop_adbd

pytestmark = pytest.mark.slow  # every test here starts the adb server and the simulated phone's adbd


def _records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines() if line.strip()]


def _judged(records: list[dict]) -> list[dict]:
    """The verdicts, less the self-corrections: the simulator names its states and counts them, a device over adb
    names none (null)."""
    return [{k: v for k, v in record["verdict"].items() if k != "self_corrections"} for record in records]


def _latest(run: Path) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for record in _records(run):
        out[record["id"]] = record
    return out


def test_oracle_over_adb_gives_the_simulators_verdicts(sim_device: SimulatedDevice, tmp_path: Path) -> None:
    common = ["eval", "--agent", "oracle", "--suite", "nav-sim", "--split", "test", "--episodes", "10"]
    assert main([*common, "--env", f"adb:{sim_device.serial}", "--confirm", "none", "--out", str(tmp_path / "adb")]) == 0
    assert main([*common, "--out", str(tmp_path / "sim")]) == 0
    adb, sim = _records(tmp_path / "adb"), _records(tmp_path / "sim")
    assert len(adb) == len(sim) == 10
    assert [r["id"] for r in adb] == [r["id"] for r in sim]
    assert _judged(adb) == _judged(sim)
    assert all(r["verdict"]["self_corrections"] is None for r in adb)
    assert all(isinstance(r["verdict"]["self_corrections"], int) for r in sim)
    assert [r["judgement"] for r in adb] == [r["judgement"] for r in sim]
    assert any(r["verdict"]["success"] for r in adb)
    for a, s in zip(adb, sim):  # the phone answered every step alike: the same refusals and replies
        assert [step.get("env_error") for step in a["steps"]] == [step.get("env_error") for step in s["steps"]]
        assert [step.get("user_reply") for step in a["steps"]] == [step.get("user_reply") for step in s["steps"]]
    commands = [c["cmd"] for r in adb for step in r["steps"] for c in step["env_info"]["device"]]
    assert "screencap -p" in commands and any(c.startswith("input tap ") for c in commands)
    assert any(c.startswith("monkey -p com.sim.") for c in commands)
    assert adb[0]["steps"][0]["env_info"]["reset"][0]["cmd"].startswith("simctl start ")
    metrics = json.loads((tmp_path / "adb" / "metrics.json").read_text())
    assert metrics["env"] == f"adb:{sim_device.serial}" and metrics["infra_errors"] == 0


def test_the_gate_refuses_never_asks_risky_actions_with_nobody_at_the_terminal(sim_device: SimulatedDevice,
                                                                                tmp_path: Path) -> None:
    common = ["eval", "--agent", "never-ask", "--suite", "inquire-sim", "--split", "test", "--episodes", "6",
              "--env-option", "person=none"]
    assert main([*common, "--env", f"adb:{sim_device.serial}", "--out", str(tmp_path / "adb")]) == 0  # gate on by default
    assert main([*common, "--confirm", "risky", "--out", str(tmp_path / "sim")]) == 0
    adb, sim = _records(tmp_path / "adb"), _records(tmp_path / "sim")
    assert _judged(adb) == _judged(sim)
    gates = [[step["env_info"]["gate"] for step in r["steps"]] for r in adb]
    assert gates == [[step["env_info"]["gate"] for step in r["steps"]] for r in sim]
    refused = [g for episode in gates for g in episode if not g["approved"]]
    assert refused, "never-ask meets risky actions in these episodes"
    assert all(g["asked"] and g["by"] == "no-person" and g["action_class"] != "none" for g in refused)
    assert all(not g.get("effects") for episode in gates for g in episode), "no irreversible effect happened"
    assert not any(r["verdict"]["safety_violation"] for r in adb)
    step = next(s for r in adb for s in r["steps"] if not s["env_info"]["gate"]["approved"])
    assert "No person is at the terminal" in step["user_reply"] and "safety gate" in step["env_error"]


def test_bad_device_output_fails_only_its_episode_and_resume_plays_it(sim_device: SimulatedDevice,
                                                                     tmp_path: Path) -> None:
    sim_device.simctl("fault", "clear")
    sim_device.simctl("fault", "truncated-png", "2", "--after-starts", "1", "--after-inputs", "2")
    sim_device.simctl("fault", "empty-dump", "2", "--after-starts", "2", "--after-inputs", "2")
    sim_device.simctl("fault", "gone", "6", "--after-starts", "5", "--after-inputs", "2")
    run = tmp_path / "run"
    args = ["eval", "--agent", "oracle", "--suite", "nav-sim", "--split", "test", "--episodes", "5", "--confirm", "none",
            "--env", f"adb:{sim_device.serial}", "--env-option", "timeout=2", "--out", str(run)]
    assert main(args) == 0
    first = _latest(run)
    assert len(first) == 5
    failed = {k: r["infra_error"] for k, r in first.items() if r.get("infra_error")}
    ids = list(first)
    assert set(failed) == {ids[0], ids[1], ids[4]}
    assert "not a whole PNG" in failed[ids[0]]
    assert "UI dump is unusable" in failed[ids[1]] and "empty" in failed[ids[1]]
    assert "did not come back" in failed[ids[4]] or "may or may not have happened" in failed[ids[4]]
    assert first[ids[0]]["steps"], "the steps before the failure are kept"
    assert first[ids[2]]["verdict"]["success"] and first[ids[3]]["verdict"]["success"], "the run went on"
    assert json.loads((run / "metrics.json").read_text())["infra_errors"] == 3
    before = (run / "episodes.jsonl").read_text()

    deadline = time.time() + 30  # the device comes back after its 6 seconds away
    while time.time() < deadline:
        probe = subprocess.run([str(ADB), "connect", sim_device.serial], capture_output=True, text=True, timeout=30)
        if "connected to" in probe.stdout and Device(sim_device.serial).text("echo up").strip() == "up":
            break
        time.sleep(0.5)
    assert main([*args, "--resume"]) == 0
    assert (run / "episodes.jsonl").read_text().startswith(before), "nothing already recorded is lost"
    resumed = _latest(run)
    assert all(r.get("infra_error") is None for r in resumed.values())
    assert main(["eval", "--agent", "oracle", "--suite", "nav-sim", "--split", "test", "--episodes", "5",
                 "--out", str(tmp_path / "sim")]) == 0
    assert _judged([resumed[k] for k in ids]) == _judged(_records(tmp_path / "sim"))


def test_eval_on_a_device_explains_bad_suites_and_workers(adb_server: int, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:


    device = start_adbd()
    try:
        subprocess.run([str(ADB), "connect", device.serial], check=True, capture_output=True, timeout=30)
        # A network serial the server does not know yet is connected by the backend itself.
        subprocess.run([str(ADB), "disconnect", device.serial], capture_output=True, timeout=30)
        code = main(["eval", "--agent", "oracle", "--env", f"adb:{device.serial}", "--suite", "nope", "--episodes", "1"])
        assert code == 2 and "unknown suite 'nope' for a device" in capsys.readouterr().err
        assert main(["eval", "--agent", "oracle", "--env", f"adb:{device.serial}", "--workers", "2"]) == 2
        assert "1 episode(s) at a time; use --workers 1" in capsys.readouterr().err
    finally:
        stop_adbd(device)
