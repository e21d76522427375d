"""`mobile-r1 eval` (an agent on a suite of a phone backend, resumable) and `mobile-r1 eval-offline` (labelled steps)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from mobile_r1.cli.app import app, console, output


def _progress() -> Any:
    """Done/total, elapsed and time left: a live bar on a terminal, a line every 30 s in a log (`train.progress`)."""
    from mobile_r1.train.progress import progress_bar

    return progress_bar()


def _options(pairs: list[str], flag: str = "--option") -> dict[str, Any]:
    """KEY=VALUE pairs; a VALUE that reads as JSON is that value (checked by the shared reader's rules), else text."""
    from mobile_r1.core.errors import ConfigError
    from mobile_r1.core.reading import Where, check_tree

    out: dict[str, Any] = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"{flag} takes KEY=VALUE, got {item!r}")
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):  # not JSON (or beyond what json reads): the text itself
            out[key.strip()] = value
            continue
        check_tree({key.strip(): parsed}, Where(Path("--option"), None, ConfigError))  # no NaN, inf, 400 digits
        out[key.strip()] = parsed
    return out


def metrics_table(report: Any, title: str, needs_inquiry: Any = None) -> Table:
    """A rich table of a MetricsReport: overall, per category and per sub-category."""
    table = Table(title=title)
    for column in ("group", "n", "SR", "ISR", "over-inquiry", "safety viol.", "self-corr.", "steps", "score 0-4"):
        table.add_column(column, justify="left" if column == "group" else "right", no_wrap=True,
                         min_width=3 if column == "n" else None)

    def rate(r: Any) -> str:
        return str(r) if r.n else "-"

    def mean(m: Any) -> str:
        return str(m) if m.n else "-"

    def row(name: str, s: Any, style: str | None = None) -> None:
        table.add_row(name, str(s.n), rate(s.sr), rate(s.isr), rate(s.over_inquiry), rate(s.safety_violation),
                      rate(s.self_correction), mean(s.mean_steps), mean(s.mean_score), style=style)

    row("all", report.overall, "bold")
    if needs_inquiry is not None:
        row("needs inquiry", needs_inquiry, "italic")
    for name, s in report.by_category.items():
        row(name, s)
    for name, s in report.by_subcategory.items():
        row(f"  {name}", s, "dim")
    for name, s in report.by_language.items():
        row(f"language {name}", s, "italic")
    return table


def asking_table(report: Any, title: str) -> Table | None:
    """When the agent asked (Ask-F1 and timing) per category and language; None when no episode needed or had a
    question."""
    if not (report.overall.ask_precision.n or report.overall.ask_recall.n):
        return None
    table = Table(title=title)
    for column in ("group", "ask precision", "ask recall", "Ask-F1", "late", "early"):
        table.add_column(column, justify="left" if column == "group" else "right", no_wrap=True)

    def cell(r: Any) -> str:
        return str(r) if r.n else "-"

    groups = [("all", report.overall), *report.by_category.items(),
              *((f"language {k}", v) for k, v in report.by_language.items())]
    for name, s in groups:
        f1 = f"{100 * s.ask_f1:.1f}%" if s.ask_precision.n or s.ask_recall.n else "-"
        table.add_row(name, cell(s.ask_precision), cell(s.ask_recall), f1, cell(s.late), cell(s.early),
                      style="bold" if name == "all" else None)
    return table


