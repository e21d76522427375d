"""The training curriculum: SFT -> action-level GRPO -> task-level GRPO, each scored on held-out suites, compared.

    result = run_curriculum("configs/demo.yaml")            # mobile-r1 train --config configs/demo.yaml
    result.comparison_md                                    # RUN_DIR/comparison.md: a row per model

A curriculum run directory holds:

    curriculum.json         what is done: data, each finished stage's model, each evaluation, wall times
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

import hashlib
import json
import multiprocessing
import os
import shutil
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from mobile_r1.core.errors import ConfigError
from mobile_r1.core.files import make_dir, write_json
from mobile_r1.train.allocator import keep_freed_memory
from mobile_r1.train.config import TrainConfig, load_config

if TYPE_CHECKING:  # the evaluation runner is imported when a model is scored, not when the curriculum is
    from mobile_r1.eval.runner import EvalConfig

STAGE_ORDER: tuple[str, ...] = ("sft", "action-grpo", "task-grpo")
UNTRAINED = "untrained"
STATE_FILE = "curriculum.json"
STAGE_TITLES = {UNTRAINED: "untrained", "sft": "after stage 1 (SFT)", "action-grpo": "after stage 2 (action GRPO)",
                "task-grpo": "after stage 3 (task GRPO)"}


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
    episodes), one per line: what in-distribution evaluation episodes must not repeat."""
    from mobile_r1.train.data import load_episode_files
    from mobile_r1.train.task_grpo import stage_backend

    seen = {e.instruction for e in load_episode_files(list(config.data.train))} if config.data.train else set()
    t = config.task_grpo
    if "task-grpo" in config.curriculum.stages:
        with stage_backend(config) as backend:
            seen |= {e.instruction for e in backend.episodes(t.suite, "train", t.train_episodes, config.run.seed, t.tasks)}
    path = run_dir / "eval" / TRAIN_INSTRUCTIONS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in sorted(seen)), encoding="utf-8")
    return path


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
    if stages != sorted(stages, key=STAGE_ORDER.index):
        raise ConfigError(f"curriculum.stages must keep the order {', '.join(STAGE_ORDER)}; got {stages}")
    return stages


# ----- the steps ------------------------------------------------------------------------------------------------------


def generate_data(config: TrainConfig, run_dir: Path, state: State, log: Callable[[str], None]) -> tuple[list[str], list[str]]:
    """Write the expert data unless it is already there: each suite's train split, and with `eval_episodes` held-out
    labelled steps from the evaluation split (seed + 1, so not the episodes every model is scored on).

    Returns the train folders and the held-out folders.
    """
    from mobile_r1.env.demos import generate

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
    # One process per job (the expert is pure Python): suites are written side by side on several cores.
    workers = max(1, min(len(jobs), os.cpu_count() or 1))
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        running = {pool.submit(generate, suite, split, episodes, folder, seed=seed, scale=gen.scale,
                               self_correct=gen.self_correct if split == "train" else 0.0,
                               search_first=gen.search_first, screenshots=gen.screenshots, env_options=config.tasks.backend_options()): (suite, split, folder)
                   for suite, split, episodes, seed, folder in jobs}
        for future in as_completed(running):
            suite, split, folder = running[future]
            stats = future.result()
            log(f"data: {stats['written']} expert episodes ({stats['steps']} steps) of {suite}/{split} -> {folder}")
    if swap is not None:
        from mobile_r1.env.swap import swap_names

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
    from mobile_r1.train.run import list_checkpoints

    cfg = stage_config(config, stage, model, run_dir)
    stage_dir = Path(cfg.run.output_dir)
    again = False
    if (stage_dir / "metrics.jsonl").exists():
        if resume and list_checkpoints(stage_dir):
            again = True
        else:  # a stage cut off before its first checkpoint (or a stale folder under --resume): start it over
            shutil.rmtree(stage_dir)
    from mobile_r1.train.run import train

    train(cfg, stage, resume=again, progress=progress)
    return str(stage_dir / "final")


def eval_agent_options(config: TrainConfig) -> dict[str, Any]:
    """Options of the `hf:` agent that scores a model: greedy, and prompts exactly as the training examples were
    written (`train.data.model_view`, the view saved next to every final model; the untrained preset has none): the
    data section's history window and the Qwen frame with its pixel bounds. The dialect and observation mode go to
    the evaluation as its own `dialect` and `observation`. On the GPU when one is visible, as training is."""
    import torch

    from mobile_r1.train.data import model_view

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
    from mobile_r1.eval.runner import RUN_FILE, EvalConfig

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
    return score_suites(configs, side_by_side=options["device"] is None)


