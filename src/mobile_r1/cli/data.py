"""`mobile-r1 data ...`: inspect, convert and export datasets (the `data` sub-command group; more commands join it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from mobile_r1.cli.app import app, console


def _require_episodes(path: Path, episodes: list[object]) -> None:
    """An input without a single record is an error (a mistyped or truncated file), not an empty result."""
    from mobile_r1.core.errors import DataError

    if not episodes:
        raise DataError(f"{path}: holds no records; nothing to read")


data_app = typer.Typer(
    help="Inspect, convert and export datasets: native episodes, Mobile-R1, InquireMobile, AndroidControl, AITW, "
    "GUI-Odyssey, AMEX, CAGUI, and our own ShareGPT and TRL exports.",
    no_args_is_help=True,
)
app.add_typer(data_app, name="data")

FORMAT_HELP = (
    "native, mobile-r1, inquire-tasks, inquire-sft, inquire-grpo, android-control, android-control-parquet, aitw, "
    "gui-odyssey, amex, cagui, sharegpt or trl (default: detect)."
)
IMAGE_ROOT_HELP = (
    "Folder that relative screenshot names in the data are joined to; paths may then lead there as well as inside "
    "the dataset's own folder (anything else is refused). A path that names no file where it points (an absolute "
    "path of the machine the data was made on) is found here by its file name."
)
BAD_LABELS_HELP = (
    "What to do with a label outside its frame (a tap off the screen or off the declared model image) or a tap "
    "outside its own box: skip (drop the step) or keep (as recorded). Either way they are counted."
)


def load_screened(path: Path, format: Optional[str], image_root: Optional[Path], bad_labels: str,
                  images: bool = True) -> tuple[str, list[Any], Any]:
    """`load_any`, then bad labels skipped or kept (`core.formats.labels`), the counts printed on standard error."""
    from mobile_r1.core.formats import load_any, screen_labels

    name, episodes = load_any(path, format, image_root=image_root, images=images)
    _require_episodes(path, episodes)
    episodes, report = screen_labels(episodes, bad_labels)
    if report.bad:
        console.print(f"{path}: {report.summary()}", markup=False, highlight=False)
    if not episodes:
        from mobile_r1.core.errors import DataError

        raise DataError(f"{path}: every labelled step was skipped as a bad label; look at the data, or pass "
                        "--bad-labels keep")
    return name, episodes, report


@data_app.command("stats")
def stats(
    path: Path = typer.Argument(..., help="A data file or folder in any supported format."),
    format: Optional[str] = typer.Option(None, "--format", "-f", help=FORMAT_HELP),
    image_root: Optional[Path] = typer.Option(None, "--image-root", help=IMAGE_ROOT_HELP),
    bad_labels: str = typer.Option("skip", "--bad-labels", help=BAD_LABELS_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON on standard output."),
) -> None:
    """Episodes, steps, steps per episode, action types, share of call_user, apps and categories (after --bad-labels),
    and the labels outside their frame or box."""
    from mobile_r1.core.formats import compute_stats

    name, episodes, labels = load_screened(path, format, image_root, bad_labels, images=False)
    figures = compute_stats(episodes, name)
    if as_json:
        typer.echo(json.dumps({**figures.to_dict(), "bad_labels": labels.to_dict()}, ensure_ascii=False, indent=2))
        return
    out = Console(width=120)
    table = Table(title=f"{path} ({name})")
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_row("episodes", str(figures.episodes))
    table.add_row("steps", str(figures.steps))
    table.add_row("steps per episode", f"mean {figures.steps_mean:.2f}, min {figures.steps_min}, max {figures.steps_max}")
    table.add_row("call_user share", f"{100 * figures.call_user_share:.1f}%")
    table.add_row("labels outside their frame", str(labels.outside_frame))
    table.add_row("tap labels outside their box", str(labels.outside_box))
    for title, counts in (
        ("action", figures.action_types),
        ("category", figures.categories),
        ("language", figures.languages),
        ("app", figures.apps),
    ):
        for key, count in counts.items():
            table.add_row(f"{title}: {key}", str(count))
    out.print(table)


@data_app.command("convert")
def convert(
    path: Path = typer.Argument(..., help="A data file or folder in any supported format."),
    out: Path = typer.Argument(..., help="Native store to write: a folder, or a .jsonl file (images/ goes beside it)."),
    format: Optional[str] = typer.Option(None, "--format", "-f", help=FORMAT_HELP),
    image_root: Optional[Path] = typer.Option(None, "--image-root", help=IMAGE_ROOT_HELP),
    bad_labels: str = typer.Option("skip", "--bad-labels", help=BAD_LABELS_HELP),
) -> None:
    """Convert a dataset into the native episode store; its screenshots are copied into the store's images/."""
    from mobile_r1.core.formats import images_dir, save_episodes

    name, episodes, _ = load_screened(path, format, image_root, bad_labels)
    written = save_episodes(out, episodes)
    folder = images_dir(written)
    shots = sum(1 for _ in folder.iterdir()) if folder.is_dir() else 0
    typer.echo(f"{len(episodes)} episodes ({name}) -> {written}, {shots} screenshots in {folder}")


