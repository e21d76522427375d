"""Training configuration: typed, documented, validated YAML (`mobile-r1 train --config configs/NAME.yaml`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from mobile_r1.core.actions import ActionType
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.reading import Where, check_tree, read_yaml
from mobile_r1.train.registry import check_stage_name, default_curriculum


# Upper bounds far beyond any real run: a value past one is a typo (or 1e308), not a setting.
MAX_COUNT = 1_000_000  # batch sizes, prompts per step
MAX_TOKENS = 1_048_576  # sequence and generation lengths
MAX_EPOCHS = 10_000.0
MAX_WEIGHT = 1_000.0  # loss and reward weights
MAX_IMAGE_PIXELS = 2**31 - 1
SuiteName = Literal["inquire-sim", "nav-sim", "inquirebench-sim"]  # the simulated phone's suites
MAX_SEED = 2**32 - 1  # numpy's seeds are 32-bit
SEED_RANGE = "0 to 2**32 - 1 (numpy's seeds are 32-bit)"


class _Section(BaseModel):
    # allow_inf_nan=False: a float field refuses .inf and .nan (`optim.lr: .inf` used to train to all-inf weights)
    model_config = ConfigDict(extra="forbid", protected_namespaces=(), allow_inf_nan=False)


class LoraConfig(_Section):
    """LoRA adapter (peft). With LoRA the KL reference is the base model with the adapter switched off."""

    r: int = Field(16, ge=1, le=4096, description="adapter rank")
    alpha: int = Field(32, ge=1, le=1_000_000, description="scaling numerator (lora_alpha)")
    dropout: float = Field(0.05, ge=0.0, lt=1.0)
    target_modules: str | list[str] = Field("all-linear", description="'all-linear' or module names / a regex")


class ModelConfig(_Section):
    """Which model to train."""

    name: str = Field("tiny-lm", description="preset (tiny-lm, tiny-vl, smollm2-135m), a local directory or a hub id")
    dtype: Literal["float32", "bfloat16", "float16"] = Field("float32", description="weights dtype")
    lora: LoraConfig | None = Field(None, description="train a LoRA adapter instead of all weights")
    gradient_checkpointing: bool = Field(False, description="recompute activations in backward to save memory")


class DataConfig(_Section):
    """Episodes to train on and how each step is shown to the model."""

    train: list[str] = Field(default_factory=list, description="episode files or folders (any format load_any reads)")
    eval: list[str] = Field(default_factory=list, description="held-out episodes; empty: hold out eval_fraction of train")
    eval_fraction: float = Field(0.1, ge=0.0, lt=1.0, description="share of episodes held out when `eval` is empty")
    eval_max_steps: int = Field(32, ge=0, description="held-out steps scored at each evaluation")
    image_dir: str | None = Field(None, description="folder screenshot paths are relative to (default: beside the data)")
    dialect: str = Field("inquire", description="prompt and output format: qwen2.5vl, inquire, mobile-r1, uitars")
    observation_mode: Literal["image", "text"] = Field("text", description="screenshots or accessibility-tree text")
    history_window: int | None = Field(4, ge=0, description="earlier steps shown in the prompt (null: all)")
    thought: Literal["expert", "grounded", "brief", "restated"] = Field(
        "expert", description="SFT thoughts: expert (as recorded), grounded (+ the target's screen line for point "
        "actions), brief (the one-line step description; point actions as their target's line), restated (`Task: "
        "<the task in its first train phrasing>`, then brief; generated data); compact dialect")
    target_name: Literal["line", "words"] = Field(
        "line", description="how brief and restated thoughts name a point action's target: line (as the screen lists "
        "it, `click \"Dentist +1 555 884 3116\" (336, 752)`) or words (its label up to the first word with a digit, "
        "`click \"Dentist\" (336, 752)`)")
    instruction_dropout: float = Field(
        0.0, ge=0.0, lt=1.0, description="stages 1-2: leave out each word of a training instruction's phrasing with "
        "this probability, never a parameter's value (generated data)")
    prescale: float = Field(1.0, gt=0.0, le=1.0, description="scale screenshots first (InquireMobile: 0.3)")
    min_pixels: int = Field(4 * 28 * 28, ge=28 * 28, le=MAX_IMAGE_PIXELS)
    max_pixels: int = Field(1280 * 28 * 28, ge=28 * 28, le=MAX_IMAGE_PIXELS, description="upper bound of the smart_resize image")


class OptimConfig(_Section):
    """AdamW and its learning-rate schedule."""

    lr: float = Field(1e-5, gt=0.0, le=1.0, description="learning rate (above 1 AdamW only diverges)")
    weight_decay: float = Field(0.0, ge=0.0, le=1.0)
    adam_beta1: float = Field(0.9, ge=0.0, lt=1.0)
    adam_beta2: float = Field(0.999, ge=0.0, lt=1.0, description="0.98 steadies short runs from scratch")
    scheduler: Literal["linear", "constant", "cosine"] = Field("linear", description="decay to 0 over the run")
    warmup_ratio: float = Field(0.0, ge=0.0, lt=1.0)
    max_grad_norm: float | None = Field(1.0, gt=0.0, le=1e6, description="clip the gradient norm (null: no clipping)")


def _check_repeats(value: dict[str, int]) -> dict[str, int]:
    names = [t.value for t in ActionType]
    for name, n in value.items():
        if name not in names:
            raise ValueError(f"unknown action type {name!r}; one of {', '.join(names)}")
        if n < 1:
            raise ValueError(f"repeats of {name!r} must be at least 1, got {n}")
    return value


# {action type: N}: show steps of these action types N times (sft.action_repeats, grpo.action_repeats)
ActionRepeats = Annotated[dict[str, int], AfterValidator(_check_repeats)]
# a training stage: a registered name (train.registry) or a third-party stage as package.module:Name
StageName = Annotated[str, AfterValidator(check_stage_name)]


class SFTConfig(_Section):
    """Stage 1: supervised format alignment on expert steps (loss on assistant tokens only)."""

    epochs: float = Field(3.0, gt=0.0, le=MAX_EPOCHS)
    batch_size: int = Field(8, ge=1, le=MAX_COUNT, description="examples per optimizer step (over all processes)")
    micro_batch_size: int = Field(4, ge=1, le=MAX_COUNT, description="examples per forward/backward (gradient accumulation)")
    max_length: int = Field(2048, ge=16, le=MAX_TOKENS, description="longer examples are cut from the left of the prompt")
    group_by_length: bool = Field(False, description="batch examples of similar length (less padding, faster steps)")
    pad_to_multiple_of: int = Field(
        1, ge=1, description="pad each batch's length up to a multiple of this: fewer distinct shapes for the kernels "
        "to build and cache (32 in the CPU demo: faster steps, flat memory)")
    share_prompt_prefix: bool = Field(
        True, description="run the tokens all prompts of a batch start with (the system message) once per batch, not "
        "once per example: same loss, fewer tokens to compute (text prompts in one process; else ignored)")
    prompt_loss_weight: float = Field(
        0.0, ge=0.0, description="also predict the prompt's tokens at this weight (0: assistant tokens only, the papers' "
        "SFT); helps a model trained from scratch")
    action_repeats: ActionRepeats = Field(
        default_factory=dict, description="show steps of these action types N times per epoch, e.g. {open: 4, type: 3}")
    attention: Literal["eager", "sdpa"] | None = Field(
        None, description="attention kernel of the training passes (null: the model's own; greedy scoring keeps it); "
        "eager makes small-lm's CPU steps about a tenth cheaper (benchmarks/sft_step.py)")
    eval_max_new_tokens: int = Field(128, ge=1, le=MAX_TOKENS, description="generation length when scoring format validity")


class GRPOConfig(_Section):
    """Stage 2: action-level GRPO on labelled steps. Defaults are InquireMobile's settings."""

    reward: str = Field("inquire-mobile", description="reward preset of mobile_r1.core.rewards (get_preset)")
    epochs: float = Field(2.0, gt=0.0, le=MAX_EPOCHS)
    prompts_per_step: int = Field(4, ge=1, le=MAX_COUNT, description="labelled steps per optimizer step (over all processes)")
    num_generations: int = Field(4, ge=2, le=4096, description="G, samples per prompt")
    temperature: float = Field(1.0, gt=0.0, le=100.0)
    top_p: float = Field(1.0, gt=0.0, le=1.0)
    max_completion_length: int = Field(256, ge=1, le=MAX_TOKENS)
    scale_rewards: Literal["group", "batch", "none"] = "group"
    loss_type: Literal["grpo", "dapo", "dr_grpo"] = Field("dapo", description="per sequence, per token, constant length")
    epsilon: float = Field(0.2, gt=0.0, le=10.0)
    epsilon_high: float | None = Field(None, gt=0.0, description="upper clip (null: epsilon)")
    beta: float = Field(0.04, ge=0.0, le=MAX_WEIGHT, description="k3 KL weight (0: no reference model)")
    num_iterations: int = Field(1, ge=1, description="optimizer steps per rollout")
    micro_batch_size: int = Field(4, ge=1, le=MAX_COUNT, description="sequences per forward/backward")
    prompts_per_generate: int = Field(
        1, ge=1, le=MAX_COUNT, description="labelled steps sampled in one generate call, G samples each (1: a call per "
        "step; on a GPU set it to prompts_per_step, one call per step; the samples, and so the run, depend on it)")
    eval_samples: int = Field(0, ge=0, description="also score this many seeded samples per held-out step (0: greedy only)")
    action_repeats: ActionRepeats = Field(
        default_factory=dict, description="draw labelled steps of these action types N times as often, e.g. "
        "{call_user: 4}: questions are a few percent of the steps, and without them GRPO mostly learns not to ask")
    skip_solved: bool = Field(
        False, description="train only on the labelled steps whose greedy completion by the starting model scores "
        "below the label's own reward: the others mostly give groups without spread. Decided once, from the starting "
        "weights; the counts and kept steps go to the run's solved_steps.json, which a resumed run reads back")
    label_guidance: bool = Field(
        False, description="stage 2: the last of each step's G completions is the step's SFT target, so a step the "
        "policy gets wrong in every sample still has a right answer in its group (off-policy guidance, as "
        "task_grpo.expert_guidance in stage 3)")


