"""The reproducibility card of an evaluation run: everything that moves a score, recorded and hashed (`card.json`).

Published online scores of phone agents are hard to reproduce, most often because of a setting nobody wrote down:
the prompt, how much history it shows, how the screenshot was resized and the coordinates rounded, the sampling, the
step budget, the judge, the weights, the library versions. Every `mobile-r1 eval --out RUN` writes `RUN/card.json`:

    prompt        the dialect's prompt rendered for a fixed reference step (1080x2400 screen, two elements, one
                  earlier step with a user reply): its system text and the sha256 of the whole rendering (system and
                  user turns, history, image placeholders), so any change of wording or layout shows
    dialect, observation, history   the dialect, image or text observations, how many earlier steps the prompt keeps
    image         the model frame (qwen smart_resize, the 0..999 grid, or the screen), pre-scale, pixel bounds, the
                  28-pixel factor and the resampling filter
    coordinates   the frame the model answers in, and the rounding of model -> screen points
    sampling      temperature, top_p, the token budget, seed, batch size (padding changes logits), workers
    step_budget   --max-steps, or the tasks' own budgets
    judge         the judges that gave the run's verdicts, the backend's judge options, the rule judge's version
    model         the agent's spec; for local models the sha256 of the weights as loaded (adapter merged), dtype
    suite         backend, suite, split, seed and the sha256 of the episode ids
    packages      versions of Python, mobile-r1 and the libraries that generate, parse and judge
    machine       the processor's model, cores, torch threads, the CPU kernels' instruction set, the accelerator

`sha256` hashes all of it (canonical JSON). `card_warnings` names the fields (dotted: `sampling.temperature`) in
which runs differ from the first; `mobile-r1 compare` and `mobile-r1 report` print them as warnings. Runs of different
agents (`model.agent`) differ in their model by design, so only their other fields are named; runs of the same agent
spec are warned about their weights too (a model folder overwritten between runs). A run resumed with other settings
keeps the earlier card's differing fields under `resumed_with_other` (a warning too).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from mobile_r1.core.actions import Action
from mobile_r1.core.files import write_json
from mobile_r1.core.geometry import IMAGE_FACTOR
from mobile_r1.core.reading import read_json
from mobile_r1.core.records import Observation, Step, UIElement

if TYPE_CHECKING:
    from mobile_r1.agents.base import Agent, ModelView
    from mobile_r1.env.protocol import Backend, EpisodeRef

CARD_FILE = "card.json"
CARD_VERSION = 1
PACKAGES = ("mobile-r1", "torch", "transformers", "tokenizers", "peft", "accelerate", "trl", "openai", "pillow",
            "numpy", "sacrebleu", "qwen-vl-utils")
# Fields that are not settings: the card's own bookkeeping, and the system text (its hash is compared).
NOT_COMPARED = ("version", "sha256", "resumed_with_other", "prompt.system")
REFERENCE_SCREEN = (1080, 2400)


class RunSettings(Protocol):
    """What the card reads from a run's options (`eval.runner.EvalConfig`)."""

    agent: str
    env: str
    suite: str
    split: str
    seed: int
    max_steps: int | None
    workers: int
    env_options: dict[str, Any]
    agent_options: dict[str, Any]


# ----- building ---------------------------------------------------------------------------------------------------
def reference_request() -> Any:
    """The fixed step every card renders its prompt for (see the module docstring)."""
    from PIL import Image

    from mobile_r1.agents.base import AgentRequest

    elements = [UIElement(1, "android.widget.TextView", (48, 652, 264, 844), text="Settings", clickable=True),
                UIElement(2, "android.widget.EditText", (40, 200, 1040, 300), text="Search", editable=True)]
    screen = Observation(REFERENCE_SCREEN, elements=elements, screenshot=Image.new("RGB", (324, 720), (200, 200, 200)),
                         app="Launcher")
    earlier = Step(Action.click(156, 748), "Open the settings.", "open Settings", screen)
    asked = Step(Action.call_user("Which network?"), "Ask which one.", "ask", screen, user_reply="The home one.")
    return AgentRequest("Turn on Wi-Fi", screen, [earlier, asked], episode_id="card-reference")


def prompt_fields(view: ModelView) -> dict[str, Any]:
    """The reference step's prompt through `view`: its system text and the sha256 of the whole rendering."""
    messages, images = view.prompt(reference_request())
    rendering = json.dumps({"messages": messages, "images": [list(i.size) for i in images]}, ensure_ascii=False,
                           sort_keys=True, default=str)
    system = next((m["content"] for m in messages if m.get("role") == "system"), None)
    return {"system": system if isinstance(system, str) else json.dumps(system, ensure_ascii=False, default=str),
            "sha256": _sha256(rendering)}


