"""`HFEngine`: a local transformers model served with dynamic batching, per-row sampling and hot-swapped LoRA adapters.

    engine = HFEngine(load_policy("tiny-lm"), max_batch=16, batch_window=0.005)
    job = engine.prepare(messages, SamplingParams(temperature=0, max_tokens=32), model=None)
    engine.submit(job, sink)             # sink.finish(ChatResult) comes from the engine's thread

Batching. One worker thread owns the model. Requests that arrive within `batch_window` seconds of the first waiting
one (or while a batch runs) are merged into one left-padded `generate` call of at most `max_batch` rows; a request
with `n` choices is `n` rows. Requests for different LoRA adapters go to different calls (the oldest waiting row
decides which adapter runs next). Sampling is done per row, not per call, so rows with different temperatures,
top_p, top_k, seeds, stop strings and max_tokens share one call: a logits processor picks each row's token (argmax,
or a draw from the row's own `torch.Generator` seeded with the request's seed) and hands `generate` a one-hot score,
which its greedy search then keeps. Grouping requests by equal settings instead would split the 16 requests of a
GRPO group with distinct seeds into 16 calls. This is the one place that samples without
`mobile_r1.models.generation.sample`, whose single `generate(do_sample=True)` call cannot give rows their own seeds,
stop strings or log-probabilities; a row draws what `sample` draws for it after `torch.manual_seed(seed)` (same
temperature, top-p, top-k order, same end tokens), so served and in-process sampling agree (tests/agents and
tests/serve compare them).
A stopping criterion reads each row's new token: an end token (unless `ignore_eos`), a stop token, a stop string,
`max_tokens` or the context ends that row and, once all of a request's rows are done, the request is answered, before
the rest of the batch finishes. Streaming requests get each row's new text as it is decoded (holding back a partial
UTF-8 character or the start of a stop string).

A batch yields to newcomers: after `rejoin_after` steps, if requests for the same adapter wait and the batch has free
rows (some finished, or it started small), or an adapter is waiting to load, the batch is cut; its unfinished rows go
back to the head of the queue, prompt plus tokens so far, with their sampler state, and the next call takes them with
the newcomers (their prompts are recomputed). So a request arriving during a long generation waits `rejoin_after`
steps, not the whole generation. transformers' own continuous batching (`generate_batch`) would avoid the recompute
but takes token ids only (no images for Qwen2.5-VL), and has no per-request seeds or stop strings; hence this.

Limits are checked in `prepare`, before anything is queued: a prompt whose text alone must exceed the context (more
bytes than the context times the longest token's bytes) is refused without tokenising it, a tokenised prompt must
leave room for one token, `max_tokens` must fit the context and the server's `max_tokens_limit`; without
`max_tokens` a request gets `default_max_tokens` capped by the room left. The queue holds at most `max_waiting` rows.

Adapters. `load_adapter(name, folder)` puts a peft LoRA folder (what `mobile-r1 train` writes with LoRA,
`PeftModel.save_pretrained`) on the served base model under an internal name; requests whose `model` is `name` (or
SGLang's `base:name`) use it, others the base model (peft's `disable_adapter`). Loading a name again loads the new
weights first and then drops the old ones, so a failed load leaves the old adapter serving. Unloading the last adapter
takes the LoRA layers out again (`PeftModel.unload`). Adapter operations run on the worker thread between batches.

Log-probabilities are those of the model's own distribution, log-softmax of the logits before temperature and
top-p/top-k (vLLM's default `logprobs_mode`, "raw_logprobs"), what a trainer needs as old log-probabilities.
"""

from __future__ import annotations

import copy
import itertools
import logging
import random
import threading
import time
import warnings
from collections import deque
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import torch
from transformers import (GenerationConfig, LogitsProcessor, LogitsProcessorList, PretrainedConfig, StoppingCriteria,
                          StoppingCriteriaList)