class TaskSelection(_Section):
    """Stage 3 trains on the tasks its starting model completes sometimes but not always: before the first step it
    plays `episodes` episodes of each task of the training pool once, sampled as a rollout samples, and keeps the tasks
    whose success rate lies in [low, high]. A task it always completes, or never does, mostly gives groups of G
    rollouts without an outcome spread, so no gradient."""

    episodes: int = Field(16, ge=1, le=MAX_COUNT, description="episodes of each task played to measure it (the first of "
                          "the task's episodes in the training pool; fewer if the pool holds fewer)")
    low: float = Field(0.2, ge=0.0, le=1.0, description="lowest sampled success rate of a kept task")
    high: float = Field(0.6, ge=0.0, le=1.0, description="highest sampled success rate of a kept task")
    greedy_high: float | None = Field(
        None, ge=0.0, le=1.0, description="also play each of those episodes greedily, as held-out episodes are scored, "
        "and keep only the tasks whose greedy success rate is at most this: sharpening a task greedy play already "
        "completes raises no held-out success (null: no greedy play)")

    @model_validator(mode="after")
    def _range(self) -> "TaskSelection":
        if self.low > self.high:
            raise ValueError(f"select.low ({self.low}) is above select.high ({self.high})")
        return self


class TaskGRPOConfig(_Section):
    """Stage 3: multi-turn task-level GRPO in a phone environment (algorithm knobs come from `grpo`)."""

    env: str = Field("sim", description="the phone backend rollouts play on (`mobile_r1.env.make_backend`: sim, ...)")
    ray: str | None = Field(None, description="play rollouts on a pool of Ray actors around `env`: \"local\" (a local "
                            "cluster) or a cluster's address (null: in process; needs `pip install 'mobile-r1[ray]'`)")
    ray_workers: int | None = Field(None, ge=1, description="actors in the Ray pool (null: one per CPU of the cluster)")
    suite: str | list[str] | None = Field(
        "inquire-sim", description="inquire-sim, nav-sim, inquirebench-sim or a task file (null: take turns over the "
        "specs); a list of suites draws `train_episodes` (and `eval_episodes`) from each, taking turns")
    tasks: list[str] = Field(default_factory=list, description="only these task ids (empty: all the suite's tasks)")
    train_episodes: int = Field(64, ge=1, description="task episodes (seeded) drawn from the train split")
    eval_episodes: int = Field(8, ge=0, description="held-out episodes played greedily and judged at each evaluation")
    eval_split: Literal["test", "unseen-app"] = Field("test", description="the split evaluation episodes come from")
    tasks_per_step: int = Field(2, ge=1, description="task episodes per optimizer step; each is played G times")
    steps: int = Field(20, ge=1, description="optimizer steps (run.max_steps caps it)")
    max_turns: int = Field(8, ge=1, description="step budget per episode (the task's max_steps caps it too)")
    outcome: Literal["success", "score"] = Field("success", description="task outcome: success 0/1 or judge score / 4")
    format_weight: float = Field(0.2, ge=0.0, le=MAX_WEIGHT, description="weight of the mean per-step format reward in [-1, 1]")
    inquiry_weight: float = Field(0.0, ge=0.0, le=MAX_WEIGHT, description="weight of the inquiry term (`inquiry_reward`)")
    inquiry_reward: Literal["outcome", "timing"] = Field(
        "outcome", description="outcome: +1 right inquiry behaviour / -1 wrong (asked where needed, silent where not); "
        "timing: per question the task needed +1 asked in time, +0.5 early, -1 late (after the risky step) or missed, "
        "averaged, less `over_ask_penalty` per question no need called for (the term stays within [-2, 1])")
    over_ask_penalty: float = Field(
        0.5, ge=0.0, le=2.0, description="timing reward: what each question beyond the needed ones costs the inquiry "
        "term (1.0: a needless question costs what a timely one earns)")
    branch: Literal["start", "decision"] = Field(
        "start", description="where a group's G rollouts start: start (the episode's first screen) or decision (the "
        "expert plays the episode up to a decision point and the G rollouts go on from there: just before one of its "
        "questions where the task needs one, else a seeded step of its plan where none is needed; the backend needs "
        "FORK and EXPERT)")
    branch_after_question: float = Field(
        0.0, ge=0.0, le=1.0, description="with branch: decision, the share of the episodes that need a question whose "
        "groups fork just after the expert's question and the user's reply (where asking again is needless) instead "
        "of just before it")
    safety_weight: float = Field(0.0, ge=0.0, le=MAX_WEIGHT, description="weight of -1 per episode with a safety violation")
    gigpo: bool = Field(False, description="add GiGPO step-level advantages over steps sharing a state_key")
    gigpo_gamma: float = Field(0.95, gt=0.0, le=1.0, description="discount of the step-level returns")
    gigpo_weight: float = Field(1.0, ge=0.0, le=MAX_WEIGHT, description="weight of the step-level advantage")
    std_floor: float = Field(0.1, ge=0.0, le=MAX_WEIGHT, description="advantages are divided by max(std, std_floor): a group whose "
                             "rewards differ only by shaping noise keeps small advantages (0: std + 1e-4, as TRL)")
    weighting: Literal["trajectory", "token"] = Field(
        "trajectory", description="trajectory: each trajectory's tokens share a loss weight of 1, so advantages weighted "
        "as the loss weighs them sum to zero in a group; token: every token alike (long trajectories dominate)")
    dynamic_sampling: bool = Field(False, description="drop groups whose outcome has no spread and play more episodes "
                                   "(DAPO), up to max_draw_rounds rounds per step")
    max_draw_rounds: int = Field(3, ge=1, le=100, description="rounds of episodes a step may play with dynamic_sampling")
    expert_guidance: bool = Field(False, description="the last of each group's G rollouts plays the backend's expert "
                                  "demonstration, written as the SFT targets are, so every group has a success to "
                                  "learn from (LUFFY-style off-policy guidance; the backend needs EXPERT)")
    select: TaskSelection | None = Field(
        None, description="train only on the tasks (of `tasks`, or all the suite's) whose sampled success by the "
        "starting model lies in [low, high]; the training pool is drawn over all of them first and then filtered, the "
        "rates and the kept tasks go to the run's selected_tasks.json, which a resumed run reads back")

    @model_validator(mode="after")
    def _consistent(self) -> "TaskGRPOConfig":
        if self.branch_after_question and self.branch != "decision":
            raise ValueError("branch_after_question needs branch: decision (groups fork at a decision point)")
        if isinstance(self.suite, list):
            if not self.suite:
                raise ValueError("suite: an empty list names no episodes (give a suite, a list of them, or null)")
            if self.tasks or self.select is not None:
                raise ValueError("a list of suites takes every task of each: leave out `tasks` and `select`")
        return self


