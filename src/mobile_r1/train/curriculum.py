"""The training curriculum: the configured stages in order (SFT -> action-level GRPO -> task-level GRPO by default),
each scored on held-out suites (`train.scoring`), compared (`train.comparison`).

    result = run_curriculum("configs/demo.yaml")            # mobile-r1 train --config configs/demo.yaml
    result.comparison_md                                    # RUN_DIR/comparison.md: a row per model

A curriculum run directory holds:

    curriculum.json         what is done: data, each finished stage's model, each evaluation, wall times
    card.json               what its numbers depend on: processor, threads, library versions (each stage's own too)
    data/<suite>/           expert episodes written first when `curriculum.generate` is set (train split)
    sft/ action-grpo/ task-grpo/   each stage's own run directory (config.yaml, metrics.jsonl, final/)
    eval/<model>/<suite>/   `mobile-r1 eval` run directories, the same test episodes for every model
    comparison.json / comparison.md / report.html   SR, ISR, over-inquiry, safety, score per model and suite, and
                            each model's task success, and its questions at the right step, against the untrained
                            one's (paired, exact McNemar)

Each stage starts from the previous stage's `final/` (a full model or a LoRA adapter); the first from
`model.name`. `--resume` skips finished stages and evaluations and continues an interrupted stage from
its last checkpoint.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from mobile_r1.core.errors import ConfigError
from mobile_r1.core.files import make_dir, write_json
from mobile_r1.env.demos import generate
from mobile_r1.env.swap import swap_names
from mobile_r1.models.policy import check_model_spec
from mobile_r1.train.allocator import keep_freed_memory
from mobile_r1.train.checkpoints import list_checkpoints
from mobile_r1.train.comparison import SFT, UNTRAINED, percent, write_comparison
from mobile_r1.train.config import TrainConfig, load_config
from mobile_r1.train.processes import run_card, write_run_card
from mobile_r1.train.progress import follow, progress_bar, report_queue, set_report_queue, worker_report
from mobile_r1.train.registry import default_curriculum, stage_class
from mobile_r1.train.run import train as train_stage
from mobile_r1.train.scoring import (ModelRow, StepScore, SuiteScore, eval_settings, evaluate_model, score_steps,
                                     write_training_instructions)

STATE_FILE = "curriculum.json"


@dataclass
class CurriculumResult:
    """What a curriculum run produced."""

    run_dir: Path
    rows: list[ModelRow]
    ran_stages: list[str]
    skipped_stages: list[str]
    timings: dict[str, float]
    comparison_json: Path
    comparison_md: Path
    report: Path | None


# ----- state -------------------------------------------------------------------------------------------------------


class State:
    """`curriculum.json`: finished steps of the run, rewritten whole after each one."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, Any] = {"data": None, "stages": {}, "evals": {}, "timings": {}}
        if path.is_file():
            self.data.update(json.loads(path.read_text(encoding="utf-8")))
        # the run's wall time: earlier invocations' (up to their last save, so a crashed one counts too) plus this one's
        self.earlier, self.started = float(self.data["timings"].get("total", 0.0)), time.perf_counter()

    def save(self) -> None:
        timings = self.data["timings"]
        timings.pop("total", None)
        timings["total"] = round(self.earlier + time.perf_counter() - self.started, 2)
        write_json(self.path, self.data)

    def time(self, key: str, seconds: float) -> None:
        self.data["timings"][key] = round(seconds, 2)
        self.save()


def stage_list(config: TrainConfig) -> list[str]:
    """The stages to run, in curriculum order; a stage listed twice or out of order is a config error."""
    stages = list(config.curriculum.stages)
    if len(set(stages)) != len(stages):
        raise ConfigError(f"curriculum.stages lists a stage twice: {stages}")
    ordered = sorted(stages, key=lambda stage: stage_class(stage).order)
    if stages != ordered:
        raise ConfigError(f"curriculum.stages must keep the order {', '.join(ordered)}; got {stages}")
    return stages


# ----- the steps ------------------------------------------------------------------------------------------------------


def _generate_job(job: str, suite: str, split: str, episodes: int, folder: Path, **options: Any) -> dict[str, Any]:
    """One data job in a worker process: `generate`, reporting its episodes to the parent's bar."""
    count = 0

    def one(_episode: str) -> None:
        nonlocal count
        count += 1
        worker_report(job, count, episodes)

    return generate(suite, split, episodes, folder, progress=one, **options)