def score_steps(config: TrainConfig, label: str, model: str, run_dir: Path) -> StepScore:
    """Greedy predictions of the held-out labelled steps (`data.eval`) by `model`, prompted as it was trained, scored
    with the qwen-ac matcher; the per-step results go to eval/<label>/steps.jsonl."""
    from mobile_r1.agents import make_agent
    from mobile_r1.core.matching import get_matcher
    from mobile_r1.eval.offline import evaluate_offline, write_step_results
    from mobile_r1.train.data import load_episode_files

    if not config.data.eval:
        raise ConfigError("curriculum.eval_steps needs held-out labelled steps: data.eval, or curriculum.generate with "
                          "eval_episodes")
    episodes = load_episode_files(list(config.data.eval))
    options = {k: v for k, v in eval_agent_options(config).items() if v is not None}
    agent = make_agent(f"hf:{model}", dialect=config.data.dialect, observation_mode=config.data.observation_mode,
                       **options)
    try:
        result = evaluate_offline(agent, episodes, get_matcher("qwen-ac"), batch_size=config.curriculum.eval_batch)
    finally:
        agent.close()
    out = run_dir / "eval" / label / "steps.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    write_step_results(out, result)
    r = result.report
    return StepScore(r.steps, r.type_accuracy, r.step_sr)