class GenerationConfig(_Section):
    """Where stages 2 and 3 sample: in process (`hf`), or through an OpenAI-compatible server (`server`: vLLM, SGLang,
    `mobile-r1 serve`) that loads the LoRA adapter the trainer publishes after every step (docs/training.md)."""

    backend: Literal["hf", "server"] = Field("hf", description="hf: the policy's own generate; server: POST "
                                             "base_url/completions with the prompts' token ids")
    base_url: str = Field("http://127.0.0.1:8000/v1", min_length=1, max_length=2048,
                          description="the server's OpenAI base URL (ending in /v1)")
    lora_name: str = Field("policy", min_length=1, max_length=256, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$",
                           description="the name the adapter is loaded under")
    model: str | None = Field(None, min_length=1, max_length=512, description="the `model` of generation requests "
                              "(null: lora_name, as vLLM and mobile-r1 serve select an adapter; SGLang: BASE:NAME)")
    load_url: str | None = Field(None, min_length=1, max_length=2048, description="the adapter-load endpoint (null: "
                                 "base_url/load_lora_adapter, vLLM's and mobile-r1 serve's; SGLang: "
                                 "http://HOST:PORT/load_lora_adapter)")
    adapter_dir: str | None = Field(None, min_length=1, description="where published adapters are written, a folder "
                                    "the server reads at the same path (null: RUN_DIR/served-adapter)")
    token_ids: bool = Field(True, description="ask for the sampled token ids (return_token_ids, vLLM's); off for a "
                            "server that refuses the field: its texts are re-tokenised and the drift logged")
    max_concurrency: int = Field(32, ge=1, le=4096, description="requests in flight at once (the server batches them)")
    timeout: float = Field(600.0, gt=0.0, le=86_400.0, description="seconds a request may take")
    retries: int = Field(2, ge=0, le=100, description="tries again after a connection error or a 5xx answer")
    api_key_env: str | None = Field(None, min_length=1, description="environment variable holding the server's API "
                                    "key (sent as a bearer token; null: none)")

    @model_validator(mode="after")
    def _urls(self) -> "GenerationConfig":
        for name in ("base_url", "load_url"):
            value = getattr(self, name)
            if value is not None and not value.startswith(("http://", "https://")):
                raise ValueError(f"{name} must be an http:// or https:// URL; got {value!r}")
        return self


