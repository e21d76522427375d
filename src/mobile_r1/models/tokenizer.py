"""A small byte-level BPE tokenizer trained locally on a built-in corpus, with our chat template and special tokens."""

from __future__ import annotations

import json
import random
from pathlib import Path

TOKENIZER_DIR = Path(__file__).parent / "assets" / "tokenizer"  # the presets' tokenizer, trained by `train_tokenizer`

SPECIAL_TOKENS: tuple[str, ...] = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<think>",
    "</think>",
    "<action>",
    "</action>",
    "<tool_call>",
    "</tool_call>",
    "<tools>",
    "</tools>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
)

# ChatML as Qwen2-VL writes it: a message's content is a string or a list of {"type": "text"|"image"} parts.
CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "{{- '<|im_start|>' + message['role'] + '\\n' -}}"
    "{%- if message['content'] is string -%}{{- message['content'] -}}"
    "{%- else -%}{%- for part in message['content'] -%}"
    "{%- if part['type'] == 'image' or 'image' in part -%}{{- '<|vision_start|><|image_pad|><|vision_end|>' -}}"
    "{%- elif part['type'] == 'text' -%}{{- part['text'] -}}{%- endif -%}"
    "{%- endfor -%}{%- endif -%}"
    "{{- '<|im_end|>\\n' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}"
)

_WORDS = (
    "you are a helpful assistant phone agent operate the screen of an android device to complete the user task "
    "the current screen shows elements click tap long press swipe type text into field system button back home "
    "menu enter open app wait terminate status success failure call user ask human answer key volume up down "
    "instruction history previous actions step observation screenshot accessibility tree element id bounds "
    "clickable editable scrollable checked focused enabled selected button textview edittext imageview list item "
    "settings messages contacts camera gallery calendar clock browser search send message to mom hello how are "
    "you please confirm which one do you mean should i proceed with the payment transfer money login password "
    "account profile avatar post publish delete file subscription purchase buy order cart shop food weather "
    "map music video play pause next share save cancel ok yes no done add new edit title name number phone "
    "email address date time today tomorrow morning evening alarm set turn on off wifi bluetooth brightness "
    "i need to the task is asking for so first then now next i will in order to which is this that what "
    "function functions tool tools name arguments description parameters properties required type object "
    "string integer array enum coordinate coordinate2 x y pixels resolution of image width height content "
    "for each function call return a json object with function name and arguments within xml tags mobile_use"
)


def build_corpus(seed: int = 0, n_lines: int = 3000) -> list[str]:
    """Lines covering our prompts, tool-call JSON, numbers and common words (deterministic for a seed)."""
    rng = random.Random(seed)
    words = _WORDS.split()
    actions = ["click", "long_press", "swipe", "type", "system_button", "open", "wait", "terminate", "call_user"]
    lines: list[str] = []
    for i in range(n_lines):
        sentence = " ".join(rng.choice(words) for _ in range(rng.randint(4, 16)))
        kind = rng.choice(actions)
        args: dict[str, object] = {"action": kind}
        if kind in ("click", "long_press", "swipe"):
            args["coordinate"] = [rng.randint(0, 1400), rng.randint(0, 3000)]
        if kind == "swipe":
            args["coordinate2"] = [rng.randint(0, 1400), rng.randint(0, 3000)]
        if kind in ("type", "open"):
            args["text"] = " ".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
        if kind == "call_user":
            args["content"] = sentence.capitalize() + "?"
        if kind == "system_button":
            args["button"] = rng.choice(["Back", "Home", "Menu", "Enter"])
        if kind == "terminate":
            args["status"] = rng.choice(["success", "failure"])
        call = json.dumps({"name": "mobile_use", "arguments": args}, ensure_ascii=False)
        lines.append(f"<think>{sentence.capitalize()}.</think>\n<action>{sentence}</action>\n<tool_call>\n{call}\n</tool_call>")
        lines.append(
            f"[{i}] {rng.choice(['Button', 'TextView', 'EditText', 'ImageView'])} \"{rng.choice(words).title()}\" "
            f"bounds=[{rng.randint(0, 1080)},{rng.randint(0, 2400)},{rng.randint(0, 1080)},{rng.randint(0, 2400)}]"
        )
        lines.append(sentence.upper() + " " + sentence.title() + ". " + str(rng.randint(0, 99999)))
    return lines


def train_tokenizer(phone_lines: list[str], vocab_size: int = 4096, seed: int = 0):  # -> PreTrainedTokenizerFast
    """Train a byte-level BPE (single-digit numbers) on `build_corpus()` and `phone_lines` (texts of the phone:
    `mobile_r1.env.sim.corpus.phone_corpus()`) and wrap it as a transformers fast tokenizer with a chat template.

    The presets' tokenizer, trained so with seed 0, ships in `TOKENIZER_DIR`; `tests/models/test_tokenizer.py` checks
    that training it again gives the same file."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    # numbers are split into single digits, as Qwen2's tokenizer does: a point is copied digit by digit
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False)]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(build_corpus(seed) + list(phone_lines), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        bos_token=None,
        unk_token=None,
        additional_special_tokens=[t for t in SPECIAL_TOKENS if t not in ("<|im_end|>", "<|endoftext|>")],
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.padding_side = "left"
    return fast
