"""Online evaluation: run an agent on a suite of any phone backend, append each judged episode to a run directory,
and resume.

    config = EvalConfig(agent="oracle", suite="inquire-sim", split="test", episodes=50, workers=2, out=Path("runs/o"))
    result = run_eval(config)           # result.report: MetricsReport; RUN_DIR/episodes.jsonl, metrics.json, run.json

A run directory holds `run.json` (the resolved options), `episodes.jsonl` (one line per finished episode: the
trajectory with model text, parsed action, user replies, screenshot paths, and the judge's `verdict`),
`screens/<episode>/<step>.png` and `metrics.json`. Every line is written whole under a lock with one `write`,
then flushed and fsynced, so a killed run loses at most the episodes in flight; `resume=True` drops a torn last
line, skips finished episodes and runs only the rest, so the final metrics equal an uninterrupted run's.

An episode whose phone fails (`core.errors.InfraError`: a device gone, a server erroring or timing out) is not the
agent's failure: its record carries `infra_error` instead of a verdict, it is counted apart (`EvalResult.infra_errors`,
`metrics.json`'s "infra_errors") and left out of every metric, and `resume=True` plays it again (readers take the
last record of an episode: `load_run`).

Episodes come from the backend `env` names (`sim`, the built-in simulated phone, by default; see
`mobile_r1.env.make_backend`) and are played through `play.episode.EpisodePlay`, the code stage-3 rollouts use too.
They run `workers` at a time: model agents (`hf:`, `openai:`) advance that many episodes together with one
`act_batch` call per turn; other agents run in `workers` processes, each with its own agent and backend. Every
episode depends only on its own seed (the `random` agent is re-seeded per episode), never on which worker ran it.

The pieces: `eval.config` (the options), `eval.batch` (playing episodes in flight: `run_batch`, worker processes),
`eval.episode_run` (one episode and its record), `eval.rundir` (the run directory, read back by `load_run`); this
module runs them and re-exports what callers use.

With `ray` (an address, or "local") the phones live in a pool of Ray actors (`mobile_r1.env.pools.RayBackend`
around `env`): every agent then runs here, at least one episode per pool worker in flight (or `workers`, if more),
one turn of all of them at a time, their phones stepped in parallel across the actors. Per-episode results are those
of a run in process; a worker that dies is replaced and its episodes are played again from their start on a new one
(nothing lost, nothing recorded twice).
"""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from mobile_r1.agents import Agent
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.files import write_json
from mobile_r1.core.verdict import EpisodeVerdict
from mobile_r1.env import Backend, EpisodeRef
from mobile_r1.eval import judge as _model_judge  # noqa: F401  (registers the model judge for device backends)
from mobile_r1.eval.batch import (EpisodeAgents, build_agent, replace_workers, run_batch, run_one, worker_init,
                                  worker_run)
from mobile_r1.eval.config import BATCHED_KINDS, RESEEDED_KINDS, SERIAL_KINDS, EvalConfig
from mobile_r1.eval.episode_run import EpisodeRun, safe_name
from mobile_r1.eval.card import build_card, write_card
from mobile_r1.eval.counts import RunCounts, run_counts
from mobile_r1.eval.metrics import MetricsReport, MetricSummary, step_budget, summarize
from mobile_r1.eval.rundir import (EPISODES_FILE, METRICS_FILE, RUN_FILE, EpisodeLog, latest_records, load_run,
                                   open_run_dir, verdicts_of)


@dataclass(slots=True)
class EvalResult:
    """What a run produced: the metrics, every episode's verdict, and where it was written."""

    report: MetricsReport
    verdicts: list[EpisodeVerdict]
    run_dir: Path | None
    ran: int = 0
    skipped: int = 0
    seconds: float = 0.0
    needs_inquiry: MetricSummary | None = None
    infra_errors: list[str] = field(default_factory=list)  # episodes whose phone failed (not judged; --resume reruns)
    counts: RunCounts = field(default_factory=RunCounts)  # infrastructure errors, truncated episodes, gate refusals


# ----- suites ---------------------------------------------------------------------------------------------------
def suite_episodes(config: EvalConfig, backend: Backend | None = None) -> list[EpisodeRef]:
    """The episodes of the run's suite split, in the suite's order (the first `episodes` of them, a balanced prefix)."""
    own = backend is None
    backend = backend or config.backend()
    try:
        if config.exclude is None:
            return backend.episodes(config.suite, config.split, config.episodes, config.seed)
        path = Path(config.exclude)
        if not path.is_file():
            raise ConfigError(f"--exclude {path}: no such file (one instruction per line)")
        seen = {line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}
        kept = [e for e in backend.episodes(config.suite, config.split, None, config.seed) if e.instruction not in seen]
        return kept if config.episodes is None else kept[: config.episodes]
    finally:
        if own:
            backend.close()