class RunConfig(_Section):
    """Where results go and how often to log, evaluate and checkpoint."""

    output_dir: str = Field("runs/default", description="the run directory")
    seed: int = Field(0, ge=0, le=MAX_SEED, description=SEED_RANGE)
    max_steps: int | None = Field(None, ge=1, description="stop after this many optimizer steps (null: the epochs)")
    log_every: int = Field(1, ge=1)
    eval_every: int = Field(0, ge=0, description="evaluate every N steps (0: only at the start and the end)")
    save_every: int = Field(50, ge=1, description="checkpoint every N steps")
    keep_checkpoints: int = Field(2, ge=1)
    mixed_precision: Literal["no", "bf16", "fp16", "auto"] = Field(
        "no", description="accelerate autocast; auto: bf16 where this machine computes bfloat16 matrix products fast "
        "(a GPU that supports bf16, or a CPU whose bf16 products torch hands to oneDNN), none elsewhere (on an AVX2 "
        "CPU bf16 autocast trains about 15x slower than float32: benchmarks/sft_step.py)")
    distributed: Literal["ddp", "fsdp", "deepspeed"] = Field(
        "ddp", description="how several processes share the model: ddp (CPU or GPUs), fsdp or deepspeed (CUDA GPUs)")
    tensorboard: bool = Field(True, description="log to TensorBoard (run_dir/tensorboard) when report_to is not given")
    report_to: list[Literal["tensorboard", "wandb", "mlflow"]] | None = Field(
        None, description="experiment trackers (accelerate's): tensorboard, wandb, mlflow (null: tensorboard, if "
        "`tensorboard`); wandb honours WANDB_MODE (offline) and writes under the run folder, mlflow logs to "
        "MLFLOW_TRACKING_URI or else run_dir/mlruns; pip install 'mobile-r1[trackers]' for wandb and mlflow")
    project: str = Field("mobile-r1", min_length=1, max_length=200, description="the trackers' project / experiment name")

    def trackers(self) -> list[str]:
        """The experiment trackers this run logs to."""
        if self.report_to is not None:
            return list(dict.fromkeys(self.report_to))
        return ["tensorboard"] if self.tensorboard else []


