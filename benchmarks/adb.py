"""Steps over adb: seconds per step and device round trips per step of the `oracle` on nav-sim, played through the
real adb server against the simulated phone (`mobile-r1 sim adbd`), next to the same episodes on the simulator.

    python benchmarks/adb.py [--episodes 10] [--capture-scale 1.0] [--render/--no-render]

Needs the `adb` binary (`make adb`). A private adb server is started on a free port and killed at the end. Every
device command is one round trip (one adb stream); they are counted from the trajectories (`env_info["device"]`),
the episode's set-up (`simctl start`) included. Each step takes one round trip for the action and two to observe
(`screencap -p`, then `uiautomator dump` + `dumpsys window` in one command line); a real phone adds the time it
takes to settle after an action (`settle`, 1 s by default there, 0 on the simulated device).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mobile_r1.eval.runner import EvalConfig, load_run, run_eval
from mobile_r1.serve.server import free_port


def _run(env: str, episodes: int, out: Path, env_options: dict[str, object]) -> tuple[float, list[dict]]:
    started = time.perf_counter()
    result = run_eval(EvalConfig(agent="oracle", env=env, suite="nav-sim", split="test", episodes=episodes, out=out,
                                 env_options=env_options))
    seconds = time.perf_counter() - started
    assert not result.infra_errors, result.infra_errors
    return seconds, load_run(out)[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--capture-scale", type=float, default=1.0, help="scale of the simulated device's captures")
    args = parser.parse_args()
    adb = shutil.which("adb")
    if adb is None:
        sys.exit("the adb binary is not installed (`make adb`)")
    port = free_port()
    os.environ["ANDROID_ADB_SERVER_PORT"] = str(port)
    subprocess.run([adb, "-P", str(port), "start-server"], check=True, capture_output=True)
    device = subprocess.Popen([sys.executable, "-m", "mobile_r1.cli.main", "sim", "adbd", "--port", "0",
                               "--capture-scale", str(args.capture_scale)], stdout=subprocess.PIPE, text=True)
    try:
        assert device.stdout is not None
        serial = device.stdout.readline().strip().rsplit(" ", 1)[1]
        subprocess.run([adb, "-P", str(port), "connect", serial], check=True, capture_output=True)
        with tempfile.TemporaryDirectory() as tmp:
            adb_seconds, adb_records = _run(f"adb:{serial}", args.episodes, Path(tmp) / "adb", {"confirm": "none"})
            sim_seconds, sim_records = _run("sim", args.episodes, Path(tmp) / "sim", {})
        steps = sum(len(r["steps"]) for r in adb_records)
        commands = [c for r in adb_records for s in r["steps"]
                    for c in [*s.get("env_info", {}).get("reset", []), *s.get("env_info", {}).get("device", [])]
                    if isinstance(c, dict) and "cmd" in c]
        device_seconds = sum(float(c["seconds"]) for c in commands)
        kinds: dict[str, int] = {}
        for c in commands:
            word = c["cmd"].split()[0]
            kinds[word] = kinds.get(word, 0) + 1
        def judged(records: list[dict]) -> list[dict]:  # a device over adb names no states: no self-corrections
            return [{k: v for k, v in r["verdict"].items() if k != "self_corrections"} for r in records]

        same = judged(adb_records) == judged(sim_records)
        print(f"oracle on nav-sim/test, {args.episodes} episodes, {steps} steps, screenshots saved, device captures at "
              f"scale {args.capture_scale}, {os.cpu_count()} CPU cores")
        print(f"  over adb:      {adb_seconds / steps:.3f} s/step  ({adb_seconds:.1f} s in all)")
        print(f"  round trips:   {len(commands) / steps:.2f} per step  ({len(commands)} commands: "
              + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])) + ")")
        print(f"  waiting on the device: {device_seconds / steps:.3f} s/step; {device_seconds / len(commands) * 1000:.1f} "
              "ms per round trip")
        print(f"  simulator:     {sim_seconds / steps:.3f} s/step  (same verdicts: {same})")
    finally:
        device.terminate()
        device.wait(timeout=10)
        subprocess.run([adb, "-P", str(port), "kill-server"], capture_output=True)


if __name__ == "__main__":
    main()