def run_eval(config: EvalConfig, progress: Callable[[float, int, dict[str, Any] | None], None] | None = None,
             backend: Backend | None = None) -> EvalResult:
    """Run (or resume) an evaluation; `progress(done, total, record)` is called at the start, after each episode and,
    where episodes play in turns in this process, after each turn with `done` counting the part played of the episodes
    in flight (their steps over their budgets) and no record: a batch of episodes that all end together still moves.
    `backend` plays on a backend the caller holds (and closes) instead of the one `config` names."""
    config.validate()
    started = time.perf_counter()
    if backend is not None:
        return _prepare_and_run(config, backend, started, progress)
    own = config.backend()
    try:
        return _prepare_and_run(config, own, started, progress)
    finally:
        own.close()


def _prepare_and_run(config: EvalConfig, backend: Backend, started: float,
                     progress: Callable[[float, int, dict[str, Any] | None], None] | None) -> EvalResult:
    if backend.max_in_play is not None and config.workers > backend.max_in_play:
        raise ConfigError(f"the '{backend.name}' phone plays {backend.max_in_play} episode(s) at a time; "
                          f"use --workers {backend.max_in_play}")
    tasks = suite_episodes(config, backend)
    agent = build_agent(config)  # its options are checked before anything is written: a typo leaves no run folder
    try:
        return _run(config, backend, agent, tasks, started, progress)
    finally:
        agent.close()


def _run(config: EvalConfig, backend: Backend, agent: Agent, tasks: list[EpisodeRef], started: float,
         progress: Callable[[float, int, dict[str, Any] | None], None] | None) -> EvalResult:
    run_dir, log, previous = open_run_dir(config)
    wanted = {t.id for t in tasks}
    finished = {r["id"]: r for r in latest_records(previous) if r.get("id") in wanted}
    todo = [t for t in tasks if t.id not in finished]
    records: dict[str, dict[str, Any]] = dict(finished)
    total = len(tasks)
    if progress:
        progress(len(records), total, None)

    def on_done(record: dict[str, Any]) -> None:
        if record["id"] in records:
            return
        records[record["id"]] = record
        if log is not None:
            log.append(record)
        if progress:
            progress(len(records), total, record)

    def on_turn(part: float) -> None:
        if progress:
            progress(len(records) + part, total, None)

    kind = config.agent_kind
    remote = backend.remote_workers() if todo else 0
    if not todo:
        pass
    elif remote or kind in BATCHED_KINDS or kind in SERIAL_KINDS or config.workers == 1 or len(todo) == 1:
        # here, one turn of `workers` episodes at a time (at least one per remote worker: their phones step together)
        workers = 1 if kind in SERIAL_KINDS else max(config.workers, remote)
        if kind in RESEEDED_KINDS:  # one agent per episode, seeded for it
            per_episode = EpisodeAgents(config)
            try:
                run_batch(per_episode, todo, replace_workers(config, workers), run_dir, on_done, backend, on_turn)
            finally:
                per_episode.close()
        else:
            run_batch(agent, todo, replace_workers(config, workers), run_dir, on_done, backend, on_turn)
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(config.workers, len(todo)), mp_context=context,
                                 initializer=worker_init, initargs=(config, str(run_dir) if run_dir else None)) as pool:
            futures = [pool.submit(worker_run, task) for task in todo]
            for future in as_completed(futures):
                on_done(future.result())
    ordered = [records[t.id] for t in tasks if t.id in records]
    verdicts = verdicts_of(ordered)
    failed = [r["id"] for r in ordered if r.get("infra_error") is not None]
    budget = step_budget(ordered)
    report = summarize(verdicts, budget)
    needs = needs_inquiry_summary(verdicts, budget)
    counts = run_counts(ordered)
    if run_dir is not None:
        write_json(run_dir / METRICS_FILE, {"agent": config.agent, "env": config.env, "suite": config.suite,
                                            "split": config.split, "episodes": len(verdicts),
                                            "infra_errors": len(failed), "counts": counts.to_dict(),
                                            **report.to_dict(), "needs_inquiry": needs.to_dict() if needs else None})
        write_card(run_dir, build_card(config, agent, backend, tasks, ordered))  # card.json: what moves a score
    return EvalResult(report, verdicts, run_dir, ran=len(todo), skipped=len(finished),
                      seconds=time.perf_counter() - started, needs_inquiry=needs, infra_errors=failed, counts=counts)


def needs_inquiry_summary(verdicts: Sequence[EpisodeVerdict], max_steps: int | None = None) -> MetricSummary | None:
    """Metrics over the episodes whose task needed a question (InquireMobile's ISR is over these alone); `max_steps`
    bounds the steps interval."""
    group = [v for v in verdicts if v.inquiry_needed]
    return MetricSummary.of(group, max_steps) if group else None


__all__ = ["BATCHED_KINDS", "EPISODES_FILE", "RUN_FILE", "EpisodeLog", "EpisodeRun", "EvalConfig", "EvalResult",
           "build_agent", "latest_records", "load_run", "needs_inquiry_summary", "run_batch", "run_eval", "run_one",
           "safe_name", "suite_episodes", "verdicts_of"]