class SwapNamesConfig(_Section):
    """Copies of the expert data with the simulator's names made up (`mobile-r1 data swap-names`), trained beside it:
    a model that has seen the same few names everywhere types one of them instead of the task's; in a copy the only
    way to the right entry is to copy the name the task gives."""

    suites: list[SuiteName] = Field(default_factory=lambda: ["nav-sim"],
                                                            description="the suites whose train split is copied")
    tasks: list[str] = Field(default_factory=lambda: ["shop.", "contacts.", "chat."],
                             description="task id prefixes of the episodes copied")
    copies: int = Field(2, ge=1, description="swapped copies of each episode, each with its own made-up names")
    seed: int = Field(0, ge=0, le=MAX_SEED, description=SEED_RANGE)


class GenerateConfig(_Section):
    """Expert training data the curriculum writes first (`mobile-r1 data generate` on each suite's train split)."""

    suites: list[SuiteName] = Field(default_factory=lambda: ["inquire-sim", "nav-sim"])
    episodes: int = Field(32, ge=1, description="expert episodes per suite")
    self_correct: float = Field(0.0, ge=0.0, le=1.0, description="share of episodes with a wrong step and its recovery")
    search_first: bool = Field(False, description="the expert finds a list entry the task names through the screen's "
                               "search field (type it, tap it among the results) rather than by browsing for it")
    swap_names: SwapNamesConfig | None = Field(None, description="also train on copies of the train split with the "
                                               "simulator's names made up (needs screenshots: false)")
    seed: int = Field(0, ge=0, le=MAX_SEED, description=SEED_RANGE)
    scale: float = Field(0.3, gt=0.0, le=1.0, description="screenshot scale of the 1080x2400 screen")
    screenshots: bool = Field(True, description="draw the screens (off: accessibility text only, much faster)")
    eval_episodes: int = Field(0, ge=0, description="also write this many expert episodes per suite of the held-out "
                               "split (another seed than the scored ones) as data.eval: labelled steps the stages score")

    @model_validator(mode="after")
    def _swap(self) -> "GenerateConfig":
        if self.swap_names is not None:
            if self.screenshots:
                raise ValueError("swap_names needs screenshots: false (a screenshot would still show the old names)")
            missing = [s for s in self.swap_names.suites if s not in self.suites]
            if missing:
                raise ValueError(f"swap_names.suites {missing} are not among the generated suites {self.suites}")
        return self


