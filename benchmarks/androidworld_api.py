"""AndroidWorld's HTTP API over our simulated phone: how big a screenshot is as AndroidWorld's JSON pixel array, what
writing and reading it costs (the general JSON parser against the client's numpy reader), what gzip would save, and
the latency of one agent step (execute_action + screenshot + ui_elements) on loopback."""

from __future__ import annotations

import gzip
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "env" / "androidworld"))

from mobile_r1.env.androidworld.client import AndroidWorldClient, decode_pixels, decode_screenshot  # noqa: E402
from mobile_r1.env.sim.servers.androidworld import SimAndroidWorld, create_app, pixels_json  # noqa: E402


def best(seconds: list[float]) -> str:
    return f"{1000 * min(seconds):7.1f} ms"


def screenshot_costs(repeats: int = 3) -> None:
    state = SimAndroidWorld("nav-sim", 0, 1)
    state.initialize(next(iter(state.suite)), 0)
    print(f"{'scale':>5} {'pixels':>12} {'JSON':>9} {'gzip -6':>9} {'write':>10} {'JSON parse':>11} "
          f"{'numpy read':>11} {'gzip':>10}")
    for scale in (0.3, 1.0):
        state.scale = scale
        array = state.screenshot()
        write, parse, fast, squeeze = [], [], [], []
        for _ in range(repeats):
            t = time.perf_counter()
            body = pixels_json(array)
            write.append(time.perf_counter() - t)
            t = time.perf_counter()
            decode_pixels(json.loads(body)["pixels"])
            parse.append(time.perf_counter() - t)
            t = time.perf_counter()
            decode_screenshot(body)
            fast.append(time.perf_counter() - t)
            t = time.perf_counter()
            packed = gzip.compress(body, 6)
            squeeze.append(time.perf_counter() - t)
        h, w = array.shape[:2]
        print(f"{scale:>5} {f'{w}x{h}x3':>12} {len(body) / 1e6:7.1f}MB {len(packed) / 1e6:7.2f}MB {best(write)} "
              f"{best(parse)} {best(fast)} {best(squeeze)}")


def step_latency(steps: int = 20) -> None:
    from aw_servers import ThreadServer

    for scale in (0.3, 1.0):
        state = SimAndroidWorld("nav-sim", 0, 1, scale)
        with ThreadServer(create_app(state)) as server:
            client = AndroidWorldClient(server.url)
            client.initialize_task(next(iter(state.suite)), 0)
            times = []
            for i in range(steps):
                t = time.perf_counter()
                client.execute_action({"action_type": "wait"})
                client.screenshot()
                client.ui_elements()
                times.append(time.perf_counter() - t)
            client.close()
        times.sort()
        print(f"one step on loopback at scale {scale}: median {1000 * times[len(times) // 2]:.0f} ms, "
              f"best {1000 * times[0]:.0f} ms (execute_action + screenshot + ui_elements)")


if __name__ == "__main__":
    print(f"CPU cores: {os.cpu_count()}, load: {os.getloadavg()[0]:.1f}")
    screenshot_costs()
    step_latency()
