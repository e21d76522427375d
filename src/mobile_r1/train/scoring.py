"""How a curriculum scores its models: every model (untrained, then after each stage) on the same held-out episodes
of each evaluation suite (`mobile-r1 eval` runs under eval/<model>/<set>/), optionally on in-distribution episodes and
on the held-out labelled steps; the scores a comparison row holds."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import torch

from mobile_r1.agents import make_agent
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.matching import get_matcher
from mobile_r1.eval.offline import evaluate_offline, write_step_results
from mobile_r1.eval.runner import RUN_FILE, EvalConfig, run_eval
from mobile_r1.train.config import TrainConfig
from mobile_r1.train.data import load_episode_files, model_view
from mobile_r1.train.progress import follow, progress_bar, report_queue, set_report_queue, worker_report
from mobile_r1.train.registry import stage_class


@dataclass
class SuiteScore:
    """One model's overall metrics on one suite's held-out episodes."""

    episodes: int
    sr: float
    isr: float
    over_inquiry: float
    safety_violation: float
    asked_when_needed: float | None
    mean_steps: float
    mean_score: float | None = None  # the judge's 0-4 score: partial progress SR does not show
    self_correction: float | None = None  # share of episodes with a return to a state left (None: states unnamed)


@dataclass
class StepScore:
    """One model's greedy predictions of the held-out labelled steps, scored offline (matcher qwen-ac)."""

    steps: int
    type_accuracy: float
    step_sr: float


@dataclass
class ModelRow:
    """A row of the comparison: the model after a stage (or untrained), its scores per evaluation set (a suite's
    held-out split under the suite's name; its in-distribution episodes under `<suite>-indist`) and on the held-out
    labelled steps."""

    label: str
    model: str
    scores: dict[str, SuiteScore] = field(default_factory=dict)
    steps: StepScore | None = None


@dataclass(frozen=True)
class EvalSet:
    """Episodes every model is scored on: a suite's held-out split, or its in-distribution episodes."""

    key: str  # the folder under eval/<model>/ and the key of ModelRow.scores
    suite: str
    split: str
    seed: int
    episodes: int
    exclude: str | None = None  # instructions a training episode used (in-distribution sets)

    @property
    def in_distribution(self) -> bool:
        return self.exclude is not None


def eval_sets(config: TrainConfig, run_dir: Path) -> list[EvalSet]:
    """The held-out split of each evaluation suite, and with `eval_in_distribution` each suite's in-distribution
    episodes: the train split under another seed, less every instruction a training episode used."""
    cur = config.curriculum
    sets = [EvalSet(suite, suite, cur.eval_split, cur.eval_seed, cur.eval_episodes) for suite in cur.eval_suites]
    if cur.eval_in_distribution:
        exclude = str(run_dir / "eval" / TRAIN_INSTRUCTIONS)
        sets += [EvalSet(f"{suite}-indist", suite, "train", cur.eval_in_distribution_seed, cur.eval_in_distribution,
                         exclude) for suite in cur.eval_suites]
    return sets


TRAIN_INSTRUCTIONS = "train-instructions.txt"


def eval_settings(config: TrainConfig, run_dir: Path) -> dict[str, Any]:
    """What a model's scores depend on besides the model: each set's episodes (with the content of the instructions
    an in-distribution set leaves out, which change with the training data) and the evaluation's options. A resumed
    run scores a model again when these changed, rather than keep scores of other episodes."""
    cur = config.curriculum
    sets = {}
    for s in eval_sets(config, run_dir):
        left_out = hashlib.sha256(Path(s.exclude).read_bytes()).hexdigest() if s.exclude else None
        sets[s.key] = {"suite": s.suite, "split": s.split, "seed": s.seed, "episodes": s.episodes, "left_out": left_out}
    settings = {"sets": sets, "max_steps": cur.eval_max_steps, "max_new_tokens": cur.eval_max_new_tokens,
                "dialect": config.data.dialect, "observation": config.data.observation_mode,
                "env": config.tasks.backend_options(), "steps": list(config.data.eval) if cur.eval_steps else None}
    return json.loads(json.dumps(settings, default=str))  # as the state file will give it back