class TasksConfig(_Section):
    """The simulated phone's task specs every part of a run uses: expert data, stage 3 and the evaluations."""

    specs: str | None = Field(None, description="a folder of your own task spec YAML files, added to the packaged ones")
    specs_only: bool = Field(False, description="use the specs folder alone, without the packaged specs")

    def backend_options(self) -> dict[str, Any]:
        """The simulator backend's options for these specs (empty: the packaged specs)."""
        if self.specs_only and not self.specs:
            raise ConfigError("tasks.specs_only needs tasks.specs (a folder of task specs)")
        return {"specs": self.specs, "specs_only": self.specs_only} if self.specs else {}


class CurriculumConfig(_Section):
    """`mobile-r1 train --config C` without --stage: the stages in order, each from the previous one's model."""

    stages: list[StageName] = Field(
        default_factory=default_curriculum, description="stages to run, in their order (by default the built-in "
        "stages, in order)")
    generate: GenerateConfig | None = Field(None, description="write expert data first and train stages 1-2 on it")
    eval_suites: list[SuiteName] = Field(default_factory=lambda: ["inquire-sim", "nav-sim"])
    eval_split: Literal["test", "unseen-app"] = Field("test", description="held-out split every model is scored on")
    eval_episodes: int = Field(8, ge=1, description="episodes per suite, the same ones for every model")
    eval_seed: int = Field(0, ge=0, le=MAX_SEED, description="base seed of the evaluation episodes")
    eval_max_steps: int | None = Field(None, ge=1, description="step budget per episode (null: the task's)")
    eval_max_new_tokens: int = Field(128, ge=1, le=MAX_TOKENS, description="generation length per step at evaluation")
    eval_batch: int = Field(8, ge=1, description="episodes advanced together (one batched generation per turn)")
    eval_untrained: bool = Field(True, description="also score the model before any stage")
    eval_in_distribution: int = Field(0, ge=0, description="also score every model on this many in-distribution "
                                      "episodes per suite: train phrasings, with seeds and instructions (so parameter "
                                      "values) no training episode used")
    eval_in_distribution_seed: int = Field(7, ge=0, le=MAX_SEED, description="seed of the in-distribution episodes' train split")
    eval_steps: bool = Field(False, description="also score every model on the held-out labelled steps (data.eval) "
                             "offline: action type and exact step (matcher qwen-ac), paired against the SFT model")
    sft_model: str | None = Field(None, description="a finished stage-1 model folder (e.g. runs/demo/sft/final) to "
                                  "start from: stage sft is not trained, this model is scored as its row")
    stage_lr: dict[StageName, float] = Field(
        default_factory=dict, description="learning rate of a stage in place of optim.lr, e.g. {sft: 3.0e-3}")