def _view(agent: Agent) -> ModelView | None:
    from mobile_r1.agents.base import ModelView

    view = getattr(agent, "view", None)
    return view if isinstance(view, ModelView) else None


def _weights(agent: Agent) -> dict[str, Any]:
    policy = getattr(agent, "policy", None)
    if policy is None:
        client = getattr(agent, "client", None)
        if client is not None:
            return {"kind": "endpoint", "id": getattr(client, "model", None),
                    "weights": "not visible through the endpoint: pin the served model's revision yourself"}
        return {"kind": "scripted", "id": getattr(agent, "name", type(agent).__name__)}
    import torch

    model = policy.model
    digest = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(name.encode())
        data = tensor.detach().contiguous().cpu()
        digest.update(str(data.dtype).encode() + str(tuple(data.shape)).encode())
        digest.update(data.reshape(-1).view(torch.uint8).numpy().tobytes())
    return {"kind": "local", "id": policy.spec, "weights_sha256": digest.hexdigest(),
            "dtype": str(getattr(model, "dtype", "")).removeprefix("torch."),
            "parameters": sum(int(p.numel()) for p in model.parameters())}


def _packages() -> dict[str, str | None]:
    found: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


def _machine() -> dict[str, Any]:
    out: dict[str, Any] = {"platform": platform.platform(terse=True), "machine": platform.machine(),
                           "processor": processor_model(), "cpus": os.cpu_count(),
                           "affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None}
    torch = sys.modules.get("torch")
    if torch is not None:
        out["torch_threads"] = torch.get_num_threads()
        out["cpu_capability"] = torch.backends.cpu.get_cpu_capability()  # the kernels ATen dispatches to: AVX2, AVX512
        out["accelerator"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
    return out


def processor_model() -> str | None:
    """The processor's model name (`/proc/cpuinfo` on Linux, `sysctl` on macOS, else what Python knows): CPUs of other
    models run other kernels, so a model's scores can differ in the last digits from one to another."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            fields: dict[str, str] = {}
            for line in f:
                if not line.strip():
                    break  # the first processor's block
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
        name = fields.get("model name") or fields.get("Processor") or fields.get("cpu model")
        if name:  # a virtual machine may show a generic name: family, model and stepping tell the chip
            ids = [f"{key.split()[-1]} {fields[key]}" for key in ("cpu family", "model", "stepping") if key in fields]
            return f"{name} ({', '.join(ids)})" if ids else name
    except OSError:
        pass
    if sys.platform == "darwin":
        import subprocess

        try:
            return subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True,
                                  timeout=5).stdout.strip() or None
        except (OSError, subprocess.SubprocessError):
            pass
    return platform.processor() or None


def environment() -> dict[str, Any]:
    """What a run's numbers depend on besides its settings: library versions (`packages`) and the machine
    (processor model, cores, torch threads, the CPU kernels' instruction set, the accelerator)."""
    return {"packages": _packages(), "machine": _machine()}


def _judges(records: Iterable[Mapping[str, Any]], env_options: Mapping[str, Any]) -> dict[str, Any]:
    kinds = Counter(str((r.get("judgement") or {}).get("judge")) for r in records if r.get("verdict") is not None)
    options = {k: v for k, v in env_options.items() if "judge" in k.lower()}
    rule = kinds.get("rule", 0) > 0
    return {"kinds": dict(sorted(kinds.items())), "options": options,
            "rule_version": _version_of("mobile-r1") if rule else None}


def _version_of(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def build_card(config: RunSettings, agent: Agent, backend: Backend | None, episodes: Sequence[EpisodeRef],
               records: Iterable[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """The card of a run (see the module docstring); `records` are its episode records (for the judges)."""
    view = _view(agent)
    image: dict[str, Any] | None = None
    coordinates: dict[str, Any] | None = None
    if view is not None:
        image = {"frame": view.frame, "prescale": view.prescale, "min_pixels": view.min_pixels,
                 "max_pixels": view.max_pixels, "factor": IMAGE_FACTOR,
                 "resample": "bicubic" if view.frame == "qwen" else "none (sent as captured)",
                 "prescale_rounding": "int(W * prescale), int(H * prescale)",
                 "resize_rounding": "smart_resize: round to the factor; floor / ceil to stay within the pixel bounds"}
        coordinates = {"frame": view.frame,
                       "to_screen": "x * W_screen / W_frame, rounded half to even (Python round)",
                       "outside_frame": "the reply is invalid and no action is sent"}
    sampling = {key: getattr(agent, key) for key in ("temperature", "top_p", "max_new_tokens", "max_tokens", "seed",
                                                     "batch_size") if hasattr(agent, key)}
    sampling["workers"] = config.workers
    budgets = Counter(str(e.max_steps) for e in episodes)
    card: dict[str, Any] = {
        "version": CARD_VERSION,
        "prompt": _guarded(prompt_fields, view) if view is not None else None,
        "dialect": view.dialect.name if view is not None else None,
        "observation": view.observation_mode if view is not None else None,
        "history": {"window": view.history_window, "steps": "the agent's own earlier steps, with the user's replies"}
        if view is not None else None,
        "image": image,
        "coordinates": coordinates,
        "sampling": sampling,
        "step_budget": {"max_steps": config.max_steps} if config.max_steps is not None else
        {"per_task": dict(sorted(budgets.items()))},
        "judge": _judges(records, config.env_options),
        "model": {"agent": config.agent, **_guarded(_weights, agent)},
        "suite": {"env": config.env, "backend": getattr(backend, "name", None), "suite": config.suite,
                  "split": config.split, "seed": config.seed, "episodes": len(episodes),
                  "ids_sha256": _sha256("\n".join(sorted(e.id for e in episodes)))},
        "packages": _packages(),
        "machine": _machine(),
    }
    card["sha256"] = card_hash(card)
    return card


def _guarded(read: Any, subject: Any) -> dict[str, Any]:
    """`read(subject)`, or what went wrong: a card that cannot read one thing still records the rest (the run is done)."""
    try:
        return read(subject)
    except Exception as exc:  # noqa: BLE001 - the card never costs a finished run its record
        return {"error": f"{type(exc).__name__}: {exc}"[:300]}


def card_hash(card: Mapping[str, Any]) -> str:
    """The sha256 of the card's compared fields (canonical JSON)."""
    return _sha256(json.dumps(flatten(card), sort_keys=True, ensure_ascii=False, default=str))


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ----- writing, reading, comparing ----------------------------------------------------------------------------------
def flatten(card: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """The card's compared fields as dotted keys (`sampling.temperature`)."""
    out: dict[str, Any] = {}
    for key, value in card.items():
        name = f"{prefix}{key}"
        if name in NOT_COMPARED:
            continue
        if isinstance(value, Mapping) and value:
            out.update(flatten(value, f"{name}."))
        else:
            out[name] = value
    return out


def differing(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """The dotted fields in which two cards differ, in order."""
    fa, fb = flatten(a), flatten(b)
    return [k for k in sorted(set(fa) | set(fb)) if fa.get(k) != fb.get(k)]


def write_card(run_dir: Path, card: dict[str, Any]) -> Path:
    """Write `card.json`; when the run already had one with other settings (a resumed run), keep which fields and
    what they were under `resumed_with_other`."""
    path = Path(run_dir) / CARD_FILE
    if path.is_file():
        old = read_card(path.parent)
        if old is not None:
            earlier = dict(old.get("resumed_with_other") or {})
            old_flat = flatten(old)
            for key in differing(old, card):
                earlier.setdefault(key, old_flat.get(key))
            if earlier:
                card = {**card, "resumed_with_other": earlier}
    write_json(path, card)
    return path


def read_card(run_dir: Path) -> dict[str, Any] | None:
    """A run's card, or None when the run has none (written before cards existed)."""
    path = Path(run_dir) / CARD_FILE
    if not path.is_file():
        return None
    card = read_json(path)
    return card if isinstance(card, dict) else None


def card_warnings(run_dirs: Sequence[Path], names: Sequence[str] | None = None) -> list[str]:
    """Warnings for runs whose cards differ from the first run's (naming the fields), lack a card, or were resumed
    with other settings."""
    labels = list(names) if names else [str(p) for p in run_dirs]
    cards = [read_card(Path(p)) for p in run_dirs]
    out: list[str] = []
    for label, card in zip(labels, cards):
        if card is None:
            out.append(f"{label} has no {CARD_FILE} (a run of an older mobile-r1): its settings cannot be compared")
        elif card.get("resumed_with_other"):
            fields = ", ".join(sorted(card["resumed_with_other"]))
            out.append(f"{label} was resumed with other settings ({fields}): its episodes mix them")
    base = cards[0]
    if base is None:
        return out
    for label, card in zip(labels[1:], cards[1:]):
        if card is None:
            continue
        fields = differing(base, card)
        if "model.agent" in fields:  # other agents under test: their models differ by design, the rest must not
            fields = [f for f in fields if not f.startswith("model.")]
        if fields:
            shown = ", ".join(fields[:12]) + (f" and {len(fields) - 12} more" if len(fields) > 12 else "")
            out.append(f"{label} differs from {labels[0]} in {shown}: the scores may differ for these reasons as well "
                       "as the agent")
    return out


__all__ = ["CARD_FILE", "build_card", "card_hash", "card_warnings", "differing", "environment", "flatten",
           "processor_model", "prompt_fields",
           "read_card", "reference_request", "write_card"]