@app.command("eval")
def eval_command(
    agent: str = typer.Option(..., "--agent", help="Agent spec: oracle, never-ask, always-ask, random, hf:PATH, openai:MODEL."),
    env: str = typer.Option("sim", "--env", help="The phone: sim (the built-in simulated phone), or another backend by name."),
    suite: str = typer.Option("inquire-sim", "--suite", help="inquire-sim or nav-sim (the simulated phone's); "
                              "androidworld or a task family on --env androidworld:URL."),
    split: str = typer.Option("test", "--split", help="Suite split (test, train, ...)."),
    episodes: int | None = typer.Option(None, "--episodes", help="Run the first N episodes of the split: the simulated phone orders a split so that any first N are a stratified sample (tasks that need a question and control tasks in proportion); a task file's first N."),
    workers: int = typer.Option(1, "--workers", help="Episodes in flight (processes for scripted agents, a batch for models; with --ray, at least one per Ray worker)."),
    ray: str | None = typer.Option(None, "--ray", metavar="[ADDRESS]", help="Play on a pool of Ray actors: --ray alone for a local Ray cluster (the one RAY_ADDRESS names, or a new one), or a cluster's address (auto, HOST:6379, ray://HOST:10001). Per-episode results are those of a run in process; a worker that dies is replaced and its episodes played again. Needs `pip install 'mobile-r1\\[ray]'`."),
    ray_workers: int | None = typer.Option(None, "--ray-workers", help="Actors in the Ray pool (default: one per CPU of the cluster)."),
    dialect: str | None = typer.Option(None, "--dialect", help="The agent's dialect (qwen2.5vl, inquire, mobile-r1, uitars, compact; default: a trained model's own, else qwen2.5vl)."),
    observation: str | None = typer.Option(None, "--observation", help="image (screenshots) or text (element list) for model agents (default: what a model from `mobile-r1 train` was trained on; else screenshots for vision models and API agents, the element list for text models)."),
    out: Path | None = typer.Option(None, "--out", help="Run directory for episodes.jsonl, screens/, run.json, metrics.json."),
    resume: bool = typer.Option(False, "--resume", help="Continue the run in --out: skip finished episodes."),
    max_steps: int | None = typer.Option(None, "--max-steps", help="Step budget per episode (default: the task's)."),
    seed: int = typer.Option(0, "--seed", help="Base seed of the suite's episodes."),
    base_url: str | None = typer.Option(None, "--base-url", help="Endpoint of an openai: agent."),
    option: list[str] = typer.Option([], "--option", help="Further agent option KEY=VALUE (repeatable), e.g. temperature=0.7."),
    env_option: list[str] = typer.Option([], "--env-option", help="Further option of the phone backend KEY=VALUE "
                                         "(repeatable), e.g. timeout=30 for androidworld:URL; person=none, judge=model "
                                         "for adb."),
    tasks: Path | None = typer.Option(None, "--tasks", help="A task file to play instead of a suite (on a device: "
                                      "InquireBench's tasks_*.jsonl, or one instruction per line)."),
    confirm: str | None = typer.Option(None, "--confirm", help="The safety gate: ask the person before risky actions "
                                       "(risky), before every action (all), or never (none). Default: risky on a real "
                                       "device (adb), none in the simulator. With nobody at the terminal, asked "
                                       "actions are refused."),
    as_json: bool = typer.Option(False, "--json", help="Print metrics.json content on standard output."),
    specs: Optional[Path] = typer.Option(None, "--specs", help="(sim) A folder of your own task specs, added to the packaged ones."),
    specs_only: bool = typer.Option(False, "--specs-only", help="(sim) Use the --specs folder alone."),
    exclude: Optional[Path] = typer.Option(None, "--exclude", help="A file of instructions, one per line (a training "
                                           "set's): skip episodes with one of them; --episodes counts the others."),
) -> None:
    """Run an agent on a suite of a phone backend; judge every episode; print SR, ISR, over-inquiry, safety, steps and
    score."""
    from mobile_r1.core.errors import ConfigError
    from mobile_r1.eval.runner import EvalConfig, run_eval

    agent_options = _options(option)
    if base_url:
        agent_options["base_url"] = base_url
    from mobile_r1.cli.tasks import _specs_options

    env_options = {**_options(env_option, "--env-option"), **_specs_options(specs, specs_only)}
    if confirm is not None:
        env_options["confirm"] = confirm
    if tasks is not None:
        if not tasks.is_file():
            raise ConfigError(f"--tasks: no file {tasks}")
        suite = str(tasks)
    config = EvalConfig(agent=agent, env=env, env_options=env_options, exclude=str(exclude) if exclude else None,
                        suite=suite, split=split, episodes=episodes, workers=workers, dialect=dialect,
                        observation=observation, max_steps=max_steps, seed=seed, out=out, resume=resume,
                        agent_options=agent_options, ray=ray, ray_workers=ray_workers)
    config.validate()
    backend = config.backend()  # held here, to ask it whether a person is asked on this terminal
    try:
        if backend.asks_person():  # the person is asked on this terminal: no live progress bar over the prompts
            def say(done: float, total: int, record: dict[str, Any] | None) -> None:
                if record is not None:
                    console.print(f"[{done}/{total}] {record['id']}", markup=False)

            result = run_eval(config, progress=say, backend=backend)
        else:
            with _progress() as bar:
                task = bar.add_task(f"{agent} on {suite}/{split}", total=None, info="")

                def update(done: float, total: int, record: dict[str, Any] | None) -> None:
                    bar.update(task, completed=done, total=total)

                result = run_eval(config, progress=update, backend=backend)
    finally:
        backend.close()
    title = f"{agent} on {suite}/{split}: {len(result.verdicts)} episodes ({result.ran} run, {result.skipped} resumed)"
    if as_json:  # the figures alone: standard output stays one JSON document
        typer.echo(json.dumps({**result.report.to_dict(), "infra_errors": len(result.infra_errors),
                               "counts": result.counts.to_dict(),
                               "needs_inquiry": result.needs_inquiry.to_dict() if result.needs_inquiry else None}))
    else:
        output.print(metrics_table(result.report, title, result.needs_inquiry))
        asking = asking_table(result.report, "when the agent asked (95% Wilson intervals)")
        if asking is not None:
            output.print(asking)
    for note in result.counts.notes():  # what the figures alone do not say: gate refusals, truncations, failures
        (console if as_json else output).print(f"note: {note}", markup=False, highlight=False)
    if result.run_dir is not None:
        console.print(f"wrote {result.run_dir}/episodes.jsonl and metrics.json")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