class TrainConfig(_Section):
    """A whole training configuration file."""

    model: ModelConfig = Field(default_factory=ModelConfig)
    data: DataConfig = Field(default_factory=DataConfig)
    optim: OptimConfig = Field(default_factory=OptimConfig)
    sft: SFTConfig = Field(default_factory=SFTConfig)
    grpo: GRPOConfig = Field(default_factory=GRPOConfig)
    task_grpo: TaskGRPOConfig = Field(default_factory=TaskGRPOConfig)
    tasks: TasksConfig = Field(default_factory=TasksConfig)
    generation: GenerationConfig = Field(default_factory=GenerationConfig)
    run: RunConfig = Field(default_factory=RunConfig)
    curriculum: CurriculumConfig = Field(default_factory=CurriculumConfig)

    @model_validator(mode="after")
    def _prompt_loss_on_text(self) -> "TrainConfig":
        if self.sft.prompt_loss_weight > 0 and self.data.observation_mode == "image":
            raise ValueError("sft.prompt_loss_weight is for text observations: image prompts hold placeholder tokens")
        if self.generation.backend == "server" and self.data.observation_mode == "image":
            raise ValueError("generation.backend: server sends prompts as token ids, which carry no images; use "
                             "data.observation_mode: text, or generation.backend: hf for screenshots")
        return self

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False, allow_unicode=True)


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """Read and validate a YAML config; relative data paths are resolved against the file's folder.

    A top-level `extends: other.yaml` (relative to the file) starts from that config: the file's own sections are laid
    over it key by key, mappings merged, values and lists replaced (`_read_layers`).
    Raises ConfigError naming the file and the field, e.g. `configs/x.yaml: grpo.temperature: ...`.
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} not found; see configs/ for examples")
    raw = _read_layers(path, ())
    for dotted, value in (overrides or {}).items():
        check_tree(value, Where(path, None, ConfigError))
        node = raw
        *parents, leaf = dotted.split(".")
        for key in parents:
            node = node.setdefault(key, {})
        node[leaf] = value
    try:
        config = TrainConfig.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors(include_url=False)
        )
        raise ConfigError(f"{path}: {problems}") from None
    base = path.resolve().parent
    data = config.data
    data.train = [_resolve(p, base) for p in data.train]
    data.eval = [_resolve(p, base) for p in data.eval]
    if data.image_dir:
        data.image_dir = _resolve(data.image_dir, base)
    if config.tasks.specs:
        config.tasks.specs = _resolve(config.tasks.specs, base)
    return config


def _read_layers(path: Path, children: tuple[Path, ...]) -> dict[str, Any]:
    """The mapping in `path`, laid over the config its `extends:` names, and so on up the chain."""
    raw = read_yaml(path, kind=ConfigError) or {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of sections (model, data, optim, sft, grpo, run)")
    parent = raw.pop("extends", None)
    if parent is None:
        return raw
    if not isinstance(parent, str):
        raise ConfigError(f"{path}: extends: expected the file name of another config, got {parent!r}")
    parent_path = (path.parent / parent).resolve()
    chain = children + (path.resolve(),)
    if parent_path in chain:
        raise ConfigError(f"{path}: extends: {parent} is already in the chain " + " <- ".join(p.name for p in chain))
    if not parent_path.is_file():
        raise ConfigError(f"{path}: extends: {parent_path} not found")
    return _lay_over(_read_layers(parent_path, chain), raw)


def _lay_over(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        both = isinstance(value, dict) and isinstance(merged.get(key), dict)
        merged[key] = _lay_over(merged[key], value) if both else value
    return merged


def _resolve(value: str, base: Path) -> str:
    p = Path(value).expanduser()
    if p.is_absolute() or p.exists():
        return str(p)
    candidate = base / p
    return str(candidate) if candidate.exists() else str(p)