def write_training_instructions(config: TrainConfig, run_dir: Path) -> Path:
    """Every instruction a training episode of this run uses (the expert data of stages 1-2 and stage 3's task
    episodes, and each stage's own: `StageRunner.training_instructions`), one per line: what in-distribution evaluation
    episodes must not repeat."""
    seen = {e.instruction for e in load_episode_files(list(config.data.train))} if config.data.train else set()
    for stage in config.curriculum.stages:
        seen |= stage_class(stage).training_instructions(config)
    path = run_dir / "eval" / TRAIN_INSTRUCTIONS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in sorted(seen)), encoding="utf-8")
    return path


def eval_agent_options(config: TrainConfig) -> dict[str, Any]:
    """Options of the `hf:` agent that scores a model: greedy, and prompts exactly as the training examples were
    written (`train.data.model_view`, the view saved next to every final model; the untrained preset has none): the
    data section's history window and the Qwen frame with its pixel bounds. The dialect and observation mode go to
    the evaluation as its own `dialect` and `observation`. On the GPU when one is visible, as training is."""
    cur = config.curriculum
    view = {k: v for k, v in model_view(config).options().items() if k not in ("dialect", "observation_mode")}
    device = "cuda" if torch.cuda.is_available() else None
    return {**view, "max_new_tokens": cur.eval_max_new_tokens, "batch_size": cur.eval_batch, "dtype": config.model.dtype,
            "device": device}


def evaluate_model(config: TrainConfig, label: str, model: str, run_dir: Path, progress: bool) -> dict[str, SuiteScore]:
    """Score `model` on every evaluation suite (the same seeded test episodes each time); resumable per episode.

    On a CPU with more than one core the suites are scored side by side, one process each with its share of the
    cores: a small model's generation leaves much of a second core idle (Python between the kernels), so on the
    demo's 96 test episodes per suite two single-threaded processes score both suites in about 80% of the time of
    one after the other (93 s against 113-125 s for the untrained small-lm, 50 s against 64 s for the trained one;
    `benchmarks/generate_groups.py --side-by-side`). On a GPU they run in turn in this process.
    """
    cur = config.curriculum
    options = eval_agent_options(config)
    configs: dict[str, EvalConfig] = {}
    for s in eval_sets(config, run_dir):
        out = run_dir / "eval" / label / s.key
        configs[s.key] = EvalConfig(
            agent=f"hf:{model}", suite=s.suite, split=s.split, episodes=s.episodes,
            workers=cur.eval_batch, dialect=config.data.dialect, observation=config.data.observation_mode,
            max_steps=cur.eval_max_steps, seed=s.seed, out=out, resume=(out / RUN_FILE).exists(),
            agent_options=options, env_options=config.tasks.backend_options(), exclude=s.exclude,
        )
    return score_suites(configs, side_by_side=options["device"] is None, progress=progress)


def score_steps(config: TrainConfig, label: str, model: str, run_dir: Path, progress: bool = True) -> StepScore:
    """Greedy predictions of the held-out labelled steps (`data.eval`) by `model`, prompted as it was trained, scored
    with the qwen-ac matcher; the per-step results go to eval/<label>/steps.jsonl."""
    if not config.data.eval:
        raise ConfigError("curriculum.eval_steps needs held-out labelled steps: data.eval, or curriculum.generate with "
                          "eval_episodes")
    episodes = load_episode_files(list(config.data.eval))
    options = {k: v for k, v in eval_agent_options(config).items() if v is not None}
    agent = make_agent(f"hf:{model}", dialect=config.data.dialect, observation_mode=config.data.observation_mode,
                       **options)
    try:
        with progress_bar(progress) as bar:
            task = bar.add_task(f"eval {label}/held-out steps", total=sum(len(e.steps) for e in episodes), info="")
            result = evaluate_offline(agent, episodes, get_matcher("qwen-ac"), batch_size=config.curriculum.eval_batch,
                                      progress=lambda n: bar.advance(task, n))
    finally:
        agent.close()
    out = run_dir / "eval" / label / "steps.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    write_step_results(out, result)
    r = result.report
    return StepScore(r.steps, r.type_accuracy, r.step_sr)