from mobile_r1.agents.chat import ChatMessage, TextPart, to_hf
from mobile_r1.core.errors import ConfigError
from mobile_r1.models.generation import draw, eos_ids
from mobile_r1.models.policy import Policy, end_of_turn
from mobile_r1.serve.engine import (
    AdapterInfo,
    BusyError,
    ChatResult,
    Completion,
    Delta,
    NotFoundError,
    Prepared,
    SamplingParams,
    ServeError,
    Sink,
    TokenLogprob,
    TopLogprob,
)

log = logging.getLogger(__name__)

MIN_LOGPROB = -9999.0  # what a token of probability 0 reports (JSON has no -inf); vLLM uses the same floor
PROCESSOR_KEYS = {"input_ids", "attention_mask", "pixel_values", "image_grid_thw"}


@dataclass(eq=False)
class _Prompt:
    ids: list[int]
    pixel_values: Any = None
    image_grid_thw: Any = None


@dataclass(eq=False)
class _Job:
    prompt: _Prompt
    params: SamplingParams
    max_new: int
    adapter: str | None
    model: str
    stream: bool
    sink: Sink | None = None
    rows: list[_Row] = field(default_factory=list)
    arrived: float = 0.0
    over: bool = False  # answered or failed

    @property
    def alive(self) -> bool:
        return not self.over and not (self.sink is not None and self.sink.cancelled)

    @property
    def prompt_token_ids(self) -> tuple[int, ...]:
        return tuple(self.prompt.ids)


@dataclass(eq=False)
class _Row:
    job: _Job
    index: int
    generator: Any = None
    ids: list[int] = field(default_factory=list)
    visible: list[int] = field(default_factory=list)  # ids that become text (end and padding tokens dropped)
    logprobs: list[TokenLogprob] = field(default_factory=list)
    pending: TokenLogprob | None = None
    text: str = ""
    checked: int = 0  # characters of `text` already searched for stop strings
    sent: int = 0  # characters, ids and logprobs already streamed
    ids_sent: int = 0
    logprobs_sent: int = 0
    finish_reason: str | None = None
    preempted: bool = False
    arrived: float = 0.0

    @property
    def done(self) -> bool:
        return self.finish_reason is not None

    @property
    def stopped(self) -> bool:
        return self.done or self.preempted