@data_app.command("export")
def export(
    path: Path = typer.Argument(..., help="A data file or folder in any supported format."),
    out: Path = typer.Option(..., "--out", "-o", help="The JSONL file to write (screenshots go to <stem>_images/ beside it)."),
    to: str = typer.Option("sharegpt", "--to", help="sharegpt (LLaMA-Factory; dataset_info.json is written beside) or trl."),
    dialect: str = typer.Option("inquire", "--dialect", "-d", help="Prompt/target dialect: qwen2.5vl, inquire, mobile-r1, uitars."),
    format: Optional[str] = typer.Option(None, "--format", "-f", help=FORMAT_HELP),
    observation_mode: str = typer.Option("image", "--observation-mode", help="image (screenshots) or text (accessibility tree)."),
    history_window: Optional[int] = typer.Option(None, "--history-window", help="Keep only the last N steps of history."),
    prescale: float = typer.Option(1.0, "--prescale", help="Scale screenshots by this before smart_resize (InquireMobile: 0.3)."),
    max_pixels: int = typer.Option(1280 * 28 * 28, "--max-pixels", help="Upper pixel bound of Qwen2.5-VL smart_resize."),
    min_pixels: int = typer.Option(4 * 28 * 28, "--min-pixels", help="Lower pixel bound of Qwen2.5-VL smart_resize."),
    image_paths: str = typer.Option("relative", "--image-paths", help="relative (to the output file's folder) or absolute."),
    image_root: Optional[Path] = typer.Option(None, "--image-root", help=IMAGE_ROOT_HELP),
    mask_history: bool = typer.Option(False, "--mask-history", help="Allow prompts with earlier outputs as assistant turns "
                                      "(uitars); train with LLaMA-Factory's mask_history: true."),
    trl_style: str = typer.Option("prompt-completion", "--trl-style", help="prompt-completion or messages."),
    bad_labels: str = typer.Option("skip", "--bad-labels", help=BAD_LABELS_HELP),
) -> None:
    """Write one training sample per step, coordinates in the frame of the image the model sees.

    Screenshots are written resized to Qwen2.5-VL's smart_resize of the screen after --prescale, and labels, history
    and the system prompt's resolution are in that frame. Steps the dialect cannot say (an `open` without its
    launcher icon on screen, `call_user` for qwen2.5vl) are skipped and counted. The file appears only when complete.
    """
    from mobile_r1.core.dialects import get_dialect
    from mobile_r1.core.errors import ConfigError
    from mobile_r1.core.formats import FrameSettings, export_dataset
    from mobile_r1.core.formats.export import LLAMAFACTORY_IMAGE_MAX_PIXELS

    if to not in ("sharegpt", "trl"):
        raise ConfigError(f"--to must be sharegpt or trl, got {to!r}")
    if observation_mode not in ("image", "text"):
        raise ConfigError(f"--observation-mode must be image or text, got {observation_mode!r}")
    if image_paths not in ("relative", "absolute"):
        raise ConfigError(f"--image-paths must be relative or absolute, got {image_paths!r}")
    if trl_style not in ("prompt-completion", "messages"):
        raise ConfigError(f"--trl-style must be prompt-completion or messages, got {trl_style!r}")
    frames = FrameSettings(prescale=prescale, min_pixels=min_pixels, max_pixels=max_pixels)
    chosen = get_dialect(dialect)
    name, episodes, _ = load_screened(path, format, image_root, bad_labels)
    writer = None
    if observation_mode == "image":
        from mobile_r1.train.data import ScreenshotWriter

        writer = ScreenshotWriter
    report = export_dataset(episodes, chosen, out, to=to, trl_style=trl_style,  # type: ignore[arg-type]
                            observation_mode=observation_mode, history_window=history_window,  # type: ignore[arg-type]
                            frames=frames, screenshots=writer, image_paths=image_paths,  # type: ignore[arg-type]
                            mask_history=mask_history)
    sizes = ", ".join(f"{w}x{h}" for w, h in sorted(report.frames))
    typer.echo(f"{report.samples} samples ({name} -> {to}, dialect {dialect}, model frame {sizes}) -> {out}")
    if report.images_dir is not None:
        typer.echo(f"{report.images} screenshots resized to the model frame in {report.images_dir} "
                   f"(paths {image_paths}{' to ' + str(out.parent) if image_paths == 'relative' else ''})")
    if report.skipped:
        total = sum(report.skipped.values())
        typer.echo(f"skipped {total} steps the {dialect} dialect cannot say: "
                   + "; ".join(f"{n} x {why}" for why, n in report.skipped.most_common()))
    if report.dataset_info is not None:
        typer.echo(f"LLaMA-Factory: entry '{out.stem}' in {report.dataset_info} (dataset_dir: {out.parent})")
        if report.max_frame_pixels > LLAMAFACTORY_IMAGE_MAX_PIXELS:
            typer.echo(f"LLaMA-Factory: set image_max_pixels: {report.max_frame_pixels} or more (its default "
                       f"{LLAMAFACTORY_IMAGE_MAX_PIXELS} would shrink the screenshots out of their frame)")
        if report.mask_history:
            typer.echo("LLaMA-Factory: train with mask_history: true (the prompts hold earlier assistant turns)")