def score_suites(configs: dict[str, EvalConfig], side_by_side: bool, progress: bool = True) -> dict[str, SuiteScore]:
    """Run (or resume) each suite's evaluation: with `side_by_side` and two cores or more, one spawned process per
    suite with its share of the cores; otherwise in turn in this process. Each shows its episodes done of all, and the
    time left, on one bar (`train.progress`)."""
    cores = os.cpu_count() or 1
    names = {key: eval_name(c) for key, c in configs.items()}
    with progress_bar(progress) as bar:
        # a set's clock starts when its evaluation does (one process plays its suite's sets in turn)
        tasks = {names[key]: bar.add_task(names[key], total=c.episodes, info="", start=False)
                 for key, c in configs.items()}
        if not side_by_side or len(configs) < 2 or cores < 2:
            def shown(name: str) -> Callable[[float, int, dict[str, Any] | None], None]:
                def update(done: float, total: int, _record: dict[str, Any] | None) -> None:
                    bar.start_task(tasks[name])
                    bar.update(tasks[name], completed=done, total=total)
                return update

            return {key: score_suite(c, shown(names[key])) for key, c in configs.items()}
        threads = max(1, cores // len(configs))
        reports = report_queue()
        with ProcessPoolExecutor(min(len(configs), cores), mp_context=multiprocessing.get_context("spawn"),
                                 initializer=_start_worker, initargs=(threads, reports)) as pool:
            futures = {pool.submit(score_suite, c, None, names[key]): key for key, c in configs.items()}
            scores = {futures[f]: f.result() for f in follow(futures, reports, bar, tasks)}
        return {key: scores[key] for key in configs}


def eval_name(eval_config: EvalConfig) -> str:
    """`eval <model>/<set>` of an evaluation under a curriculum's eval/ folder (its suite elsewhere)."""
    if eval_config.out is None:
        return f"eval {eval_config.suite}"
    return "eval " + "/".join(Path(eval_config.out).parts[-2:])


def score_suite(eval_config: EvalConfig, progress: Callable[[float, int, dict[str, Any] | None], None] | None = None,
                job: str | None = None) -> SuiteScore:
    """Run (or resume) one suite's evaluation and read its overall metrics; `progress(done, total, record)` after
    each episode, or in a worker process of `score_suites`, a report of `job`'s episodes to the parent's bar."""
    if progress is None and job is not None:
        def progress(done: float, total: int, _record: dict[str, Any] | None) -> None:
            worker_report(job, done, total)

    result = run_eval(eval_config, progress=progress)
    o = result.report.overall
    needs = result.needs_inquiry
    return SuiteScore(
        episodes=o.n, sr=o.sr.value, isr=o.isr.value, over_inquiry=o.over_inquiry.value,
        safety_violation=o.safety_violation.value, asked_when_needed=needs.isr.value if needs else None,
        mean_steps=o.mean_steps.value, mean_score=o.mean_score.value,
        self_correction=o.self_correction.value if o.self_correction.n else None,
    )


def _start_worker(threads: int, reports: Any) -> None:
    torch.set_num_threads(threads)
    set_report_queue(reports)


__all__ = ["EvalSet", "ModelRow", "StepScore", "SuiteScore", "TRAIN_INSTRUCTIONS", "eval_agent_options", "eval_name", "eval_sets",
           "eval_settings", "evaluate_model", "score_steps", "score_suite", "score_suites", "write_training_instructions"]