class HFEngine:
    """A `mobile_r1.models.Policy` behind the `Engine` protocol (see the module docstring).

    `seed` is the seed of requests that bring none (None: fresh randomness for each). The engine owns the model's
    adapters: loading one wraps the policy's model in peft, in place.
    """

    def __init__(
        self,
        policy: Policy,
        *,
        seed: int | None = 0,
        model_name: str | None = None,
        max_batch: int = 16,
        batch_window: float = 0.02,
        default_max_tokens: int = 512,
        max_tokens_limit: int | None = None,
        max_model_len: int | None = None,
        max_waiting: int = 1024,
        max_n: int = 64,
        rejoin_after: int = 16,
    ) -> None:
        if min(max_batch, max_n, default_max_tokens, rejoin_after, max_waiting) < 1 or batch_window < 0:
            raise ConfigError("max_batch, max_n, default_max_tokens, rejoin_after and max_waiting must be >= 1, "
                              "batch_window >= 0")
        self.policy = policy
        self.seed = seed
        self.model_name = model_name or policy.spec
        self.max_batch = max_batch
        self.batch_window = batch_window
        self.default_max_tokens = default_max_tokens
        self.max_waiting = max_waiting
        self.max_n = max_n
        self.rejoin_after = rejoin_after
        context = getattr(unwrap_config(policy.model), "max_position_embeddings", None) or 2048
        self.context = min(max_model_len or context, context)
        self.max_tokens_limit = min(max_tokens_limit or self.context, self.context)
        tok = policy.tokenizer
        self._pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        # the end tokens of `models.generation.sample` (training's), and the chat template's end of turn
        self._end_ids = set(eos_ids(policy)) | {tok.convert_tokens_to_ids(end_of_turn(policy))}
        self._drop_ids = self._end_ids | {self._pad}
        self._token_bytes: int | None = None
        self._token_text: dict[int, str] = {}
        self._cond = threading.Condition()
        self._waiting: deque[_Row] = deque()
        self._control: deque[tuple[Callable[[], None], Future[None]]] = deque()
        self._thread: threading.Thread | None = None
        self._closing = False
        self._running = 0
        self._counts = {"batches": 0, "rows_done": 0, "rows_aborted": 0, "requests_done": 0, "preemptions": 0}
        self._peft: Any = None
        self._adapters: dict[str, tuple[str, AdapterInfo]] = {}  # name -> (peft adapter name, info)
        self._adapter_ids = itertools.count()

    # ----- preparing and queueing requests ------------------------------------------------------------------------

    def prepare(self, messages: Sequence[ChatMessage], params: SamplingParams, model: str | None,
                stream: bool = False) -> _Job:
        policy = self.policy
        adapter = self._resolve(model)
        texts = [p.text for m in messages for p in m.parts if isinstance(p, TextPart)]
        try:
            nbytes = sum(len(t.encode("utf-8")) for t in texts)
        except UnicodeEncodeError:
            raise ServeError("the messages hold text that is not valid Unicode (a lone surrogate)") from None
        floor = nbytes // self._longest_token_bytes()
        if floor >= self.context:
            raise ServeError(f"the messages hold {nbytes} bytes of text, at least {floor} tokens, and this model's "
                             f"context is {self.context} tokens; shorten them")
        hf_messages, images = to_hf(messages)
        if images and not policy.takes_images:
            raise ServeError(f"model {self.model_name!r} reads no images; send text only")
        try:
            template = policy.processor if policy.takes_images else policy.tokenizer
            text = template.apply_chat_template(hf_messages, tokenize=False, add_generation_prompt=True)
            if policy.takes_images:
                encoded = dict(policy.processor(text=[text], images=images or None, padding=False))
                unknown = set(encoded) - PROCESSOR_KEYS
                if unknown:
                    raise ServeError(f"the model's processor gives inputs this server cannot batch: {sorted(unknown)}")
                prompt = _Prompt(encoded["input_ids"][0].tolist(), encoded.get("pixel_values"),
                                 encoded.get("image_grid_thw"))
            else:
                prompt = _Prompt(list(policy.tokenizer(text, add_special_tokens=False).input_ids))
        except ServeError:
            raise
        except Exception as exc:  # a chat template that raises on these messages, say; the request's fault
            raise ServeError(f"cannot build the prompt from these messages: {type(exc).__name__}: {exc}") from None
        return self._job(prompt, params, adapter, stream, "messages")

    def prepare_prompt(self, prompt: str | Sequence[int], params: SamplingParams, model: str | None,
                       add_special_tokens: bool = True) -> _Job:
        """A /v1/completions request: a text tokenised as it is (no chat template), or token ids used as given."""
        adapter = self._resolve(model)
        tokenizer = self.policy.tokenizer
        if isinstance(prompt, str):
            try:
                nbytes = len(prompt.encode("utf-8"))
            except UnicodeEncodeError:
                raise ServeError("the prompt is not valid Unicode (a lone surrogate)") from None
            floor = nbytes // self._longest_token_bytes()
            if floor >= self.context:
                raise ServeError(f"the prompt holds {nbytes} bytes, at least {floor} tokens, and this model's context "
                                 f"is {self.context} tokens; shorten it")
            ids = list(tokenizer(prompt, add_special_tokens=add_special_tokens).input_ids)
        else:
            ids = [int(t) for t in prompt]
            vocab = len(tokenizer)
            bad = [t for t in ids if not 0 <= t < vocab][:5]
            if bad:
                raise ServeError(f"prompt token ids {bad} are not token ids of this model (0 to {vocab - 1})")
        config = self.policy.model.config
        placeholders = {getattr(config, k, None) for k in ("image_token_id", "video_token_id")} - {None}
        if self.policy.takes_images and placeholders & set(ids):
            raise ServeError("the prompt holds image placeholders but a completions prompt carries no images; send "
                             "images through /v1/chat/completions")
        if not ids:
            raise ServeError("the prompt is empty")
        return self._job(_Prompt(ids), params, adapter, False, "prompt")

    def _job(self, prompt: _Prompt, params: SamplingParams, adapter: str | None, stream: bool, what: str) -> _Job:
        """The checks every request passes once its prompt is tokenised: context, max_tokens, n, stop tokens."""
        policy = self.policy
        size = len(prompt.ids)
        if size >= self.context:
            raise ServeError(f"This model's maximum context length is {self.context} tokens. However, your {what} "
                             f"resulted in {size} tokens. Please reduce the length of the {what}.")
        room = self.context - size
        requested = params.max_tokens
        if requested is not None and requested > self.max_tokens_limit:
            raise ServeError(f"max_tokens={requested} is above this server's limit of {self.max_tokens_limit} "
                             "(mobile-r1 serve --max-tokens-limit)")
        if requested is not None and requested > room:
            raise ServeError(f"This model's maximum context length is {self.context} tokens. However, you requested "
                             f"{requested + size} tokens ({size} in the {what}, {requested} in the completion). "
                             f"Please reduce the length of the {what} or set max_tokens to at most {room}.")
        if params.n > self.max_n:
            raise ServeError(f"n={params.n} is above this server's limit of {self.max_n}")
        vocab = len(policy.tokenizer)
        bad = [t for t in params.stop_token_ids if not 0 <= t < vocab]
        if bad:
            raise ServeError(f"stop_token_ids {bad} are not token ids of this model (0 to {vocab - 1})")
        max_new = requested if requested is not None else min(self.default_max_tokens, room)
        return _Job(prompt, params, max_new, adapter, adapter or self.model_name, stream)

    def submit(self, job: Prepared, sink: Sink) -> None:
        assert isinstance(job, _Job)
        job.sink = sink
        job.arrived = time.monotonic()
        params = job.params
        base = params.seed if params.seed is not None else self.seed
        if base is None:
            base = random.SystemRandom().randrange(2**63)
        for index in range(params.n):
            generator = None
            if params.temperature > 0:
                generator = torch.Generator(device=self.policy.device).manual_seed((base + index) % 2**64)
            job.rows.append(_Row(job, index, generator, arrived=job.arrived))
        with self._cond:
            if self._waiting_rows() + len(job.rows) > self.max_waiting:
                raise BusyError(f"the server has {self.max_waiting} completions waiting; retry later")
            self._waiting.extend(job.rows)
            self._ensure_worker()
            self._cond.notify_all()

    def _resolve(self, model: str | None) -> str | None:
        """The adapter a request's `model` names (vLLM: the adapter's name; SGLang: `base:adapter`), else None."""
        if not model:
            return None
        with self._cond:
            if model in self._adapters:
                return model
            base, _, name = model.rpartition(":")
            if base == self.model_name and name in self._adapters:
                return name
        return None

    def _longest_token_bytes(self) -> int:
        if self._token_bytes is None:
            tok = self.policy.tokenizer
            texts = tok.batch_decode([[i] for i in range(len(tok))], skip_special_tokens=False)
            self._token_bytes = max(1, max(len(t.encode("utf-8", "replace")) for t in texts))
        return self._token_bytes

    def _waiting_rows(self) -> int:
        return sum(1 for row in self._waiting if row.job.alive)

    # ----- adapters -----------------------------------------------------------------------------------------------

    def load_adapter(self, name: str, path: str) -> None:
        if not name:
            raise ServeError("Both 'lora_name' and 'lora_path' must be provided.")
        if name == self.model_name:
            raise ServeError(f"lora_name {name!r} is the base model's name; choose another")
        folder = Path(path).expanduser()
        if not (folder / "adapter_config.json").is_file():
            raise NotFoundError(f"Loading lora {name} failed: no adapter found for {path} (a LoRA adapter folder holds "
                                "adapter_config.json, as PeftModel.save_pretrained writes it)")
        if self.policy.uses_lora:
            raise ServeError("the served model is itself a LoRA policy; serve a plain model (or merge it) to load "
                             "adapters on it")
        self._call_on_worker(lambda: self._load(name, folder))

    def unload_adapter(self, name: str) -> None:
        with self._cond:
            if name not in self._adapters:
                raise NotFoundError(f"The lora adapter '{name}' cannot be found.")
        self._call_on_worker(lambda: self._unload(name))

    def adapters(self) -> list[AdapterInfo]:
        with self._cond:
            return [info for _, info in self._adapters.values()]

    def _load(self, name: str, folder: Path) -> None:
        from peft import PeftConfig, PeftModel

        internal = f"served{next(self._adapter_ids)}"  # peft's own names cannot hold dots or parts of "lora_"
        created = False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if self._peft is None:
                    config = PeftConfig.from_pretrained(str(folder))
                    config.inference_mode = True
                    self._peft = PeftModel(self.policy.model, config, adapter_name=internal)
                    created = True
                self._peft.load_adapter(str(folder), adapter_name=internal, is_trainable=False)
            self._peft.eval()
        except Exception as exc:
            self._drop(internal, unwrap=created)
            raise ServeError(f"cannot load the LoRA adapter in {folder} onto {self.model_name!r}: "
                             f"{type(exc).__name__}: {exc}") from None
        with self._cond:
            old = self._adapters.get(name)
            self._adapters[name] = (internal, AdapterInfo(name, str(folder)))
        if old is not None:
            self._drop(old[0], unwrap=False)
        log.info("adapter %r loaded from %s", name, folder)

    def _unload(self, name: str) -> None:
        with self._cond:
            entry = self._adapters.pop(name, None)
        if entry is None:
            raise NotFoundError(f"The lora adapter '{name}' cannot be found.")
        self._drop(entry[0], unwrap=not self._adapters)

    def _drop(self, internal: str, *, unwrap: bool) -> None:
        """Delete peft adapter `internal`; with `unwrap` (no adapter left) take the LoRA layers out of the model."""
        if self._peft is None:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if unwrap:
                self._peft.unload()
                self._peft = None
            elif internal in self._peft.peft_config:
                self._peft.delete_adapter(internal)

    @contextmanager
    def _model_for(self, adapter: str | None) -> Iterator[Any]:
        if adapter is None:
            if self._peft is None:
                yield self.policy.model
            else:
                with self._peft.disable_adapter():
                    yield self._peft
            return
        with self._cond:
            entry = self._adapters.get(adapter)
        if entry is None:
            raise NotFoundError(f"The lora adapter '{adapter}' was unloaded before this request ran.")
        self._peft.set_adapter(entry[0])
        yield self._peft

    # ----- the worker ---------------------------------------------------------------------------------------------

    def _call_on_worker(self, fn: Callable[[], None]) -> None:
        future: Future[None] = Future()
        with self._cond:
            self._control.append((fn, future))
            self._ensure_worker()
            self._cond.notify_all()
        future.result()

    def _ensure_worker(self) -> None:
        """Start the worker thread if it is not running (call with the lock held)."""
        if self._thread is None or not self._thread.is_alive():
            self._closing = False
            self._thread = threading.Thread(target=self._work, name="serve-generate", daemon=True)
            self._thread.start()

    def close(self) -> None:
        with self._cond:
            self._closing = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=30)

    def stats(self) -> dict[str, int]:
        with self._cond:
            return {"waiting": self._waiting_rows(), "running": self._running, **self._counts}

    def _work(self) -> None:
        while True:
            control: tuple[Callable[[], None], Future[None]] | None = None
            rows: list[_Row] = []
            with self._cond:
                while not self._control and not self._waiting and not self._closing:
                    self._cond.wait()
                if self._closing:
                    return
                if self._control:
                    control = self._control.popleft()
                else:
                    rows = self._take_batch()
            if control is not None:
                fn, future = control
                try:
                    fn()
                    future.set_result(None)
                except BaseException as exc:
                    future.set_exception(exc)
                continue
            if not rows:
                continue
            try:
                self._run(rows)
            except BaseException as exc:  # never let the worker die: fail the batch's requests instead
                log.exception("generation failed")
                for job in {row.job: None for row in rows}:
                    self._fail(job, exc)
            finally:
                with self._cond:
                    self._running = 0

    def _take_batch(self) -> list[_Row]:
        """The next batch's rows (call with the lock held): the oldest waiting row's adapter, after the window."""
        while self._waiting and not self._waiting[0].job.alive:
            self._waiting.popleft()
        if not self._waiting:
            return []
        adapter = self._waiting[0].job.adapter
        deadline = self._waiting[0].arrived + self.batch_window
        while not self._control and not self._closing:
            ready = sum(1 for r in self._waiting if r.job.adapter == adapter and r.job.alive)
            left = deadline - time.monotonic()
            if ready >= self.max_batch or left <= 0:
                break
            self._cond.wait(left)
        rows = [r for r in self._waiting if r.job.adapter == adapter and r.job.alive][: self.max_batch]
        taken = set(map(id, rows))
        self._waiting = deque(r for r in self._waiting if id(r) not in taken and r.job.alive)
        self._running = len(rows)
        return rows

    def _should_yield(self, adapter: str | None, free: int) -> bool:
        """Whether a running batch should stop for newcomers (it has `free` rows) or an adapter operation."""
        with self._cond:
            if self._control:
                return True
            return free > 0 and any(r.job.adapter == adapter and r.job.alive for r in self._waiting)

    def _run(self, rows: list[_Row]) -> None:
        for row in rows:
            row.preempted = False
        adapter = rows[0].job.adapter
        inputs = self._assemble(rows)
        step = _Step(self, rows)
        config = self._generation_config(max(row.job.max_new - len(row.ids) for row in rows))
        with self._counted(), self._model_for(adapter) as model:
            was_training = model.training
            model.eval()
            try:
                with torch.inference_mode():
                    model.generate(**inputs, generation_config=config,
                                   logits_processor=LogitsProcessorList([_Pick(step)]),
                                   stopping_criteria=StoppingCriteriaList([_Stop(step)]))
            finally:
                model.train(was_training)
        for row in rows:  # generate stops at max_new_tokens: a row still open there has reached its length
            if not row.stopped:
                self._advance(row, None, "length")
        back = [row for row in rows if row.preempted and not row.done and row.job.alive]
        if back:
            with self._cond:
                self._counts["preemptions"] += 1
                self._waiting.extendleft(reversed(back))
                self._cond.notify_all()

    @contextmanager
    def _counted(self) -> Iterator[None]:
        with self._cond:
            self._counts["batches"] += 1
        yield

    def _assemble(self, rows: list[_Row]) -> dict[str, Any]:
        """Left-padded inputs for `rows`: each row's prompt plus the tokens it has generated so far."""
        sequences = [row.job.prompt.ids + row.ids for row in rows]
        width = max(map(len, sequences))
        input_ids = torch.full((len(rows), width), self._pad, dtype=torch.long)
        attention_mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, seq in enumerate(sequences):
            input_ids[i, width - len(seq):] = torch.tensor(seq, dtype=torch.long)
            attention_mask[i, width - len(seq):] = 1
        inputs: dict[str, Any] = {"input_ids": input_ids, "attention_mask": attention_mask}
        with_images = [row.job.prompt for row in rows if row.job.prompt.pixel_values is not None]
        if with_images:
            inputs["pixel_values"] = torch.cat([p.pixel_values for p in with_images])
            inputs["image_grid_thw"] = torch.cat([p.image_grid_thw for p in with_images])
        device = self.policy.device
        return {k: v.to(device) for k, v in inputs.items()}

    def _generation_config(self, max_new: int) -> GenerationConfig:
        config = copy.deepcopy(self.policy.model.generation_config)
        config.max_new_tokens = max(1, max_new)
        config.max_length = None
        config.min_new_tokens = None
        config.do_sample = False
        config.num_beams = 1
        config.eos_token_id = None  # end tokens are the stopping criterion's business (ignore_eos, stop_token_ids)
        config.pad_token_id = self._pad
        for name in ("temperature", "top_p", "top_k", "min_p", "typical_p"):
            if hasattr(config, name):
                setattr(config, name, None)
        return config

    # ----- one step of one row ------------------------------------------------------------------------------------

    def token_text(self, token_id: int) -> str:
        text = self._token_text.get(token_id)
        if text is None:
            text = self.policy.tokenizer.decode([token_id], skip_special_tokens=False)
            self._token_text[token_id] = text
        return text

    def _advance(self, row: _Row, token: int | None, reason: str | None = None) -> None:
        """Add `token` to `row`, decide whether the row ends, stream what it gained, answer its job when complete."""
        job, params = row.job, row.job.params
        if token is not None:
            row.ids.append(token)
            if row.pending is not None:
                row.logprobs.append(row.pending)
                row.pending = None
            ended = token in params.stop_token_ids or (token in self._end_ids and not params.ignore_eos)
            if token not in self._drop_ids and not (ended and token in params.stop_token_ids):
                row.visible.append(token)
            if ended:
                reason = "stop"
            if job.stream or params.stop:
                row.text = self.policy.tokenizer.decode(row.visible, skip_special_tokens=params.skip_special_tokens)
                if params.stop and reason is None:
                    reason = self._cut_at_stop(row)
            if reason is None and len(row.ids) >= job.max_new:
                reason = "length"
        if reason is None and not job.alive:
            reason = "abort"
        if reason is not None:
            if not (job.stream or params.stop):
                row.text = self.policy.tokenizer.decode(row.visible, skip_special_tokens=params.skip_special_tokens)
            row.finish_reason = reason
        if job.stream and job.sink is not None and not job.over:
            self._stream(row)
        if row.done:
            with self._cond:
                self._counts["rows_done"] += 1
                self._counts["rows_aborted"] += reason == "abort"
            if all(r.done for r in job.rows) and not job.over:
                job.over = True
                completions = tuple(
                    Completion(r.index, r.text, tuple(r.ids), r.finish_reason or "stop",
                               tuple(r.logprobs) if params.logprobs else None)
                    for r in job.rows)
                with self._cond:
                    self._counts["requests_done"] += 1
                if job.sink is not None:
                    job.sink.finish(ChatResult(job.model, completions, tuple(job.prompt.ids)))

    def _cut_at_stop(self, row: _Row) -> str | None:
        stops = row.job.params.stop
        start = max(0, row.checked - max(map(len, stops)) + 1)
        hits = [(row.text.find(s, start), s) for s in stops]
        hits = [(at, s) for at, s in hits if at >= 0]
        row.checked = len(row.text)
        if not hits:
            return None
        at, s = min(hits)
        row.text = row.text[: at + len(s) if row.job.params.include_stop_str_in_output else at]
        return "stop"

    def _stream(self, row: _Row) -> None:
        text = row.text
        upto = len(text) if row.done else _stable_length(text, row.job.params.stop)
        piece = text[row.sent:upto] if upto > row.sent else ""
        ids = tuple(row.ids[row.ids_sent:])
        logprobs = tuple(row.logprobs[row.logprobs_sent:])
        if piece or ids or logprobs or row.done:
            row.sent = max(row.sent, upto)
            row.ids_sent, row.logprobs_sent = len(row.ids), len(row.logprobs)
            assert row.job.sink is not None
            row.job.sink.delta(Delta(row.index, piece, ids, logprobs, row.finish_reason))

    def _fail(self, job: _Job, error: BaseException) -> None:
        if job.over:
            return
        job.over = True
        for row in job.rows:
            if row.finish_reason is None:
                row.finish_reason = "abort"
        if job.sink is not None:
            job.sink.fail(error)