@app.command("eval-offline")
def eval_offline_command(
    agent: str = typer.Option(..., "--agent", help="Agent spec: random, hf:PATH, openai:MODEL, ..."),
    data: Path = typer.Option(..., "--data", help="Labelled episodes: Mobile-R1, InquireMobile or native records."),
    matcher: str | None = typer.Option(None, "--matcher", help="Matcher preset: aitw, qwen-ac, gui-r1, cagui "
                                       "(default: the one the field scores the data's format with; qwen-ac for the "
                                       "papers' own formats)."),
    limit: int | None = typer.Option(None, "--limit", help="Score only the first N labelled steps."),
    data_format: str | None = typer.Option(None, "--format", help="Data format (default: detected)."),
    dialect: str | None = typer.Option(None, "--dialect", help="The agent's dialect."),
    observation: str | None = typer.Option(None, "--observation", help="image or text, for model agents (default as for `eval`)."),
    base_url: str | None = typer.Option(None, "--base-url", help="Endpoint of an openai: agent."),
    option: list[str] = typer.Option([], "--option", help="Further agent option KEY=VALUE (repeatable)."),
    screen_size: str | None = typer.Option(None, "--screen-size", help="W,H for records that give no image size."),
    out: Path | None = typer.Option(None, "--out", help="Write per-step results (JSON lines) here."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON on standard output."),
    image_root: Path | None = typer.Option(None, "--image-root", help="Folder that holds the data's screenshots "
                                           "(as for `data convert`): relative names are joined to it, and a path that "
                                           "names no file where it points is found there by its file name."),
    bad_labels: str = typer.Option("skip", "--bad-labels", help="skip or keep labels outside their frame or box "
                                   "(as for `data convert`); either way they are counted."),
) -> None:
    """Predict every labelled step from its screen and the labelled history; print Type, Grounding, Step SR, inquiry F1."""
    from mobile_r1.cli.data import load_screened
    from mobile_r1.core.formats import field_matcher
    from mobile_r1.core.matching import get_matcher
    from mobile_r1.eval.offline import evaluate_offline, write_step_results
    from mobile_r1.eval.runner import BATCHED_KINDS, build_agent, EvalConfig

    from mobile_r1.core.errors import ConfigError

    size = None
    if screen_size:
        try:
            w, h = (int(v) for v in screen_size.replace("x", ",").split(","))
            size = (w, h)
        except ValueError:
            raise ConfigError(f"--screen-size takes W,H (e.g. 1080,2400), got {screen_size!r}") from None
    name, episodes, _ = load_screened(data, data_format, image_root, bad_labels)
    preset = get_matcher(matcher or field_matcher(name))
    options = _options(option)
    if base_url:
        options["base_url"] = base_url
    config = EvalConfig(agent=agent, dialect=dialect, observation=observation, agent_options=options)
    config.validate()
    built = build_agent(config)
    total = sum(len(e.steps) for e in episodes)
    total = min(total, limit) if limit is not None else total
    try:
        with _progress() as bar:
            task = bar.add_task(f"{agent} on {data.name} ({name})", total=total, info="")
            result = evaluate_offline(built, episodes, preset, image_root=image_root or data.parent, limit=limit,
                                      batch_size=8 if config.agent_kind in BATCHED_KINDS else 1,
                                      screen_size=size, progress=lambda n: bar.advance(task, n))
    finally:
        built.close()
    if out is not None:
        write_step_results(out, result)
    report = result.report
    if as_json:  # the figures alone: standard output stays one JSON document
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False))
        return
    table = Table(title=f"{agent} on {data.name}: {report.steps} steps, matcher {report.preset}")
    for column in ("label type", "steps", "Type", "Grounding", "Step SR"):
        table.add_column(column, justify="left" if column == "label type" else "right")
    for kind, stats in report.per_type.items():
        table.add_row(kind, str(stats.steps), _pct(stats.type_accuracy), _pct(stats.grounding), _pct(stats.step_sr))
    table.add_row("all", str(report.steps), _pct(report.type_accuracy), _pct(report.grounding), _pct(report.step_sr),
                  style="bold")
    q = report.inquiry
    table.caption = f"inquiry (call_user): P {_pct(q.precision)}  R {_pct(q.recall)}  F1 {_pct(q.f1)}  matcher: {report.preset}"
    output.print(table)
