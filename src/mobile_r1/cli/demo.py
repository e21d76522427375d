"""`mobile-r1 demo`: the CPU curriculum on the simulated phone end to end, then where its comparison and report are."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Optional

import typer

from mobile_r1.cli.app import app, console, output

DEFAULT_CONFIG = Path("configs") / "demo.yaml"


def default_config() -> Path:
    """configs/demo.yaml of the working directory, else the one beside the package's source tree."""
    if DEFAULT_CONFIG.is_file():
        return DEFAULT_CONFIG
    return Path(__file__).resolve().parents[3] / DEFAULT_CONFIG


@app.command()
def demo(
    config: Optional[Path] = typer.Option(None, "--config", "-c", help="Curriculum config (default: configs/demo.yaml)."),
    output_dir: Optional[str] = typer.Option(None, "--output-dir", "-o", help="Override run.output_dir (default runs/demo)."),
    fresh: bool = typer.Option(False, "--fresh", help="Delete the run directory first instead of continuing it."),
) -> None:
    """Expert data, SFT -> action GRPO -> task GRPO, and every model scored on the same held-out episodes.

    A second call continues (or just re-prints) the run in the run directory; --fresh starts it over.
    """
    from mobile_r1.core.errors import ConfigError
    from mobile_r1.train.config import load_config
    from mobile_r1.train.curriculum import STATE_FILE, run_curriculum

    path = config or default_config()
    if not path.is_file():
        raise ConfigError(f"demo config {path} not found; pass --config configs/demo.yaml from the repository root")
    cfg = load_config(path)
    run_dir = Path(output_dir or cfg.run.output_dir)
    if fresh and run_dir.exists():
        shutil.rmtree(run_dir)
    resume = (run_dir / STATE_FILE).is_file()
    if resume:
        console.print(f"continuing the demo run in {run_dir} (--fresh starts over)")
    result = run_curriculum(cfg, resume=resume, output_dir=str(run_dir), log=console.print)
    output.print(result.comparison_md.read_text(encoding="utf-8"), markup=False)
    timings = ", ".join(f"{k} {v:.0f}s" for k, v in result.timings.items())
    console.print(f"wall time: {timings}", markup=False)
    console.print(f"comparison: {result.comparison_md} and {result.comparison_json}", markup=False)
    console.print(f"report: {result.report}", markup=False)