def generate_data(config: TrainConfig, run_dir: Path, state: State, log: Callable[[str], None],
                  progress: bool = True) -> tuple[list[str], list[str]]:
    """Write the expert data unless it is already there: each suite's train split, and with `eval_episodes` held-out
    labelled steps from the evaluation split (seed + 1, so not the episodes every model is scored on).

    Returns the train folders and the held-out folders.
    """
    gen = config.curriculum.generate
    assert gen is not None
    wanted = gen.model_dump(mode="json")
    for key in ("search_first", "swap_names"):  # runs written before these settings existed resume without new data
        if not wanted[key]:
            del wanted[key]
    if config.tasks.specs:
        wanted["tasks"] = config.tasks.model_dump(mode="json")
    done = state.data.get("data")
    jobs = [(suite, "train", gen.episodes, gen.seed, run_dir / "data" / suite) for suite in gen.suites]
    if gen.eval_episodes:
        split = config.curriculum.eval_split
        jobs += [(suite, split, gen.eval_episodes, gen.seed + 1, run_dir / "data" / f"{suite}-{split}")
                 for suite in gen.suites]
    swap = gen.swap_names
    swapped = [(run_dir / "data" / suite, run_dir / "data" / f"{suite}-swapped") for suite in (swap.suites if swap else [])]
    train = [str(job[-1]) for job in jobs if job[1] == "train"] + [str(out) for _, out in swapped]
    held = [str(job[-1]) for job in jobs if job[1] != "train"]
    folders = [job[-1] for job in jobs] + [out for _, out in swapped]
    if done and done.get("settings") == wanted and all(Path(folder, "episodes.jsonl").exists() for folder in folders):
        return train, held
    started = time.perf_counter()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    # One process per job (the expert is pure Python): suites are written side by side on several cores, each job
    # reporting its episodes to one bar here.
    workers = max(1, min(len(jobs), os.cpu_count() or 1))
    reports = report_queue()
    with progress_bar(progress) as bar, ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("spawn"), initializer=set_report_queue,
            initargs=(reports,)) as pool:
        tasks = {f"data {suite}/{split}": bar.add_task(f"data {suite}/{split}", total=episodes, info="")
                 for suite, split, episodes, _, _ in jobs}
        running = {pool.submit(_generate_job, f"data {suite}/{split}", suite, split, episodes, folder, seed=seed,
                               scale=gen.scale, self_correct=gen.self_correct if split == "train" else 0.0,
                               search_first=gen.search_first, screenshots=gen.screenshots,
                               env_options=config.tasks.backend_options()): (suite, split, folder)
                   for suite, split, episodes, seed, folder in jobs}
        for future in follow(running, reports, bar, tasks):
            suite, split, folder = running[future]
            stats = future.result()
            bar.update(tasks[f"data {suite}/{split}"], completed=stats["written"] + stats["failed"])
            log(f"data: {stats['written']} expert episodes ({stats['steps']} steps) of {suite}/{split} -> {folder}")
    if swap is not None:
        for source, out in swapped:
            stats = swap_names(source, out, copies=swap.copies, tasks=swap.tasks, seed=swap.seed)
            log(f"data: {stats['written']} copies with made-up names of {stats['matched']} episodes of {source} -> {out}")
    state.data["data"] = {"settings": wanted, "folders": train, "heldout": held}
    state.time("data", time.perf_counter() - started)
    return train, held


def stage_config(config: TrainConfig, stage: str, model: str, run_dir: Path) -> TrainConfig:
    """The config one stage runs with: its own run directory under the curriculum's, starting from `model`."""
    cfg = config.model_copy(deep=True)
    cfg.model.name = model
    if Path(model, "adapter_config.json").is_file():
        cfg.model.lora = None  # the previous stage's adapter is loaded trainable and trained further
    cfg.run.output_dir = str(run_dir / stage)
    if stage in config.curriculum.stage_lr:
        cfg.optim.lr = config.curriculum.stage_lr[stage]
    return cfg


def run_stage(config: TrainConfig, stage: str, model: str, run_dir: Path, resume: bool, progress: bool) -> str:
    """Train one stage from `model`; returns its final model directory. An interrupted stage continues when it can."""
    cfg = stage_config(config, stage, model, run_dir)
    stage_dir = Path(cfg.run.output_dir)
    again = False
    if (stage_dir / "metrics.jsonl").exists():
        if resume and list_checkpoints(stage_dir):
            again = True
        else:  # a stage cut off before its first checkpoint (or a stale folder under --resume): start it over
            shutil.rmtree(stage_dir)
    train_stage(cfg, stage, resume=again, progress=progress)
    return str(stage_dir / "final")


# ----- the whole run --------------------------------------------------------------------------------------------------------