def unwrap_config(model: torch.nn.Module) -> PretrainedConfig:
    """The text model's config (a VL model's text config)."""
    config = model.config
    return config.get_text_config() if hasattr(config, "get_text_config") else config


def _stable_length(text: str, stops: Sequence[str]) -> int:
    """How much of a growing `text` can be streamed: not a trailing partial character, nor the start of a stop string."""
    n = len(text)
    while n and text[n - 1] == "\ufffd":
        n -= 1
    keep = n
    for stop in stops:
        for size in range(min(len(stop) - 1, n), 0, -1):
            if text[n - size:n] == stop[:size]:
                keep = min(keep, n - size)
                break
    return keep


class _Step:
    """The rows of one `generate` call, shared by its logits processor and stopping criterion."""

    def __init__(self, engine: HFEngine, rows: list[_Row]) -> None:
        self.engine = engine
        self.rows = rows
        self.steps = 0
        self.logprobs = any(row.job.params.logprobs for row in rows)
        self.adapter = rows[0].job.adapter


class _Pick(LogitsProcessor):
    """Chooses every row's next token itself (argmax, or a draw from the row's generator with its own temperature,
    top-k and top-p, in the order transformers applies them) and returns scores on which greedy search picks it."""

    def __init__(self, step: _Step) -> None:
        self.step = step

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        chosen = scores.argmax(dim=-1)
        logprobs = torch.log_softmax(scores.float(), dim=-1) if self.step.logprobs else None
        engine = self.step.engine
        for i, row in enumerate(self.step.rows):
            if row.stopped:
                chosen[i] = engine._pad
                continue
            params = row.job.params
            if params.temperature > 0:
                chosen[i] = _sample(scores[i : i + 1], params, row.generator)
            if logprobs is not None and params.logprobs:
                row.pending = _logprob(engine, logprobs[i], int(chosen[i]), params.top_logprobs)
        picked = torch.full_like(scores, float("-inf"))
        picked.scatter_(1, chosen.unsqueeze(1), 0.0)
        return picked


