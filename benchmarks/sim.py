"""Speed and memory of the simulated phone, in English and in Chinese: env steps per second (with 0.3-scale screenshots
and without), reset time, memory per env."""

from __future__ import annotations

import os
import random
import time
import tracemalloc

from mobile_r1.core.actions import Action
from mobile_r1.env.sim import SimEnv


def _clickable_policy(env: SimEnv, obs, rng: random.Random) -> Action:
    targets = [e for e in obs.elements if e.clickable]
    r = rng.random()
    if r < 0.08:
        return Action.back()
    if r < 0.12:
        return Action.open(rng.choice([a.name for a in env.phone.apps.values()]))
    if r < 0.2:
        return Action.swipe(540, 1700, 540, 700)
    if targets:
        return Action.click(*rng.choice(targets).center)
    return Action.back()


def steps_per_second(render: bool, n: int = 2000, seed: int = 0, locale: str = "en") -> tuple[float, float]:
    """(steps per wall-clock second, steps per CPU second of this process) under a random clicking policy."""
    env = SimEnv(seed=seed, render=render, scale=0.3, xml=True, locale=locale)
    rng = random.Random(seed)
    obs = env.reset(app="Shop")
    wall, cpu = time.perf_counter(), time.process_time()
    for i in range(n):
        obs, _, done, _ = env.step(_clickable_policy(env, obs, rng))
        if done or i % 200 == 199:
            obs = env.reset(seed=i)
    return n / (time.perf_counter() - wall), n / (time.process_time() - cpu)


def reset_ms(n: int = 200) -> tuple[float, float]:
    """(wall-clock, CPU) milliseconds per reset to a new seed, first observation included."""
    env = SimEnv(render=False)
    wall, cpu = time.perf_counter(), time.process_time()
    for i in range(n):
        env.reset(seed=i)
    return (time.perf_counter() - wall) * 1000 / n, (time.process_time() - cpu) * 1000 / n


def _rss_mb() -> float:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def memory_per_env_mb(n: int = 20, locale: str = "en") -> tuple[float, float]:
    """(Python heap per env by tracemalloc, resident-set growth per env incl. screenshot buffers)."""
    rss = _rss_mb()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    envs = []
    for i in range(n):
        env = SimEnv(seed=i, render=True, locale=locale)
        obs = env.reset(app="Shop")
        for _ in range(30):
            obs, *_ = env.step(_clickable_policy(env, obs, random.Random(i)))
        envs.append(env)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return (after - before) / n / 1e6, (_rss_mb() - rss) / n


def best(fn, repeats: int = 3):  # type: ignore[no-untyped-def]
    """The best of several runs of `fn` (tuples compared by their last item), as `timeit` advises on busy machines."""
    return max((fn() for _ in range(repeats)), key=lambda r: r[-1])


def main() -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPUs, load average {load:.1f} (other work on the machine slows wall-clock figures)")
    print(f"apps installed:                    {len(SimEnv().phone.apps)}  (steps also build elements, XML, state key;"
          " best of 3 runs)")
    for locale in ("en", "zh"):
        with_shots = best(lambda: steps_per_second(True, locale=locale))
        without = best(lambda: steps_per_second(False, n=3000, locale=locale))
        print(f"[{locale}] steps/s with 324x720 screenshots:  {with_shots[0]:8.0f} wall, {with_shots[1]:8.0f} per CPU second"
              " (bar >= 300)")
        print(f"[{locale}] steps/s without rendering:         {without[0]:8.0f} wall, {without[1]:8.0f} per CPU second"
              " (bar >= 2000)")
        heap, rss = memory_per_env_mb(locale=locale)
        print(f"[{locale}] memory per env, Python heap:       {heap:8.2f} MB (bar < 30 MB)")
        print(f"[{locale}] memory per env, RSS growth:        {rss:8.2f} MB (bar < 30 MB)")
    reset_wall, reset_cpu = min((reset_ms() for _ in range(3)), key=lambda r: r[1])
    print(f"reset:                             {reset_wall:8.2f} ms wall, {reset_cpu:6.2f} ms CPU (bar < 10 ms)")

if __name__ == "__main__":
    main()