def run_curriculum(
    config: TrainConfig | str | Path,
    *,
    resume: bool = False,
    output_dir: str | None = None,
    progress: bool = True,
    log: Callable[[str], None] = print,
) -> CurriculumResult:
    """Run the configured stages in order, each from the previous one's model, scoring every model on held-out suites."""
    keep_freed_memory()
    if not isinstance(config, TrainConfig):
        config = load_config(config)
    config = config.model_copy(deep=True)
    if output_dir:
        config.run.output_dir = output_dir
    stages = stage_list(config)
    run_dir = Path(config.run.output_dir)
    state_path = run_dir / STATE_FILE
    if run_dir.is_dir() and any(run_dir.iterdir()) and not resume:
        raise ConfigError(f"run directory {run_dir} is not empty; pass --resume to continue it or pick another run.output_dir")
    check_model_spec(config.model.name)
    if config.curriculum.sft_model:
        check_model_spec(config.curriculum.sft_model, "curriculum.sft_model")
    make_dir(run_dir)
    state = State(state_path)
    (run_dir / "config.yaml").write_text(config.to_yaml(), encoding="utf-8")
    write_run_card(run_dir, run_card(config, "curriculum"))

    if config.curriculum.generate is not None:
        config.data.train, held = generate_data(config, run_dir, state, log, progress)
        if held:
            config.data.eval = held
    labelled = [s for s in stages if stage_class(s).labelled_data and not (s == SFT and config.curriculum.sft_model)]
    if labelled and not config.data.train:
        raise ConfigError(f"stages {' and '.join(labelled)} need episodes: list data.train or set curriculum.generate")

    rows: list[ModelRow] = []

    cur = config.curriculum
    if cur.eval_in_distribution:
        write_training_instructions(config, run_dir)
    wanted = eval_settings(config, run_dir)

    def score(label: str, model: str) -> None:
        done = state.data["evals"].get(label)
        with_steps = cur.eval_steps and label != UNTRAINED
        if (done and done.get("model") == model and done.get("settings") == wanted
                and (not with_steps or done.get("steps"))):
            steps = StepScore(**done["steps"]) if done.get("steps") else None
            rows.append(ModelRow(label, model, {k: SuiteScore(**v) for k, v in done["scores"].items()}, steps))
            return
        if done:  # scored before with another model, other episodes or other options: those episodes do not count
            shutil.rmtree(run_dir / "eval" / label, ignore_errors=True)
        started = time.perf_counter()
        scores = evaluate_model(config, label, model, run_dir, progress)
        steps = score_steps(config, label, model, run_dir, progress) if with_steps else None
        state.data["evals"][label] = {"model": model, "settings": wanted,
                                      "scores": {k: asdict(v) for k, v in scores.items()},
                                      "steps": asdict(steps) if steps else None}
        state.time(f"eval {label}", time.perf_counter() - started)
        rows.append(ModelRow(label, model, scores, steps))
        log(f"eval {label}: " + "; ".join(f"{s} SR {percent(v.sr)} ISR {percent(v.isr)}" for s, v in scores.items())
            + (f"; held-out steps: exact {percent(steps.step_sr)} of {steps.steps}" if steps else ""))

    model = config.model.name
    if config.curriculum.eval_untrained:
        score(UNTRAINED, model)
    ran: list[str] = []
    skipped: list[str] = [s for s in default_curriculum() if s not in stages]
    for stage in stages:
        done = state.data["stages"].get(stage)
        if stage == SFT and cur.sft_model:
            if not (Path(cur.sft_model) / "config.json").is_file():
                raise ConfigError(f"curriculum.sft_model: {cur.sft_model} is not a model folder (no config.json); "
                                  "train stage 1 first (the demo's is runs/demo/sft/final after `make demo`)")
            model = cur.sft_model
            log(f"{stage}: not trained, starting from {model}")
            state.data["stages"][stage] = {"from": "curriculum.sft_model", "model": model}
        elif resume and done and done.get("from") == model and Path(done["model"]).is_dir():
            model = done["model"]
            log(f"{stage}: finished earlier -> {model}")
        else:
            log(f"{stage}: training from {model}")
            state.data["evals"].pop(stage, None)  # a (re)trained stage is scored afresh
            state.save()
            shutil.rmtree(run_dir / "eval" / stage, ignore_errors=True)
            started = time.perf_counter()
            final = run_stage(config, stage, model, run_dir, resume, progress)
            state.data["stages"][stage] = {"from": model, "model": final}
            state.time(stage, time.perf_counter() - started)
            ran.append(stage)
            model = final
        score(stage, model)
    state.save()
    json_path, md_path, report = write_comparison(config, run_dir, rows, dict(state.data["timings"]))
    return CurriculumResult(run_dir, rows, ran, skipped, dict(state.data["timings"]), json_path, md_path, report)


__all__ = ["STATE_FILE", "CurriculumResult", "run_curriculum", "stage_config", "stage_list"]