class _Stop(StoppingCriteria):
    """Reads each row's new token (`HFEngine._advance`) and cuts the batch when it should yield."""

    def __init__(self, step: _Step) -> None:
        self.step = step

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor, **kwargs: Any) -> torch.BoolTensor:
        step, engine = self.step, self.step.engine
        last = input_ids[:, -1].tolist()
        for i, row in enumerate(step.rows):
            if not row.stopped:
                engine._advance(row, last[i])
        step.steps += 1
        open_rows = [row for row in step.rows if not row.stopped]
        if open_rows and step.steps >= engine.rejoin_after:
            if engine._should_yield(step.adapter, engine.max_batch - len(open_rows)):
                for row in open_rows:
                    row.preempted = True
        return torch.tensor([row.stopped for row in step.rows], dtype=torch.bool, device=input_ids.device)


def _sample(scores: torch.Tensor, params: SamplingParams, generator: torch.Generator | None) -> int:
    if params.temperature != 1.0:
        scores = scores / params.temperature
    if params.top_k > 0:
        kth = torch.topk(scores, min(params.top_k, scores.shape[-1])).values[..., -1, None]
        scores = scores.masked_fill(scores < kth, float("-inf"))
    if params.top_p < 1.0:
        ordered, order = torch.sort(scores, descending=False)
        cumulative = ordered.softmax(dim=-1).cumsum(dim=-1)
        remove = cumulative <= 1 - params.top_p
        remove[..., -1:] = False
        scores = scores.masked_fill(remove.scatter(1, order, remove), float("-inf"))
    probs = torch.nn.functional.softmax(scores, dim=-1)
    return int(draw(probs, generator)[0])


def _logprob(engine: HFEngine, row: torch.Tensor, token: int, top: int) -> TokenLogprob:
    def value(x: float) -> float:
        return x if x > MIN_LOGPROB else MIN_LOGPROB  # also maps NaN to the floor

    best: tuple[TopLogprob, ...] = ()
    if top:
        values, indices = torch.topk(row, top)
        best = tuple(TopLogprob(int(j), engine.token_text(int(j)), value(float(v)))
                     for v, j in zip(values.tolist(), indices.tolist()))
    return TokenLogprob(token, engine.token_text(token), value(float(row[token])), best)
