"""`mobile-r1 sim tasks|check|taxonomy` and `mobile-r1 data generate`: the task suites on the simulated phone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from mobile_r1.cli.app import output
from mobile_r1.cli.data import data_app
from mobile_r1.cli.sim import sim_app


@sim_app.command("tasks")
def tasks(
    suite: Optional[str] = typer.Option(None, "--suite", help="Only the tasks of this suite (inquire-sim, nav-sim)."),
    split: str = typer.Option("test", "--split", help="train, test or unseen-app (with --suite)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    specs: Optional[Path] = typer.Option(None, "--specs", help="A folder of your own task specs (YAML), added to the packaged ones."),
    specs_only: bool = typer.Option(False, "--specs-only", help="Use the --specs folder alone, without the packaged specs."),
) -> None:
    """List the task specs with their apps, category, sub-category and inquiries."""
    from rich.table import Table

    from mobile_r1.tasks.spec import load_task_specs
    from mobile_r1.tasks.suites import suite_specs

    every = load_task_specs(str(specs) if specs else None, specs_only)
    specs_shown = suite_specs(suite, split, every) if suite else every
    rows = [{"id": s.id, "apps": s.apps, "category": s.category, "subcategory": s.subcategory,
             "inquiries": [i.reply for i in s.inquiries], "templates": sum(len(t.train) + len(t.test) for t in (s.templates, s.templates_zh) if t)}
            for s in specs_shown]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(title=f"{len(rows)} tasks" + (f" in {suite} ({split})" if suite else ""))
    for col in ("id", "apps", "category", "sub-category", "inquiries"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(r["id"], ", ".join(r["apps"]), r["category"], r["subcategory"], ", ".join(r["inquiries"]) or "-")
    output.print(table)


@sim_app.command("taxonomy")
def taxonomy(
    markdown: bool = typer.Option(False, "--markdown", help="Print the markdown table used in docs/tasks.md."),
) -> None:
    """The 22 inquiry sub-categories (and the control group) with their inquire-sim episode counts."""
    from mobile_r1.tasks.docs import taxonomy_markdown

    text = taxonomy_markdown()
    typer.echo(text if markdown else text.replace("`", ""))


@sim_app.command("check")
def check(
    suite: str = typer.Option(..., "--suite", help="inquire-sim or nav-sim."),
    split: str = typer.Option("test", "--split", help="train, test or unseen-app."),
    seed: int = typer.Option(0, "--seed", help="Seed of the split."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N episodes (a balanced prefix)."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary and every problem as JSON."),
    specs: Optional[Path] = typer.Option(None, "--specs", help="A folder of your own task specs (YAML), added to the packaged ones."),
    specs_only: bool = typer.Option(False, "--specs-only", help="Use the --specs folder alone, without the packaged specs."),
) -> None:
    """Run the expert on every episode of a split and report success, inquiry outcome and judge disagreements."""
    from mobile_r1.env.sim.check import check_split
    from mobile_r1.train.progress import progress_bar

    with progress_bar() as bar:
        job = bar.add_task(f"check {suite}/{split}", total=None, info="")
        report = check_split(suite, split, seed, limit, progress=lambda _id: bar.advance(job),
                             total=lambda n: bar.update(job, total=n), specs=str(specs) if specs else None,
                             specs_only=specs_only)
    summary = report.summary()
    unplayed: list[str] = []
    if split == "test" and suite == "inquirebench-sim" and not specs:  # the released lines no template plays yet
        from mobile_r1.tasks.released import packaged_files, playable_lines, read_lines
        from mobile_r1.tasks.spec import load_task_specs

        lines = [line for path in packaged_files() for line in read_lines(path)]
        unplayed = [f"{Path(line.path).name}:{line.number}" for line in playable_lines(
            lines, [s for s in load_task_specs() if s.suite == suite])[1]]
        summary["released_lines"] = {"total": len(lines), "played": len(lines) - len(unplayed), "unplayed": unplayed}
    bad = [e for e in report.episodes if e.problems or not e.success
           or (e.needs_inquiry and e.inquiry != "asked") or (not e.needs_inquiry and e.over_asks)]
    if as_json:
        typer.echo(json.dumps({"summary": summary, "problems": [
            {"episode": e.episode_id, "success": e.success, "inquiry": e.inquiry, "problems": e.problems} for e in bad]},
            indent=2))
    else:
        typer.echo(f"{suite} / {split}: {summary['episodes']} episodes, expert success {100 * summary['success']:.1f}%, "
                      f"inquiry success {100 * summary['inquiry_success']:.1f}% of {summary['inquiry_needing']} "
                      f"inquiry-needing, over-asking on {summary['over_asking_controls']} of {summary['controls']} "
                      f"controls, {summary['safety_violations']} safety violations, steps {summary['steps_min']}-"
                      f"{summary['steps_max']} (mean {summary['steps_mean']:.1f}), mean score {summary['mean_score']:.2f}, "
                      f"{summary['problems']} with judge disagreement or task problems")
        for e in bad[:30]:
            typer.echo(f"  {e.episode_id}: success={e.success} inquiry={e.inquiry} {'; '.join(e.problems)}")
        if "released_lines" in summary:
            shown = summary["released_lines"]
            typer.echo(f"released lines: {shown['played']} of {shown['total']} play; not yet: "
                       f"{', '.join(unplayed) if unplayed else 'none'}")
    if not report.ok:
        raise typer.Exit(1)


@data_app.command("generate")
def generate(
    suite: str = typer.Option(..., "--suite", help="inquire-sim or nav-sim."),
    split: str = typer.Option("train", "--split", help="train, test or unseen-app."),
    episodes: int = typer.Option(..., "--episodes", help="How many episodes to write."),
    out: Path = typer.Option(..., "--out", help="Output folder (episodes.jsonl, images/, a11y/)."),
    self_correct: float = typer.Option(0.0, "--self-correct", help="Share of episodes with a wrong step and its recovery."),
    seed: int = typer.Option(0, "--seed", help="Seed of the split and of the injected mistakes."),
    scale: float = typer.Option(0.3, "--scale", help="Screenshot scale of the 1080x2400 screen."),
    screenshots: bool = typer.Option(True, "--screenshots/--no-screenshots",
                                     help="Draw the screens (off: accessibility text only, much faster)."),
    specs: Optional[Path] = typer.Option(None, "--specs", help="A folder of your own task specs (YAML), added to the packaged ones."),
    specs_only: bool = typer.Option(False, "--specs-only", help="Use the --specs folder alone, without the packaged specs."),
    search_first: bool = typer.Option(False, "--search-first", help="Find a list entry the task names through the "
                                      "screen's search field (type it, tap it among the results), not by browsing."),
) -> None:
    """Write expert trajectories as Mobile-R1-style episodes with screenshots and accessibility text."""
    from mobile_r1.core.errors import ConfigError
    from mobile_r1.env.demos import generate as run_generate
    from mobile_r1.train.progress import progress_bar

    if not 0.0 <= self_correct <= 1.0:
        raise ConfigError(f"--self-correct is a share between 0 and 1, got {self_correct}")
    with progress_bar() as bar:
        job = bar.add_task(f"data {suite}/{split}", total=episodes, info="")
        stats = run_generate(suite, split, episodes, out, seed, self_correct, scale,
                             progress=lambda _id: bar.advance(job), screenshots=screenshots,
                             env_options=_specs_options(specs, specs_only), search_first=search_first)
    typer.echo(f"wrote {stats['written']} episodes ({stats['steps']} steps, {stats['self_corrections']} "
                  f"self-corrections, {stats['failed']} unsolved left out) to {stats['file']}")


@data_app.command("swap-names")
def swap_names(
    source: Path = typer.Argument(..., help="An episode store of simulator expert data (data generate --no-screenshots)."),
    out: Path = typer.Option(..., "--out", help="The store to write the swapped copies to."),
    copies: int = typer.Option(2, "--copies", help="Swapped copies of each episode, each with its own made-up names."),
    tasks: Optional[str] = typer.Option(None, "--tasks", help="Comma-separated task id prefixes (shop.,contacts.); "
                                        "default: every episode."),
    seed: int = typer.Option(0, "--seed", help="Seed of the made-up names."),
) -> None:
    """Copies of expert episodes with the simulator's people, contact labels and shop brands replaced by made-up words."""
    from mobile_r1.env.swap import swap_names as run_swap

    prefixes = [t.strip() for t in tasks.split(",") if t.strip()] if tasks else None
    stats = run_swap(source, out, copies=copies, tasks=prefixes, seed=seed)
    typer.echo(f"wrote {stats['written']} swapped copies of {stats['matched']} of the {stats['episodes']} episodes "
               f"to {out}")


def _specs_options(specs: Path | None, specs_only: bool) -> dict[str, object]:
    """The simulator backend's options for `--specs` / `--specs-only`."""
    from mobile_r1.core.errors import ConfigError

    if specs_only and specs is None:
        raise ConfigError("--specs-only needs --specs DIR")
    return {"specs": str(specs), "specs_only": specs_only} if specs is not None else {}