def score_suites(configs: dict[str, EvalConfig], side_by_side: bool) -> dict[str, SuiteScore]:
    """Run (or resume) each suite's evaluation: with `side_by_side` and two cores or more, one spawned process per
    suite with its share of the cores; otherwise in turn in this process."""
    cores = os.cpu_count() or 1
    if not side_by_side or len(configs) < 2 or cores < 2:
        return {suite: score_suite(c) for suite, c in configs.items()}
    threads = max(1, cores // len(configs))
    with ProcessPoolExecutor(min(len(configs), cores), mp_context=multiprocessing.get_context("spawn"),
                             initializer=_set_threads, initargs=(threads,)) as pool:
        futures = {suite: pool.submit(score_suite, c) for suite, c in configs.items()}
        return {suite: future.result() for suite, future in futures.items()}


def score_suite(eval_config: EvalConfig) -> SuiteScore:
    """Run (or resume) one suite's evaluation and read its overall metrics."""
    from mobile_r1.eval.runner import run_eval

    result = run_eval(eval_config, progress=eval_progress(eval_config))
    o = result.report.overall
    needs = result.needs_inquiry
    return SuiteScore(
        episodes=o.n, sr=o.sr.value, isr=o.isr.value, over_inquiry=o.over_inquiry.value,
        safety_violation=o.safety_violation.value, asked_when_needed=needs.isr.value if needs else None,
        mean_steps=o.mean_steps.value, mean_score=o.mean_score.value,
        self_correction=o.self_correction.value if o.self_correction.n else None,
    )


def eval_progress(eval_config: EvalConfig, every: float = 30.0) -> Callable[[int, int, dict[str, Any] | None], None]:
    """Prints `eval <model>/<set>: done/total episodes` to standard error every `every` seconds and when it is done
    (the evaluations run in processes of their own, so they report for themselves)."""
    import sys

    name = "/".join(Path(eval_config.out).parts[-2:]) if eval_config.out is not None else eval_config.suite
    start = last = time.perf_counter()

    def report(done: int, total: int, record: dict[str, Any] | None) -> None:
        nonlocal last
        now = time.perf_counter()
        if record is not None and (now - last >= every or done == total):
            last = now
            print(f"eval {name}: {done}/{total} episodes ({(now - start) / 60:.1f} min)", file=sys.stderr, flush=True)

    return report


def _set_threads(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)


# ----- the comparison ----------------------------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def comparison_markdown(rows: list[ModelRow], suites: list[str], episodes: int, split: str,
                        keys: list[str] | None = None, intro: str | None = None) -> str:
    """The comparison as a markdown table: a row per model, SR / ISR / over-inquiry / safety / score per evaluation
    set (`keys`, default the suites)."""
    keys = keys or suites
    head = ["model"]
    for key in keys:
        head += [f"{key} SR", f"{key} ISR", f"{key} over-inq.", f"{key} safety viol.", f"{key} score"]
    lines = [intro or (f"Held-out `{split}` episodes: {episodes} per suite, the same for every model. "
                       "ISR: asked when the task needed it, stayed silent when not. Score: the judge's 0-4 grade, mean."),
             "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [STAGE_TITLES.get(row.label, row.label)]
        for key in keys:
            s = row.scores.get(key)
            cells += ([_pct(s.sr), _pct(s.isr), _pct(s.over_inquiry), _pct(s.safety_violation),
                       "-" if s.mean_score is None else f"{s.mean_score:.2f}"] if s else ["-"] * 5)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


Tests = dict[str, dict[str, dict[str, Any]]]  # model label -> set (suite) -> {gained, lost, p}
PAIRED = {  # what the tables under the comparison test, and how they are introduced
    "sr": "Task success against the {base} model on the same episodes (exact McNemar: + episodes only the "
          "later model completed, - only the {base} one):",
    "asked": "A question at the right step against the {base} model, on the episodes whose task needs one (exact "
             "McNemar: + episodes only the later model asked in, - only the {base} one):",
}


def paired_tests(run_dir: Path, rows: list[ModelRow], keys: list[str], base: str = UNTRAINED) -> dict[str, Tests]:
    """Each later model against the `base` one on the same episodes (exact McNemar): task success ("sr") on every
    evaluation set, and asking at the right step ("asked") on the sets with tasks that need a question. `keys` are
    the sets' folders under eval/<model>/ (and the keys of the result)."""
    from mobile_r1.eval.compare import compare_runs

    out: dict[str, Tests] = {metric: {} for metric in PAIRED}
    labels = [row.label for row in rows]
    if base not in labels:
        return out
    later = labels[labels.index(base) + 1 :]
    for key in keys:
        folders = {label: run_dir / "eval" / label / key for label in [base, *later]}
        scored = [label for label, folder in folders.items() if (folder / "episodes.jsonl").is_file()]
        if base not in scored or len(scored) < 2:
            continue
        for label, compared in zip(scored[1:], compare_runs([folders[label] for label in scored])[1:]):
            for metric, test in (("sr", compared.sr_test), ("asked", compared.asked_test)):
                if test is not None:
                    out[metric].setdefault(label, {})[key] = {"gained": test.other_only, "lost": test.base_only,
                                                              "p": test.p}
    return {metric: {label: tests[label] for label in later if label in tests} for metric, tests in out.items()}


def ablation_tables(run_dir: Path, rows: list[ModelRow], suites: list[str], split: str) -> tuple[str, dict[str, Any]]:
    """The papers' ablation columns (SR, ISR, asked where needed, over-inquiry where no question is needed,
    self-corrections, each with its 95% Wilson interval) of every model scored on a suite's held-out episodes: the
    markdown tables and, for comparison.json, `{suite: {model: {column: {k, n, value, low, high}}}}`."""
    from dataclasses import asdict

    from mobile_r1.eval.compare import ablation_columns, ablation_markdown, compare_runs

    md: list[str] = []
    data: dict[str, Any] = {}
    for suite in suites:
        scored = [row.label for row in rows if (run_dir / "eval" / row.label / suite / "episodes.jsonl").is_file()]
        if len(scored) < 2:
            continue
        compared = compare_runs([run_dir / "eval" / label / suite for label in scored],
                                [STAGE_TITLES.get(label, label) for label in scored])
        data[suite] = {label: {name: asdict(rate) for name, rate in ablation_columns(c).items()}
                       for label, c in zip(scored, compared)}
        md += ["", f"The papers' ablation columns on the `{split}` episodes of {suite}:", "",
               ablation_markdown(compared, first="model")]
    return ("\n".join(md) + "\n" if md else ""), data


def step_tests(run_dir: Path, rows: list[ModelRow], base: str = "sft") -> dict[str, dict[str, Any]]:
    """Each later model's exact steps on the held-out labelled steps against the `base` model's (exact McNemar over
    the same steps, read from eval/<model>/steps.jsonl)."""
    from mobile_r1.eval.compare import PairedTest, read_step_results

    def exact(label: str) -> dict[tuple[str, int], bool] | None:
        path = run_dir / "eval" / label / "steps.jsonl"
        if not path.is_file():
            return None
        return {key: right for key, (_, right) in read_step_results(path).items()}

    labels = [row.label for row in rows]
    reference = exact(base) if base in labels else None
    if reference is None:
        return {}
    out = {}
    for label in labels[labels.index(base) + 1 :]:
        other = exact(label)
        if other is None or set(other) != set(reference):
            continue
        keys = sorted(reference)
        test = PairedTest.of([reference[k] for k in keys], [other[k] for k in keys])
        out[label] = {"gained": test.other_only, "lost": test.base_only, "p": test.p, "steps": len(keys)}
    return out


def paired_markdown(tests: dict[str, Tests], suites: list[str], base: str = UNTRAINED) -> str:
    """The paired tests as tables under the comparison: a row per later model, a cell per evaluation set."""
    from mobile_r1.eval.compare import format_p

    lines: list[str] = []
    for metric, by_label in tests.items():
        if not by_label:
            continue
        keys = suites
        intro = PAIRED[metric].format(base="untrained" if base == UNTRAINED else STAGE_TITLES.get(base, base))
        lines += ["", intro, "", "| model | " + " | ".join(keys) + " |", "|" + "---|" * (len(keys) + 1)]
        for label, by_key in by_label.items():
            cells = [STAGE_TITLES.get(label, label)]
            for key in keys:
                t = by_key.get(key)
                cells.append("-" if t is None else f"+{t['gained']} / -{t['lost']}, {format_p(t['p'])}")
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n" if lines else ""


def steps_markdown(rows: list[ModelRow], tests: dict[str, dict[str, Any]]) -> str:
    """The held-out labelled steps: each model's type accuracy and exact-step rate, and the paired tests vs SFT."""
    from mobile_r1.eval.compare import format_p

    scored = [row for row in rows if row.steps is not None]
    if not scored:
        return ""
    lines = ["", f"Held-out labelled steps ({scored[0].steps.steps}, predicted greedily from the labelled history; "  # type: ignore[union-attr]
             "matcher qwen-ac); exact steps against the SFT model (exact McNemar):", "",
             "| model | action type | exact step | vs SFT |", "|---|---|---|---|"]
    for row in scored:
        assert row.steps is not None
        t = tests.get(row.label)
        vs = "-" if t is None else f"+{t['gained']} / -{t['lost']}, {format_p(t['p'])}"
        lines.append(f"| {STAGE_TITLES.get(row.label, row.label)} | {_pct(row.steps.type_accuracy)} | "
                     f"{_pct(row.steps.step_sr)} | {vs} |")
    return "\n".join(lines) + "\n"


def write_comparison(config: TrainConfig, run_dir: Path, rows: list[ModelRow], timings: dict[str, float]) -> tuple[Path, Path, Path | None]:
    """comparison.json, comparison.md and report.html (eval/report.py over every model's runs)."""
    from dataclasses import asdict

    from mobile_r1.eval.report import read_run, render_report

    cur = config.curriculum
    suites = list(cur.eval_suites)
    sets = eval_sets(config, run_dir)
    indist = [s.key for s in sets if s.in_distribution]
    vs_untrained = paired_tests(run_dir, rows, suites)
    vs_sft = paired_tests(run_dir, rows, suites, base="sft")
    data: dict[str, Any] = {
        "split": cur.eval_split, "episodes_per_suite": cur.eval_episodes, "suites": cur.eval_suites,
        "rows": [asdict(r) for r in rows], "sr_vs_untrained": vs_untrained["sr"],
        "asked_vs_untrained": vs_untrained["asked"], "sr_vs_sft": vs_sft["sr"], "asked_vs_sft": vs_sft["asked"],
        "timings_s": timings,
    }
    ablation_md, data["ablation"] = ablation_tables(run_dir, rows, suites, cur.eval_split)
    md = (comparison_markdown(rows, suites, cur.eval_episodes, cur.eval_split) + paired_markdown(vs_untrained, suites)
          + paired_markdown(vs_sft, suites, base="sft") + ablation_md)
    if indist:
        in_untrained = paired_tests(run_dir, rows, indist)
        in_sft = paired_tests(run_dir, rows, indist, base="sft")

        def by_suite(tests: Tests) -> Tests:
            return {label: {key.removesuffix("-indist"): t for key, t in by_key.items()} for label, by_key in tests.items()}

        data["in_distribution"] = {
            "split": "train", "seed": cur.eval_in_distribution_seed, "episodes_per_suite": cur.eval_in_distribution,
            "sr_vs_untrained": by_suite(in_untrained["sr"]), "asked_vs_untrained": by_suite(in_untrained["asked"]),
            "sr_vs_sft": by_suite(in_sft["sr"]), "asked_vs_sft": by_suite(in_sft["asked"]),
        }
        intro = (f"In-distribution episodes: {cur.eval_in_distribution} per suite of the train phrasings, with seeds and "
                 "instructions no training episode used (seed "
                 f"{cur.eval_in_distribution_seed}), the same for every model.")
        md += ("\n" + comparison_markdown(rows, suites, cur.eval_in_distribution, "train", indist, intro)
               + paired_markdown(in_untrained, indist) + paired_markdown(in_sft, indist, base="sft"))
    if any(row.steps is not None for row in rows):
        steps = step_tests(run_dir, rows)
        data["steps"] = {row.label: asdict(row.steps) for row in rows if row.steps is not None}
        data["steps_vs_sft"] = steps
        md += steps_markdown(rows, steps)
    json_path = run_dir / "comparison.json"
    json_path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    md_path = run_dir / "comparison.md"
    md_path.write_text(md, encoding="utf-8")
    runs = []
    for s in sets:
        for row in rows:
            folder = run_dir / "eval" / row.label / s.key
            if (folder / "episodes.jsonl").is_file():
                run_data = read_run(folder)
                run_data.name = f"{row.label} · {s.key}"
                runs.append(run_data)
    report = None
    if runs:
        report = run_dir / "report.html"
        curves = [(STAGE_TITLES.get(stage, stage), run_dir / stage / "curves.png") for stage in STAGE_ORDER]
        report.write_text(render_report(runs, title="mobile-r1 curriculum: untrained vs each stage",
                                        max_episodes=4 * len(runs), curves=curves), encoding="utf-8")
    return json_path, md_path, report


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
    from mobile_r1.models.policy import check_model_spec

    check_model_spec(config.model.name)
    if config.curriculum.sft_model:
        check_model_spec(config.curriculum.sft_model, "curriculum.sft_model")
    make_dir(run_dir)
    state = State(state_path)
    (run_dir / "config.yaml").write_text(config.to_yaml(), encoding="utf-8")

    if config.curriculum.generate is not None:
        config.data.train, held = generate_data(config, run_dir, state, log)
        if held:
            config.data.eval = held
    trains_sft = "sft" in stages and not config.curriculum.sft_model
    if (trains_sft or "action-grpo" in stages) and not config.data.train:
        raise ConfigError("stages sft and action-grpo need episodes: list data.train or set curriculum.generate")

    rows: list[ModelRow] = []

    cur = config.curriculum
    if cur.eval_in_distribution:
        write_training_instructions(config, run_dir)
    wanted = eval_settings(config, run_dir)

    def score(label: str, model: str) -> None:
        from dataclasses import asdict

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
        steps = score_steps(config, label, model, run_dir) if with_steps else None
        state.data["evals"][label] = {"model": model, "settings": wanted,
                                      "scores": {k: asdict(v) for k, v in scores.items()},
                                      "steps": asdict(steps) if steps else None}
        state.time(f"eval {label}", time.perf_counter() - started)
        rows.append(ModelRow(label, model, scores, steps))
        log(f"eval {label}: " + "; ".join(f"{s} SR {_pct(v.sr)} ISR {_pct(v.isr)}" for s, v in scores.items())
            + (f"; held-out steps: exact {_pct(steps.step_sr)} of {steps.steps}" if steps else ""))

    model = config.model.name
    if config.curriculum.eval_untrained:
        score(UNTRAINED, model)
    ran: list[str] = []
    skipped: list[str] = [s for s in STAGE_ORDER if s not in stages]
    for stage in stages:
        done = state.data["stages"].get(stage)
        if stage == "sft" and cur.sft_model:
            if not (Path(cur.sft_model) / "config.json").is_file():
                raise ConfigError(f"curriculum.sft_model: {cur.sft_model} is not a model folder (no config.json); "
                                  "train stage 1 first (the demo's is runs/demo/sft/final after `make demo`)")
            model = cur.sft_model
            log(f"sft: not trained, starting from {model}")
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


__all__ = ["run_curriculum", "eval_agent_options", "eval_sets", "CurriculumResult", "EvalSet", "ModelRow", "StepScore",
           "SuiteScore", "comparison_markdown", "ablation_tables", "stage_config", "stage_list", "STAGE_ORDER", "UNTRAINED"]
